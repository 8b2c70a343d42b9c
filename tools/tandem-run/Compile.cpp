//===- Compile.cpp - Compiling .onnx / .mlir models with tandemc ----------===//

#include "Compile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace tandem;

namespace {

/// The signal InterruptGuard's handler caught.
volatile sig_atomic_t gInterrupt = 0;

void recordInterrupt(int signal) { gInterrupt = signal; }

const int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction gPrevious[3];

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isExecutableFile(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

/// Resolves a command name without a slash through $PATH, like a shell.
std::string searchPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (isExecutableFile(candidate))
      return candidate;
    start = end + 1;
  }
  return "";
}

/// Checks a user-given tandemc (`from` says where it came from).
bool checkGiven(const std::string &given, const std::string &from,
                std::string &tandemc, std::string &error) {
  std::string path =
      given.find('/') == std::string::npos ? searchPath(given) : given;
  if (path.empty() || !isExecutableFile(path)) {
    error =
        "tandemc '" + given + "' (from " + from + ") is not an executable file";
    return false;
  }
  tandemc = path;
  return true;
}

} // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction action = {};
  action.sa_handler = recordInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: waitpid returns EINTR
  for (int i = 0; i < 3; ++i)
    sigaction(kInterruptSignals[i], &action, &gPrevious[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i)
    sigaction(kInterruptSignals[i], &gPrevious[i], nullptr);
}

int tandem::pendingInterrupt() { return gInterrupt; }

bool tandem::isSourceModel(const std::string &path) {
  return endsWith(path, ".onnx") || endsWith(path, ".mlir");
}

bool tandem::findTandemc(const std::string &explicitPath, std::string &tandemc,
                         std::string &error) {
  if (!explicitPath.empty())
    return checkGiven(explicitPath, "--tandemc", tandemc, error);
  if (const char *env = std::getenv("TANDEMC"); env && *env)
    return checkGiven(env, "$TANDEMC", tandemc, error);
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) {
    error = std::string("cannot find tandemc: cannot read /proc/self/exe: ") +
            std::strerror(errno) + "; pass --tandemc PATH or set TANDEMC";
    return false;
  }
  std::string exe(self, size_t(length));
  std::string candidate = exe.substr(0, exe.rfind('/') + 1) + "tandemc";
  if (!isExecutableFile(candidate)) {
    error = "cannot find tandemc (looked for " + candidate +
            "); pass --tandemc PATH or set TANDEMC";
    return false;
  }
  tandemc = candidate;
  return true;
}

TempDir::~TempDir() {
  if (dirPath.empty())
    return;
  if (DIR *dir = opendir(dirPath.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        unlink((dirPath + "/" + name).c_str());
    }
    closedir(dir);
  }
  rmdir(dirPath.c_str());
}

bool TempDir::create(std::string &error) {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base && *base ? base : "/tmp") + "/tandem-run-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data())) {
    error = "cannot create a temporary directory " + pattern + ": " +
            std::strerror(errno);
    return false;
  }
  dirPath = buffer.data();
  return true;
}

bool tandem::compileToShared(const std::string &tandemc,
                             const std::string &model,
                             const std::string &output,
                             const std::vector<std::string> &args,
                             std::string &error) {
  // A model path starting with '-' would read as a flag.
  std::string modelArg = model[0] == '-' ? "./" + model : model;
  std::vector<std::string> argv = {tandemc, modelArg, "--emit=shared", "-o",
                                   output};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char *> cargv;
  for (std::string &arg : argv)
    cargv.push_back(arg.data());
  cargv.push_back(nullptr);

  if (gInterrupt) {
    error = std::string("interrupted by SIG") + sigabbrev_np(gInterrupt) +
            " before compiling the model";
    return false;
  }
  pid_t pid;
  int spawnError = posix_spawn(&pid, tandemc.c_str(), nullptr, nullptr,
                               cargv.data(), environ);
  if (spawnError != 0) {
    error = "cannot run " + tandemc + ": " + std::strerror(spawnError);
    return false;
  }
  int status = 0;
  bool stopped = false;
  for (;;) {
    // A signal between the check and waitpid is seen at the next EINTR or
    // when tandemc exits; the check after the loop catches the latter.
    if (gInterrupt && !stopped) {
      kill(pid, SIGTERM);
      stopped = true;
    }
    if (waitpid(pid, &status, 0) >= 0)
      break;
    if (errno != EINTR) {
      error = "cannot wait for " + tandemc + ": " + std::strerror(errno);
      return false;
    }
  }
  if (gInterrupt) {
    error = std::string("interrupted by SIG") + sigabbrev_np(gInterrupt) +
            " while compiling the model";
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return true;
  if (WIFSIGNALED(status))
    error = "tandemc was killed by signal " + std::to_string(WTERMSIG(status)) +
            " (" + strsignal(WTERMSIG(status)) + ")";
  else
    error =
        "tandemc failed with exit code " + std::to_string(WEXITSTATUS(status));
  error += " compiling the model";
  return false;
}
