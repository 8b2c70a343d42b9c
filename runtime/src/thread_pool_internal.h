//===- thread_pool_internal.h - the runtime's own parallel loops -*- C++
//-*-===//
//
// tandem_parallel_for hands out about four chunks per thread, which keeps
// the claims of cheap loop bodies (generated elementwise code) few. The
// kernels' tasks are few, large and of equal cost: a GEMM's 28 tasks in
// chunks of 4 are 7 chunks, 4 on one of two threads and 3 on the other
// (1.14x the balanced time). They claim one task at a time instead.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_THREAD_POOL_INTERNAL_H
#define TANDEM_RUNTIME_THREAD_POOL_INTERNAL_H

#include "tandem/runtime.h"

/// tandem_parallel_for over [0, n) in chunks of exactly `chunk` indices
/// (the last may be shorter), claimed dynamically; the same serial and
/// nesting rules.
void tandem_internal_parallel_chunks(tandem_thread_pool_t *pool, int64_t n,
                                     int64_t chunk, tandem_parallel_fn fn,
                                     void *env);

/// How many of `tasks` equal tasks a thread claims at a time: the thread
/// pool's default (about four chunks per thread) where its chunks divide
/// among the threads, else the largest chunk under it, and at least half
/// of it, that makes equal chunks which do (28 tasks on 2 threads: 14
/// chunks of 2, not 7 of 4, which left one thread 4 chunks and the other
/// 3: matmul 1024 11.19 -> 10.36 ms on two threads), else the default;
/// all of them on one thread. Chunks of consecutive tasks keep a GEMM's M
/// block together (its A packed once per thread); single tasks measured
/// 0.4% slower on ResNet-18.
int64_t tandem_internal_balanced_chunk(int64_t tasks, int64_t threads);

/// Moves the calling thread off CPU `cpu` if it runs there and may run
/// elsewhere: its affinity without `cpu` (which migrates it at once), then
/// its affinity as it was. Returns whether it moved. A pool worker woken
/// from its sleep calls it with the CPU of the thread that woke it, which
/// then yields: Linux (seen on 2-vCPU KVM guests) queued the woken worker
/// on the waker's CPU although the other was idle, and as both then
/// compute or spin, the load balancer took milliseconds to part them. A
/// model's first runs after an idle gap ran at one thread's speed: the
/// MLP at 2 threads 0.41 ms a run steadily, 0.79 ms for each of the six
/// runs after a 250 ms pause (0.43 with this).
bool tandem_internal_leave_cpu(int cpu);

#endif // TANDEM_RUNTIME_THREAD_POOL_INTERNAL_H
