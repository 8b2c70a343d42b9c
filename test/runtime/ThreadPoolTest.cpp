//===- ThreadPoolTest.cpp - tandem_thread_pool_t and tandem_parallel_for --===//

#include "tandem/runtime.h"
#include "thread_pool_internal.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "gtest/gtest.h"

namespace {

struct PoolDeleter {
  void operator()(tandem_thread_pool_t *pool) {
    tandem_thread_pool_destroy(pool);
  }
};
using PoolPtr = std::unique_ptr<tandem_thread_pool_t, PoolDeleter>;

PoolPtr makePool(int32_t threads) {
  tandem_thread_pool_t *pool = nullptr;
  tandem_status_t status = tandem_thread_pool_create(threads, &pool);
  EXPECT_EQ(status, nullptr) << tandem_status_message(status);
  tandem_status_free(status);
  return PoolPtr(pool);
}

/// Counts visits per index and records chunk sizes and threads.
struct Visits {
  explicit Visits(int64_t n) : counts(static_cast<size_t>(n)) {}
  std::vector<std::atomic<int>> counts;
  std::atomic<int64_t> minChunk{INT64_MAX};
  std::atomic<int64_t> chunks{0};
  std::atomic<int64_t> shortChunks{0};
  int64_t grain = 1;
  std::mutex mutex;
  std::set<std::thread::id> threads;

  static void visit(void *env, int64_t begin, int64_t end) {
    auto *self = static_cast<Visits *>(env);
    for (int64_t i = begin; i < end; ++i)
      self->counts[static_cast<size_t>(i)].fetch_add(1);
    int64_t size = end - begin;
    int64_t seen = self->minChunk.load();
    while (size < seen && !self->minChunk.compare_exchange_weak(seen, size)) {
    }
    if (size < self->grain)
      self->shortChunks.fetch_add(1);
    self->chunks.fetch_add(1);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->threads.insert(std::this_thread::get_id());
  }

  void expectEachOnce() {
    for (size_t i = 0; i < counts.size(); ++i)
      ASSERT_EQ(counts[i].load(), 1) << "index " << i;
  }
};

TEST(ThreadPool, PhysicalCores) {
  int32_t cores = tandem_physical_cores();
  EXPECT_GE(cores, 1);
  unsigned logical = std::thread::hardware_concurrency();
  if (logical) {
    EXPECT_LE(static_cast<unsigned>(cores), logical);
  }
}

TEST(ThreadPool, Sizes) {
  for (int32_t threads = 1; threads <= 8; ++threads) {
    PoolPtr pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(tandem_thread_pool_size(pool.get()), threads);
  }
  PoolPtr defaulted = makePool(0);
  EXPECT_EQ(tandem_thread_pool_size(defaulted.get()), tandem_physical_cores());
  EXPECT_EQ(tandem_thread_pool_size(nullptr), 1);
  tandem_thread_pool_destroy(nullptr);
  tandem_status_t status = tandem_thread_pool_create(2, nullptr);
  EXPECT_EQ(tandem_status_code(status), TANDEM_INVALID_ARGUMENT);
  tandem_status_free(status);
}

TEST(ThreadPool, EveryIndexOnceForManyShapes) {
  const int64_t ns[] = {0, 1, 2, 7, 63, 64, 65, 1000, 4097};
  const int64_t grains[] = {-3, 0, 1, 2, 5, 64, 1000, 5000};
  for (int32_t threads = 1; threads <= 8; ++threads) {
    PoolPtr pool = makePool(threads);
    for (int64_t n : ns) {
      for (int64_t grain : grains) {
        Visits visits(n);
        visits.grain = grain < 1 ? 1 : grain;
        tandem_parallel_for(pool.get(), n, grain, Visits::visit, &visits);
        SCOPED_TRACE(testing::Message() << "threads " << threads << " n " << n
                                        << " grain " << grain);
        visits.expectEachOnce();
        if (n == 0) {
          EXPECT_EQ(visits.chunks.load(), 0);
          continue;
        }
        // Only the last chunk may be shorter than the grain.
        EXPECT_LE(visits.shortChunks.load(), 1);
        if (n <= visits.grain || threads == 1) {
          EXPECT_EQ(visits.chunks.load(), 1); // serial: one call, [0, n)
        }
      }
    }
  }
}

TEST(ThreadPool, NullPoolRunsSeriallyOnCaller) {
  Visits visits(100);
  tandem_parallel_for(nullptr, 100, 1, Visits::visit, &visits);
  visits.expectEachOnce();
  EXPECT_EQ(visits.chunks.load(), 1);
  ASSERT_EQ(visits.threads.size(), 1u);
  EXPECT_EQ(*visits.threads.begin(), std::this_thread::get_id());
}

TEST(ThreadPool, UsesWorkers) {
  PoolPtr pool = makePool(4);
  // Slow chunks, so that the workers pick some up; retried because
  // scheduling on a loaded machine may let the caller take them all.
  bool sawWorker = false;
  for (int attempt = 0; attempt < 20 && !sawWorker; ++attempt) {
    Visits visits(64);
    tandem_parallel_for(
        pool.get(), 64, 1,
        [](void *env, int64_t begin, int64_t end) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          Visits::visit(env, begin, end);
        },
        &visits);
    visits.expectEachOnce();
    sawWorker = visits.threads.size() > 1;
  }
  EXPECT_TRUE(sawWorker);
}

TEST(ThreadPool, WorkersSpinningOrAsleepTakeEveryJob) {
  // Idle workers spin for TANDEM_POOL_SPIN_US, then sleep: jobs published
  // while they spin (back to back) and after they fell asleep (a pause
  // longer than the spin) each run every index once, on the workers too,
  // whatever the spin (0: sleep at once).
  for (const char *spin : {"0", "50", "200000"}) {
    setenv("TANDEM_POOL_SPIN_US", spin, 1);
    PoolPtr pool = makePool(3);
    unsetenv("TANDEM_POOL_SPIN_US");
    std::set<std::thread::id> threads;
    for (int job = 0; job < 60; ++job) {
      if (job % 20 == 19)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      Visits visits(48);
      tandem_parallel_for(
          pool.get(), 48, 1,
          [](void *env, int64_t begin, int64_t end) {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
            Visits::visit(env, begin, end);
          },
          &visits);
      visits.expectEachOnce();
      threads.insert(visits.threads.begin(), visits.threads.end());
    }
    EXPECT_GT(threads.size(), 1u) << "spin " << spin;
  }
}

#if defined(__linux__)
TEST(ThreadPool, LeaveCpuMovesOffThatCpuAndKeepsTheAffinity) {
  // What a worker woken from its sleep does with its waker's CPU: a thread
  // on that CPU moves to another it may run on, and its affinity is the
  // same afterwards; one elsewhere (or given no CPU) stays.
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  EXPECT_FALSE(tandem_internal_leave_cpu(-1));
  int cpu = sched_getcpu();
  ASSERT_GE(cpu, 0);
  int other = -1;
  for (int c = 0; c < CPU_SETSIZE && other < 0; ++c)
    if (c != cpu && CPU_ISSET(c, &before))
      other = c;
  if (other < 0) {
    // One CPU: nowhere to go, and the thread stays.
    EXPECT_FALSE(tandem_internal_leave_cpu(cpu));
    EXPECT_EQ(sched_getcpu(), cpu);
    return;
  }
  // The scheduler may move this thread between two calls: try again then.
  bool moved = false;
  int from = -1;
  for (int attempt = 0; attempt < 20 && !moved; ++attempt) {
    from = sched_getcpu();
    moved = tandem_internal_leave_cpu(from);
  }
  ASSERT_TRUE(moved);
  EXPECT_NE(sched_getcpu(), from);
  int elsewhere = -1;
  for (int c = 0; c < CPU_SETSIZE && elsewhere < 0; ++c)
    if (c != sched_getcpu() && CPU_ISSET(c, &before))
      elsewhere = c;
  EXPECT_FALSE(tandem_internal_leave_cpu(elsewhere)); // not running there
  cpu_set_t after;
  CPU_ZERO(&after);
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}
#endif

/// Chunks that each wait (up to a timeout) until a chunk of the other half
/// of the loop has started, recording the thread that ran them.
struct HalvesEnv {
  static constexpr int64_t kChunks = 4;
  std::atomic<bool> started[2] = {false, false};
  std::atomic<bool> timedOut{false};
  std::thread::id ranBy[kChunks];

  static void run(void *env, int64_t begin, int64_t end) {
    auto *self = static_cast<HalvesEnv *>(env);
    for (int64_t i = begin; i < end; ++i) {
      int half = i < kChunks / 2 ? 0 : 1;
      self->ranBy[i] = std::this_thread::get_id();
      self->started[half].store(true);
      auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!self->started[1 - half].load()) {
        if (std::chrono::steady_clock::now() > deadline) {
          self->timedOut.store(true);
          return;
        }
        std::this_thread::yield();
      }
    }
  }
};

TEST(ThreadPool, EachThreadStartsOnItsOwnRange) {
  // A loop's chunks are one range per thread: the caller starts on the
  // first half, the worker on the second, run after run (so that each
  // rewrites the lines it wrote before). Chunks of either half wait for
  // one of the other half to start: had the worker claimed the next chunk
  // of the first half (one shared counter), both threads would wait on the
  // first half and time out.
  PoolPtr pool = makePool(2);
  for (int run = 0; run < 20; ++run) {
    HalvesEnv env;
    tandem_parallel_for(pool.get(), HalvesEnv::kChunks, 1, HalvesEnv::run,
                        &env);
    ASSERT_FALSE(env.timedOut.load()) << "run " << run;
    EXPECT_EQ(env.ranBy[0], std::this_thread::get_id()) << "run " << run;
    EXPECT_NE(env.ranBy[HalvesEnv::kChunks / 2], std::this_thread::get_id())
        << "run " << run;
  }
}

struct NestedEnv {
  tandem_thread_pool_t *pool;
  std::vector<std::atomic<int>> counts;
  std::atomic<int> innerChunks{0};
  explicit NestedEnv(tandem_thread_pool_t *pool)
      : pool(pool), counts(32 * 50) {}
};

TEST(ThreadPool, NestedCallsRunSerially) {
  PoolPtr pool = makePool(4);
  NestedEnv env(pool.get());
  tandem_parallel_for(
      pool.get(), 32, 1,
      [](void *raw, int64_t begin, int64_t end) {
        auto *env = static_cast<NestedEnv *>(raw);
        for (int64_t row = begin; row < end; ++row) {
          struct Inner {
            NestedEnv *env;
            int64_t row;
          } inner{env, row};
          tandem_parallel_for(
              env->pool, 50, 1,
              [](void *raw, int64_t begin, int64_t end) {
                auto *inner = static_cast<Inner *>(raw);
                inner->env->innerChunks.fetch_add(1);
                for (int64_t i = begin; i < end; ++i)
                  inner->env->counts[static_cast<size_t>(inner->row * 50 + i)]
                      .fetch_add(1);
              },
              &inner);
        }
      },
      &env);
  for (auto &count : env.counts)
    ASSERT_EQ(count.load(), 1);
  // Serial nested calls: one inner chunk per row.
  EXPECT_EQ(env.innerChunks.load(), 32);
}

TEST(ThreadPool, ConcurrentCallersOnOnePool) {
  PoolPtr pool = makePool(3);
  constexpr int kCallers = 4;
  constexpr int kRounds = 200;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < kRounds; ++round) {
        int64_t n = 100 + c * 37 + round % 13;
        Visits visits(n);
        tandem_parallel_for(pool.get(), n, 3, Visits::visit, &visits);
        for (auto &count : visits.counts)
          if (count.load() != 1)
            failures.fetch_add(1);
      }
    });
  }
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, CreateDestroyRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    PoolPtr pool = makePool(1 + i % 8);
    Visits visits(10);
    tandem_parallel_for(pool.get(), 10, 1, Visits::visit, &visits);
    visits.expectEachOnce();
  }
}

} // namespace
