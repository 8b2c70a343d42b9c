//===- TestPool.h - A thread pool owned by a test ----------------*- C++
//-*-===//
//
// Kernel tests run their calls with no pool and on pools of two and three
// workers; a TestPool is destroyed with the test, also when an assertion
// ends it early.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_TEST_RUNTIME_TESTPOOL_H
#define TANDEM_TEST_RUNTIME_TESTPOOL_H

#include "tandem/runtime.h"

#include <cstdint>

namespace tandem_test {

/// A pool of `threads` workers, or null (get()) if it could not be made:
/// check with ASSERT_NE(pool.get(), nullptr).
class TestPool {
public:
  explicit TestPool(int32_t threads) {
    if (tandem_status_t status = tandem_thread_pool_create(threads, &pool)) {
      tandem_status_free(status);
      pool = nullptr;
    }
  }
  ~TestPool() { tandem_thread_pool_destroy(pool); }
  TestPool(const TestPool &) = delete;
  TestPool &operator=(const TestPool &) = delete;

  tandem_thread_pool_t *get() const { return pool; }

private:
  tandem_thread_pool_t *pool = nullptr;
};

} // namespace tandem_test

#endif // TANDEM_TEST_RUNTIME_TESTPOOL_H
