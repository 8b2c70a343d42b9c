/* fma_peak: measures the FP32 fused-multiply-add peak of this machine.
 *
 *   fma_peak THREADS SECONDS
 *
 * Each of THREADS pthreads runs NCHAINS independent accumulator chains of
 * packed FMAs (acc = acc * a + b) in registers, long enough to hide the FMA
 * latency, for about SECONDS. The widest ISA this CPU and OS support is
 * chosen at run time with cpuid/xgetbv: AVX-512F (16 lanes), else AVX2+FMA
 * (8 lanes). Prints, on one line each:
 *   isa avx512f|avx2
 *   threads T
 *   gflops G        (sum over the threads, 2 FLOPs per lane per FMA)
 * Built without -march so that it runs anywhere; the kernels carry their own
 * target attributes. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NCHAINS 12
#define ITERS 100000L /* FMAs per chain per kernel call */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile float g_seed = 1.0f; /* keeps the operands opaque */
static volatile float g_sink;

/* The chains are named variables, fully unrolled, so that they live in
 * registers: 12 chains cover an FMA latency of 4-5 cycles on 2-3 pipes. */
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f"))) static void kernel_avx512(long iters) {
  __m512 a = _mm512_set1_ps(g_seed * 0.999999f);
  __m512 b = _mm512_set1_ps(g_seed * 1e-7f);
#define INIT(i) __m512 acc##i = _mm512_set1_ps(g_seed + (float)(i));
#define STEP(i) acc##i = _mm512_fmadd_ps(acc##i, a, b);
#define SUM(i) sum = _mm512_add_ps(sum, acc##i);
  CHAINS(INIT)
  for (long it = 0; it < iters; ++it) {
    CHAINS(STEP)
  }
  __m512 sum = _mm512_setzero_ps();
  CHAINS(SUM)
  g_sink = _mm512_reduce_add_ps(sum);
#undef INIT
#undef STEP
#undef SUM
}

__attribute__((target("avx2,fma"))) static void kernel_avx2(long iters) {
  __m256 a = _mm256_set1_ps(g_seed * 0.999999f);
  __m256 b = _mm256_set1_ps(g_seed * 1e-7f);
#define INIT(i) __m256 acc##i = _mm256_set1_ps(g_seed + (float)(i));
#define STEP(i) acc##i = _mm256_fmadd_ps(acc##i, a, b);
#define SUM(i) sum = _mm256_add_ps(sum, acc##i);
  CHAINS(INIT)
  for (long it = 0; it < iters; ++it) {
    CHAINS(STEP)
  }
  __m256 sum = _mm256_setzero_ps();
  CHAINS(SUM)
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  g_sink = lanes[0] + lanes[7];
#undef INIT
#undef STEP
#undef SUM
}

/* AVX-512F usable: cpuid says so and the OS saves the zmm state. */
static int have_avx512f(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
    return 0;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0xe6) != 0xe6) /* XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM */
    return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return 0;
  return (b & bit_AVX512F) != 0;
}

static int have_avx2_fma(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_FMA))
    return 0;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0x6) != 0x6)
    return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return 0;
  return (b & bit_AVX2) != 0;
}

static int g_avx512;
static double g_seconds;
static pthread_barrier_t g_barrier;

typedef struct {
  long calls;
  double elapsed;
} result_t;

static void *worker(void *arg) {
  result_t *r = arg;
  void (*kernel)(long) = g_avx512 ? kernel_avx512 : kernel_avx2;
  kernel(ITERS / 10); /* warm up: clocks, page-in */
  pthread_barrier_wait(&g_barrier);
  double start = now(), t;
  long calls = 0;
  do {
    kernel(ITERS);
    ++calls;
    t = now();
  } while (t - start < g_seconds);
  r->calls = calls;
  r->elapsed = t - start;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fma_peak THREADS SECONDS\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  g_seconds = atof(argv[2]);
  if (threads < 1 || threads > 1024 || !(g_seconds > 0)) {
    fprintf(stderr, "fma_peak: error: bad THREADS or SECONDS\n");
    return 2;
  }
  g_avx512 = have_avx512f();
  if (!g_avx512 && !have_avx2_fma()) {
    fprintf(stderr, "fma_peak: error: this CPU has neither AVX-512F nor "
                    "AVX2+FMA\n");
    return 1;
  }
  int lanes = g_avx512 ? 16 : 8;
  pthread_t tid[1024];
  result_t res[1024];
  pthread_barrier_init(&g_barrier, NULL, (unsigned)threads);
  for (int i = 1; i < threads; ++i)
    if (pthread_create(&tid[i], NULL, worker, &res[i]) != 0) {
      fprintf(stderr, "fma_peak: error: pthread_create failed\n");
      return 1;
    }
  worker(&res[0]);
  for (int i = 1; i < threads; ++i)
    pthread_join(tid[i], NULL);
  double gflops = 0;
  for (int i = 0; i < threads; ++i)
    gflops += (double)res[i].calls * ITERS * NCHAINS * lanes * 2.0 /
              res[i].elapsed * 1e-9;
  printf("isa %s\nthreads %d\ngflops %.2f\n", g_avx512 ? "avx512f" : "avx2",
         threads, gflops);
  return 0;
}
