//===- thread_pool.cpp - The CPU thread pool behind tandem_parallel_for ---===//
//
// A fixed set of workers sleeps on a condition variable. tandem_parallel_for
// publishes one job (the loop body and an atomic chunk counter) under the
// pool's mutex, wakes the workers, and claims chunks itself until none are
// left; then it waits until every worker that joined the job has left it.
// Callers on one pool are serialized by a second mutex. See docs/Runtime.md.
//
//===----------------------------------------------------------------------===//

#include "tandem/runtime.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
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

namespace {

/// One tandem_parallel_for call, on the caller's stack.
struct Job {
  tandem_parallel_fn fn;
  void *env;
  int64_t n;
  int64_t chunk;
  int64_t numChunks;
  std::atomic<int64_t> next{0};
};

/// True on pool workers and on a caller while it runs a job: a
/// tandem_parallel_for made there runs serially.
thread_local bool insideParallelFor = false;

void runChunks(Job &job) {
  for (;;) {
    int64_t index = job.next.fetch_add(1, std::memory_order_relaxed);
    if (index >= job.numChunks)
      return;
    int64_t begin = index * job.chunk;
    int64_t end = std::min(job.n, begin + job.chunk);
    job.fn(job.env, begin, end);
  }
}

} // namespace

struct tandem_thread_pool_s {
  int32_t size = 1;
  std::vector<std::thread> workers;
  /// Serializes tandem_parallel_for callers.
  std::mutex submitMutex;
  /// Guards everything below.
  std::mutex mutex;
  std::condition_variable workCv;
  std::condition_variable doneCv;
  Job *job = nullptr;
  uint64_t generation = 0;
  int32_t busyWorkers = 0;
  bool stop = false;

  void workerLoop() {
    insideParallelFor = true;
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      workCv.wait(lock, [&] { return stop || generation != seen; });
      if (stop)
        return;
      seen = generation;
      Job *current = job;
      if (!current)
        continue; // The job finished before this worker woke up.
      ++busyWorkers;
      lock.unlock();
      runChunks(*current);
      lock.lock();
      if (--busyWorkers == 0)
        doneCv.notify_all();
    }
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
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
  try {
    pool->workers.reserve(static_cast<size_t>(threads - 1));
    for (int32_t i = 1; i < threads; ++i)
      pool->workers.emplace_back([pool] { pool->workerLoop(); });
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
  if (n <= 0 || !fn)
    return;
  if (grain <= 0)
    grain = 1;
  if (!pool || pool->workers.empty() || n <= grain || insideParallelFor) {
    fn(env, 0, n);
    return;
  }
  // About four chunks per thread balance uneven chunk costs; never below
  // grain.
  int64_t target = static_cast<int64_t>(pool->size) * 4;
  int64_t chunk = std::max(grain, n / target + (n % target != 0));
  Job job;
  job.fn = fn;
  job.env = env;
  job.n = n;
  job.chunk = chunk;
  job.numChunks = n / chunk + (n % chunk != 0);

  std::lock_guard<std::mutex> submit(pool->submitMutex);
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->job = &job;
    ++pool->generation;
  }
  pool->workCv.notify_all();
  insideParallelFor = true;
  runChunks(job);
  insideParallelFor = false;
  // Every chunk is claimed; wait for the workers still running one, then
  // retract the job so that no late worker can see it.
  std::unique_lock<std::mutex> lock(pool->mutex);
  pool->doneCv.wait(lock, [&] { return pool->busyWorkers == 0; });
  pool->job = nullptr;
}

} // extern "C"
