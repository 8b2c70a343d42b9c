/*===- winograd.h - the Winograd filter transform -----------------*- C -*-===*
 *
 * The layout tandem_conv2d_f32 reads a pre-transformed Winograd filter in
 * (TANDEM_CONV2D_WINOGRAD_F2 / _F4), and the transform that makes it: the
 * compiler applies it to constant weights at compile time, and the kernel to
 * other filters at run time, so both share this definition.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TANDEM_WINOGRAD_H
#define TANDEM_WINOGRAD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Whether a dense (one group) convolution with `c` input and `f` output
 *  channels may run as Winograd: a 3x3 window, stride 1, no dilation, and
 *  at least 16 channels in and out (below that the transforms cost more
 *  than the multiplies they save). The compiler and the runtime's host
 *  path for library convolutions choose by this one rule. */
static inline int tandem_winograd_applies(int64_t kh, int64_t kw,
                                          int64_t strideH, int64_t strideW,
                                          int64_t dilationH, int64_t dilationW,
                                          int64_t c, int64_t f) {
  return kh == 3 && kw == 3 && strideH == 1 && strideW == 1 && dilationH == 1 &&
         dilationW == 1 && c >= 16 && f >= 16;
}

/** The number of floats of the transformed filter of F(m x m, 3 x 3) for
 *  `f` output and `c` input channels: (m + 2)^2 * c * f. */
static inline int64_t tandem_winograd_filter_floats(int m, int64_t f,
                                                    int64_t c) {
  return (int64_t)(m + 2) * (m + 2) * c * f;
}

/** U = G g G^T of the dense [f][c][3][3] filter `g` for F(m x m, 3 x 3),
 *  m = 2 or 4, into `u`, laid out [(m + 2)^2][c][f]: element (xi, ci, fo)
 *  at (xi * c + ci) * f + fo, xi = i * (m + 2) + j. Computed in double and
 *  rounded once. G is Lavin's: for m = 4 the points 0, 1, -1, 2, -2 and
 *  infinity; for m = 2 the points 0, 1, -1 and infinity. */
static inline void tandem_winograd_transform_filter(int m, int64_t f, int64_t c,
                                                    const float *g, float *u) {
  static const double g4[6][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};
  static const double g2[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const int a = m + 2;
  const double(*G)[3] = m == 4 ? g4 : g2;
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t fo = 0; fo < f; ++fo) {
      const float *k = g + (fo * c + ci) * 9;
      double t[6][3];
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < 3; ++j)
          t[i][j] = G[i][0] * k[j] + G[i][1] * k[3 + j] + G[i][2] * k[6 + j];
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < a; ++j)
          u[((int64_t)(i * a + j) * c + ci) * f + fo] =
              (float)(t[i][0] * G[j][0] + t[i][1] * G[j][1] +
                      t[i][2] * G[j][2]);
    }
}

#ifdef __cplusplus
}
#endif

#endif /* TANDEM_WINOGRAD_H */
