/* sgemm_bench: times OpenBLAS cblas_sgemm on square-or-not f32 matrices.
 *
 *   sgemm_bench M N K WARMUP RUNS [A.bin B.bin C.bin]
 *
 * C[M,N] = A[M,K] * B[K,N], row-major, alpha 1, beta 0. Without files the
 * inputs are uniform in [-1, 1) from a fixed seed. With files, A and B are
 * read as raw little-endian f32 and C is written the same way after the
 * timed runs (for the harness's output-agreement check).
 *
 * The thread count is OpenBLAS's own: set OPENBLAS_NUM_THREADS in the
 * environment. Prints the library's configuration, then one line per timed
 * run:
 *   openblas_config <openblas_get_config()>
 *   openblas_corename <openblas_get_corename()>
 *   openblas_threads <openblas_get_num_threads()>
 *   ms <milliseconds>                                  (RUNS lines) */
#define _GNU_SOURCE
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *openblas_get_config(void);
extern char *openblas_get_corename(void);
extern int openblas_get_num_threads(void);

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int read_raw(const char *path, float *dst, size_t count) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "sgemm_bench: error: cannot open %s\n", path);
    return 0;
  }
  size_t got = fread(dst, sizeof(float), count, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != count || extra) {
    fprintf(stderr, "sgemm_bench: error: %s: expected exactly %zu f32 values\n",
            path, count);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 6 && argc != 9) {
    fprintf(stderr,
            "usage: sgemm_bench M N K WARMUP RUNS [A.bin B.bin C.bin]\n");
    return 2;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int warmup = atoi(argv[4]), runs = atoi(argv[5]);
  if (m < 1 || n < 1 || k < 1 || warmup < 0 || runs < 1) {
    fprintf(stderr, "sgemm_bench: error: bad sizes or counts\n");
    return 2;
  }
  float *a = aligned_alloc(64, ((size_t)(m * k) * 4 + 63) / 64 * 64);
  float *b = aligned_alloc(64, ((size_t)(k * n) * 4 + 63) / 64 * 64);
  float *c = aligned_alloc(64, ((size_t)(m * n) * 4 + 63) / 64 * 64);
  if (!a || !b || !c) {
    fprintf(stderr, "sgemm_bench: error: out of memory\n");
    return 1;
  }
  if (argc == 9) {
    if (!read_raw(argv[6], a, (size_t)(m * k)) ||
        !read_raw(argv[7], b, (size_t)(k * n)))
      return 1;
  } else {
    unsigned long long s = 0x9e3779b97f4a7c15ull;
    for (long i = 0; i < m * k; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      a[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
    for (long i = 0; i < k * n; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      b[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
    }
  }
  memset(c, 0, (size_t)(m * n) * 4); /* first touch outside the timing */

  printf("openblas_config %s\n", openblas_get_config());
  printf("openblas_corename %s\n", openblas_get_corename());
  printf("openblas_threads %d\n", openblas_get_num_threads());
  for (int i = 0; i < warmup + runs; ++i) {
    double start = now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0f, a, (int)k, b, (int)n, 0.0f, c, (int)n);
    double end = now_ms();
    if (i >= warmup)
      printf("ms %.6f\n", end - start);
  }
  if (argc == 9) {
    FILE *f = fopen(argv[8], "wb");
    if (!f || fwrite(c, sizeof(float), (size_t)(m * n), f) != (size_t)(m * n) ||
        fclose(f) != 0) {
      fprintf(stderr, "sgemm_bench: error: cannot write %s\n", argv[8]);
      return 1;
    }
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
