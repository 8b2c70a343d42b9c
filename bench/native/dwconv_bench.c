/* dwconv_bench: times tandem_dwconv2d_pad_f32 on the depthwise layers of
 * MobileNetV2 (3x3) and of MNasNet / MobileNetV3 (5x5): batch 1, "same"
 * padding, a bias and ReLU6, one thread.
 *
 *   cc -O2 -Iruntime/include bench/native/dwconv_bench.c -Lbuild/lib \
 *      -ltandem_runtime -Wl,-rpath,$PWD/build/lib -o dwconv_bench
 *   TANDEM_CPU_KERNELS=avx2 ./dwconv_bench [RUNS]
 *
 * Prints one line per layer (channels, input size, window, stride, the best
 * of RUNS calls in ms and its GFLOP/s) and the sum of the best times. The
 * kernel family is the runtime's choice, or TANDEM_CPU_KERNELS's. */
#define _GNU_SOURCE
#include "tandem/runtime.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}
typedef struct { int c, h, k, s; } L;
int main(int argc, char **argv) {
  L layers[] = {{32,112,3,1},{96,112,3,2},{144,56,3,1},{144,56,3,2},{192,28,3,1},{192,28,3,2},
                {384,14,3,1},{576,14,3,1},{576,14,3,2},{960,7,3,1},
                {72,56,5,2},{120,28,5,1},{240,28,5,2},{480,14,5,1},{672,14,5,2},{960,7,5,1}};
  int runs = argc > 1 ? atoi(argv[1]) : 200;
  double total = 0;
  for (unsigned i = 0; i < sizeof layers / sizeof *layers; ++i) {
    L l = layers[i];
    int pad = l.k / 2, oh = (l.h + 2 * pad - l.k) / l.s + 1;
    float *in = malloc(sizeof(float) * l.c * l.h * l.h), *out = malloc(sizeof(float) * l.c * oh * oh);
    float *f = malloc(sizeof(float) * l.c * l.k * l.k), *b = malloc(sizeof(float) * l.c);
    for (long j = 0; j < (long)l.c * l.h * l.h; ++j) in[j] = (float)(j % 7) * 0.1f;
    for (long j = 0; j < (long)l.c * l.k * l.k; ++j) f[j] = 0.01f * (float)(j % 5);
    for (int j = 0; j < l.c; ++j) b[j] = 0.5f;
    double best = 1e30;
    for (int r = 0; r < runs; ++r) {
      double t0 = now_ms();
      tandem_dwconv2d_pad_f32(NULL, 1, l.c, l.h, l.h, in, (long)l.c * l.h * l.h, l.h * l.h, l.h, 1, l.k, l.k, f, b, out,
                              (long)l.c * oh * oh, oh * oh, oh, oh, oh, l.s, l.s, 1, 1, pad, pad, TANDEM_DWCONV2D_RELU6);
      double t = now_ms() - t0;
      if (t < best) best = t;
    }
    total += best;
    printf("c%4d %3dx%-3d k%d s%d  %8.4f ms  %6.2f GFLOP/s\n", l.c, l.h, l.h, l.k, l.s, best,
           2.0 * l.c * oh * oh * l.k * l.k / best * 1e-6);
    free(in); free(out); free(f); free(b);
  }
  printf("total %.4f ms\n", total);
  return 0;
}
