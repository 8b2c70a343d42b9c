/* A host for StreamedWeightsTest's model object: runs the model on fixed
 * inputs and checks y = x + wa[0:4] + wb[100:104] + wc, whose weights wa and
 * wb were written into the object around LLVM. Exit status 0 means the
 * outputs are exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  uint32_t abi_version;
  const char *name;
  int32_t num_inputs, num_outputs;
  const void *inputs, *outputs;
  uint64_t arena_bytes, weight_bytes;
  int32_t (*entry)(const void *ctx, const void *const *inputs,
                   void *const *outputs);
} desc_t;
typedef struct {
  void *pool;
  void *arena;
  uint64_t arena_bytes;
  void *reserved[4];
} ctx_t;

extern const desc_t m_descriptor;

int main(void) {
  ctx_t ctx = {0};
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
