//===- thread_pool.cpp - The CPU thread pool behind tandem_parallel_for ---===//
//
// A fixed set of workers waits for jobs. tandem_parallel_for publishes one
// job (the loop body and its chunks, one range per thread with an atomic
// counter each), wakes the workers that sleep, and claims chunks itself
// (its own range first) until none are left; then it retracts the job and
// waits until every worker that joined it has left it. Callers on one pool
// are serialized by a mutex. See docs/Runtime.md.
//
// A compiled model makes hundreds of short parallel loops per run, so a
// worker that finished a job spins on the job generation for a while
// (TANDEM_POOL_SPIN_US, 200 us by default) before it sleeps on the
// condition variable: waking a sleeping thread costs tens of microseconds,
// as much as a small loop's whole work. A worker woken from its sleep
// leaves its waker's CPU if the scheduler queued it there
// (tandem_internal_leave_cpu).
//
//===----------------------------------------------------------------------===//

#include "tandem/runtime.h"
#include "thread_pool_internal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace {

/// Most threads whose chunks a job keeps apart (see Job); a job on a
/// bigger pool gives its threads one range each up to this many.
constexpr int kMaxRanges = 16;

/// One tandem_parallel_for call, on the caller's stack. Its chunks are cut
/// into one contiguous range per thread; a thread claims the chunks of its
/// own range first (the caller range 0, worker i range i), then those left
/// in the others. The same loop thus gives each thread the same chunks run
/// after run, so a thread rewrites the lines it wrote the run before,
/// which its cache still holds, instead of lines another core holds
/// (slow: bench/native/coherence.c); a late thread's chunks are still
/// taken by the others.
struct Job {
  tandem_parallel_fn fn;
  void *env;
  int64_t n;
  int64_t chunk;
  int64_t numChunks;
  int ranges;
  /// Range r is chunks [first[r], first[r + 1]), claimed through next[r].
  int64_t first[kMaxRanges + 1];
  struct alignas(64) Counter {
    std::atomic<int64_t> next{0};
  };
  Counter next[kMaxRanges];
};

/// True on pool workers and on a caller while it runs a job: a
/// tandem_parallel_for made there runs serially.
thread_local bool insideParallelFor = false;

/// Runs chunks of `job` until none is left: first those of range `self`
/// (modulo the ranges), then those of the next ranges in turn.
void runChunks(Job &job, int self) {
  for (int i = 0; i < job.ranges; ++i) {
    int r = (self + i) % job.ranges;
    for (;;) {
      int64_t index = job.first[r] +
                      job.next[r].next.fetch_add(1, std::memory_order_relaxed);
      if (index >= job.first[r + 1])
        break;
      int64_t begin = index * job.chunk;
      int64_t end = std::min(job.n, begin + job.chunk);
      job.fn(job.env, begin, end);
    }
  }
}

/// A spin-wait step that lets a sibling hyperthread run.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// The CPU the calling thread runs on, -1 where unknown.
int currentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

/// How long an idle worker spins before it sleeps: TANDEM_POOL_SPIN_US
/// (0 sleeps at once), 200 us if unset or malformed.
std::chrono::microseconds spinTime() {
  const char *text = std::getenv("TANDEM_POOL_SPIN_US");
  if (text && *text) {
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (end && *end == 0 && value >= 0 && value <= 1000000)
      return std::chrono::microseconds(value);
  }
  return std::chrono::microseconds(200);
}

} // namespace

struct tandem_thread_pool_s {
  int32_t size = 1;
  std::chrono::microseconds spin{0};
  std::vector<std::thread> workers;
  /// Serializes tandem_parallel_for callers.
  std::mutex submitMutex;
  /// The job workers may join (null between jobs) and its generation.
  std::atomic<Job *> job{nullptr};
  std::atomic<uint64_t> generation{0};
  /// Workers inside the published job (they may still read it).
  std::atomic<int32_t> busyWorkers{0};
  std::atomic<bool> stop{false};
  /// Workers asleep on workCv (changed under mutex).
  std::atomic<int32_t> sleepers{0};
  /// The CPU of the thread that last woke sleeping workers
  /// (tandem_internal_leave_cpu).
  std::atomic<int> wakerCpu{-1};
  std::mutex mutex;
  std::condition_variable workCv;

  /// Waits until the generation differs from `seen` or the pool stops:
  /// spins for `spin`, then sleeps. Returns false when the pool stops.
  bool waitForWork(uint64_t seen) {
    auto changed = [&] { return stop.load() || generation.load() != seen; };
    if (spin.count() > 0) {
      auto deadline = std::chrono::steady_clock::now() + spin;
      for (int i = 0; !changed(); ++i) {
        cpuRelax();
        if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline)
          break;
      }
    }
    if (!changed()) {
      std::unique_lock<std::mutex> lock(mutex);
      // Counted before the predicate is checked: a submitter that sees no
      // sleeper has already advanced the generation this check reads.
      sleepers.fetch_add(1);
      workCv.wait(lock, changed);
      sleepers.fetch_sub(1);
      lock.unlock();
      tandem_internal_leave_cpu(wakerCpu.load());
    }
    return !stop.load();
  }

  void workerLoop(int self) {
    insideParallelFor = true;
    uint64_t seen = 0;
    while (waitForWork(seen)) {
      seen = generation.load();
      // Joined before the job is read: a submitter that retracts the job
      // and then sees no busy worker knows no worker can still read it
      // (both sides are sequentially consistent).
      busyWorkers.fetch_add(1);
      if (Job *current = job.load())
        runChunks(*current, self);
      busyWorkers.fetch_sub(1);
    }
  }

  /// Publishes `next` and wakes the sleeping workers.
  void publish(Job *next) {
    job.store(next);
    generation.fetch_add(1);
    if (sleepers.load() > 0) {
      wakerCpu.store(currentCpu());
      {
        std::lock_guard<std::mutex> lock(mutex);
        workCv.notify_all();
      }
      // A worker the scheduler queued on this CPU runs now and leaves it
      // (tandem_internal_leave_cpu) instead of waiting for this thread's time
      // slice to end.
      std::this_thread::yield();
    }
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop.store(true);
    }
    workCv.notify_all();
    for (std::thread &worker : workers)
      if (worker.joinable())
        worker.join();
    workers.clear();
  }
};

extern "C" {

int32_t tandem_physical_cores(void) {
  int32_t fallback =
      static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    std::vector<int> cpus;
#if defined(__linux__)
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &mask))
          cpus.push_back(cpu);
      fallback = std::max<int32_t>(1, static_cast<int32_t>(cpus.size()));
    }
#endif
    // /sys: one (package, core) pair per physical core.
    std::set<std::pair<long, long>> cores;
    bool sysOk = !cpus.empty();
    for (int cpu : cpus) {
      std::string base =
          "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      std::ifstream package(base + "physical_package_id");
      std::ifstream core(base + "core_id");
      long packageId = -1, coreId = -1;
      if (!(package >> packageId) || !(core >> coreId)) {
        sysOk = false;
        break;
      }
      cores.insert({packageId, coreId});
    }
    if (sysOk && !cores.empty())
      return static_cast<int32_t>(cores.size());

    // /proc/cpuinfo: "processor", "physical id" and "core id" per CPU.
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::set<int> allowed(cpus.begin(), cpus.end());
    cores.clear();
    long processor = -1, packageId = 0, coreId = -1;
    auto flush = [&] {
      if (processor >= 0 && coreId >= 0 &&
          (allowed.empty() || allowed.count(static_cast<int>(processor))))
        cores.insert({packageId, coreId});
      processor = -1;
      packageId = 0;
      coreId = -1;
    };
    std::string line;
    while (std::getline(cpuinfo, line)) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) {
        flush();
        continue;
      }
      std::string key =
          line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
      long value = std::strtol(line.c_str() + colon + 1, nullptr, 10);
      if (key == "processor")
        processor = value;
      else if (key == "physical id")
        packageId = value;
      else if (key == "core id")
        coreId = value;
    }
    flush();
    if (!cores.empty())
      return static_cast<int32_t>(cores.size());
  } catch (...) {
  }
  return fallback;
}

tandem_status_t tandem_thread_pool_create(int32_t threads,
                                          tandem_thread_pool_t **out) {
  if (!out)
    return tandem_status_make(TANDEM_INVALID_ARGUMENT,
                              "tandem_thread_pool_create: out is NULL");
  *out = nullptr;
  if (threads <= 0)
    threads = tandem_physical_cores();
  auto *pool = new (std::nothrow) tandem_thread_pool_s;
  if (!pool)
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "cannot allocate a thread pool");
  pool->size = threads;
  pool->spin = spinTime();
  try {
    pool->workers.reserve(static_cast<size_t>(threads - 1));
    for (int32_t i = 1; i < threads; ++i)
      pool->workers.emplace_back([pool, i] { pool->workerLoop(i); });
  } catch (const std::bad_alloc &) {
    pool->shutdown();
    delete pool;
    return tandem_status_make(TANDEM_OUT_OF_MEMORY,
                              "cannot allocate a thread pool of %d threads",
                              threads);
  } catch (...) {
    size_t started = pool->workers.size();
    pool->shutdown();
    delete pool;
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "cannot start thread %zu of a pool of %d threads",
                              started + 1, threads);
  }
  *out = pool;
  return nullptr;
}

void tandem_thread_pool_destroy(tandem_thread_pool_t *pool) {
  if (!pool)
    return;
  pool->shutdown();
  delete pool;
}

int32_t tandem_thread_pool_size(const tandem_thread_pool_t *pool) {
  return pool ? pool->size : 1;
}

void tandem_parallel_for(tandem_thread_pool_t *pool, int64_t n, int64_t grain,
                         tandem_parallel_fn fn, void *env) {
  // About four chunks per thread balance uneven chunk costs; never below
  // grain (so n <= grain runs serially).
  int64_t target = pool ? static_cast<int64_t>(pool->size) * 4 : 1;
  int64_t chunk = std::max<int64_t>(std::max<int64_t>(grain, 1),
                                    n / target + (n % target > 0));
  tandem_internal_parallel_chunks(pool, n, chunk, fn, env);
}

} // extern "C"

int64_t tandem_internal_balanced_chunk(int64_t tasks, int64_t threads) {
  if (threads <= 1)
    return std::max<int64_t>(tasks, 1);
  int64_t target = 4 * threads;
  int64_t chunk = std::max<int64_t>(1, (tasks + target - 1) / target);
  if (((tasks + chunk - 1) / chunk) % threads == 0)
    return chunk;
  for (int64_t c = chunk - 1; c >= 1; --c)
    if (tasks % c == 0 && (tasks / c) % threads == 0 && c * 2 >= chunk)
      return c;
  return chunk;
}

void tandem_internal_parallel_chunks(tandem_thread_pool_t *pool, int64_t n,
                                     int64_t chunk, tandem_parallel_fn fn,
                                     void *env) {
  if (n <= 0 || !fn)
    return;
  if (chunk <= 0)
    chunk = 1;
  if (!pool || pool->workers.empty() || n <= chunk || insideParallelFor) {
    fn(env, 0, n);
    return;
  }
  Job job;
  job.fn = fn;
  job.env = env;
  job.n = n;
  job.chunk = chunk;
  job.numChunks = n / chunk + (n % chunk != 0);
  job.ranges = static_cast<int>(std::min<int64_t>(
      std::min<int64_t>(pool->size, kMaxRanges), job.numChunks));
  for (int r = 0; r <= job.ranges; ++r)
    job.first[r] = job.numChunks * r / job.ranges;

  std::lock_guard<std::mutex> submit(pool->submitMutex);
  pool->publish(&job);
  insideParallelFor = true;
  runChunks(job, 0);
  insideParallelFor = false;
  // Every chunk is claimed: retract the job so that no late worker joins
  // it, then wait for the workers still running one of its chunks (at
  // most one chunk each, so spin, yielding now and then).
  pool->job.store(nullptr);
  for (int i = 0; pool->busyWorkers.load() != 0; ++i) {
    if ((i & 1023) == 1023)
      std::this_thread::yield();
    else
      cpuRelax();
  }
}

bool tandem_internal_leave_cpu(int cpu) {
#if defined(__linux__)
  if (cpu < 0 || sched_getcpu() != cpu)
    return false;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0 ||
      !CPU_ISSET(cpu, &mask) || CPU_COUNT(&mask) < 2)
    return false;
  cpu_set_t others = mask;
  CPU_CLR(cpu, &others);
  if (sched_setaffinity(0, sizeof(others), &others) != 0)
    return false;
  sched_setaffinity(0, sizeof(mask), &mask);
  return true;
#else
  (void)cpu;
  return false;
#endif
}
