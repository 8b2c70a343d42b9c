/* A host for StreamedWeightsTest's model object: runs the model on fixed
 * inputs and checks y = x + wa[0:4] + wb[100:104] + wc, whose weights wa and
 * wb were written into the object around LLVM. Exit status 0 means the
 * outputs are exact. */
#include "tandem/abi.h"

#include <stdio.h>
#include <stdlib.h>

extern const tandem_model_desc_t m_descriptor;

int main(void) {
  tandem_exec_ctx_t ctx = {0};
  ctx.arena_bytes = m_descriptor.arena_bytes;
  ctx.arena = aligned_alloc(64, ctx.arena_bytes ? ctx.arena_bytes : 64);
  float x[4] = {10, 20, 30, 40}, y[4] = {0, 0, 0, 0};
  const void *inputs[] = {x};
  void *outputs[] = {y};
  if (m_descriptor.entry(&ctx, inputs, outputs) != 0) {
    fprintf(stderr, "the model failed\n");
    return 1;
  }
  /* wa[i] = 0.5 i, wb[i] = -0.25 i, wc = [1, 2, 3, 4]: every sum exact. */
  const float expected[4] = {-14.0f, -2.75f, 8.5f, 19.75f};
  for (int i = 0; i < 4; ++i)
    if (y[i] != expected[i]) {
      fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], expected[i]);
      return 1;
    }
  free(ctx.arena);
  return 0;
}
