//===- library_loader.cpp - dlopen of an optional vendor library ----------===//

#include "device/library_loader.h"

#include <cstdlib>
#include <cstring>

#include <dlfcn.h>

tandem::OpenedLibrary
tandem::openLibrary(const char *title, const char *envVar,
                    std::initializer_list<const char *> names,
                    const std::function<std::string()> &fallback) {
  OpenedLibrary opened;
  const char *override = std::getenv(envVar);
  if (override && std::strcmp(override, "0") == 0) {
    opened.error = std::string("disabled by ") + envVar + "=0";
    return opened;
  }
  std::string tried, reason;
  auto attempt = [&](const std::string &name) {
    opened.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    tried += tried.empty() ? name : ", " + name;
    if (!opened.handle) {
      const char *error = dlerror();
      reason = error ? error : "dlopen failed";
    }
    return opened.handle != nullptr;
  };
  if (override && *override) {
    attempt(override);
  } else {
    for (const char *name : names)
      if (attempt(name))
        break;
    if (!opened.handle && fallback)
      if (std::string path = fallback(); !path.empty())
        attempt(path);
  }
  if (!opened.handle)
    opened.error =
        std::string("cannot load ") + title + " (" + tried + "): " + reason;
  return opened;
}
