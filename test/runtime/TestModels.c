/*===- TestModels.c - Hand-written model fixtures for runtime tests ------===*
 *
 * TEST FIXTURE, not compiler output: small models written by hand in
 * the shape the code generator will emit (a constant descriptor named
 * <name>_descriptor plus an entry function), so the runtime and tandem-run
 * can be tested without the compiler.
 *
 *   test_add   sum = a + b on f32[2,3], through an arena scratch buffer
 *   test_scale y = 2 * x + 1 on f32[4096], parallel_for with grain 64, arena
 *   test_cast  (i32[4] n, f16[4] h) -> (i64[4] twice, bool[4] positive,
 *              f32[4] widened)
 *   test_bool  bool[4] flags -> i32[] count (of true flags)
 *   test_names f32[1] x -> outputs 'a b', 'a_b', 'a/b' (x, x+1, x+2)
 *
 * Built into the runtime unit tests, and as test_models.so exporting
 * tandem_default_model (= test_add) for tandem-run's lit tests. Defining
 * TANDEM_TEST_ABI_VERSION builds a copy with another ABI version.
 *===----------------------------------------------------------------------===*/

#include "tandem/runtime.h"

#include <string.h>

#ifndef TANDEM_TEST_ABI_VERSION
#define TANDEM_TEST_ABI_VERSION TANDEM_ABI_VERSION
#endif

#if defined(__GNUC__)
#define EXPORT __attribute__((visibility("default")))
#else
#define EXPORT
#endif

/*--- test_add ----------------------------------------------------------*/

static const int64_t kShape2x3[] = {2, 3};

typedef struct {
  const float *a, *b;
  float *scratch;
} AddEnv;

static void addChunk(void *env, int64_t begin, int64_t end) {
  AddEnv *e = (AddEnv *)env;
  for (int64_t i = begin; i < end; ++i)
    e->scratch[i] = e->a[i] + e->b[i];
}

static int32_t testAddEntry(const tandem_exec_ctx_t *ctx,
                            const void *const *inputs, void *const *outputs) {
  if (!ctx->arena || ctx->arena_bytes < 6 * sizeof(float) ||
      (uintptr_t)ctx->arena % TANDEM_ARENA_ALIGNMENT)
    return 7;
  AddEnv env = {(const float *)inputs[0], (const float *)inputs[1],
                (float *)ctx->arena};
  tandem_parallel_for(ctx->pool, 6, 1, addChunk, &env);
  memcpy(outputs[0], env.scratch, 6 * sizeof(float));
  return 0;
}

static const tandem_tensor_desc_t kAddInputs[] = {
    {"a", TANDEM_F32, 2, kShape2x3}, {"b", TANDEM_F32, 2, kShape2x3}};
static const tandem_tensor_desc_t kAddOutputs[] = {
    {"sum", TANDEM_F32, 2, kShape2x3}};

EXPORT const tandem_model_desc_t test_add_descriptor = {TANDEM_TEST_ABI_VERSION,
                                                        "test_add",
                                                        2,
                                                        1,
                                                        kAddInputs,
                                                        kAddOutputs,
                                                        64,
                                                        0,
                                                        testAddEntry};

/*--- test_scale --------------------------------------------------------*/

#define SCALE_N 4096
static const int64_t kShapeScale[] = {SCALE_N};

typedef struct {
  const float *x;
  float *scratch;
  float *y;
} ScaleEnv;

static void scaleChunk(void *env, int64_t begin, int64_t end) {
  ScaleEnv *e = (ScaleEnv *)env;
  for (int64_t i = begin; i < end; ++i)
    e->scratch[i] = 2.0f * e->x[i];
}

static void biasChunk(void *env, int64_t begin, int64_t end) {
  ScaleEnv *e = (ScaleEnv *)env;
  for (int64_t i = begin; i < end; ++i)
    e->y[i] = e->scratch[i] + 1.0f;
}

static int32_t testScaleEntry(const tandem_exec_ctx_t *ctx,
                              const void *const *inputs, void *const *outputs) {
  if (!ctx->arena || ctx->arena_bytes < SCALE_N * sizeof(float))
    return 7;
  ScaleEnv env = {(const float *)inputs[0], (float *)ctx->arena,
                  (float *)outputs[0]};
  tandem_parallel_for(ctx->pool, SCALE_N, 64, scaleChunk, &env);
  tandem_parallel_for(ctx->pool, SCALE_N, 64, biasChunk, &env);
  return 0;
}

static const tandem_tensor_desc_t kScaleInputs[] = {
    {"x", TANDEM_F32, 1, kShapeScale}};
static const tandem_tensor_desc_t kScaleOutputs[] = {
    {"y", TANDEM_F32, 1, kShapeScale}};

EXPORT const tandem_model_desc_t test_scale_descriptor = {
    TANDEM_TEST_ABI_VERSION,
    "test_scale",
    1,
    1,
    kScaleInputs,
    kScaleOutputs,
    SCALE_N * sizeof(float),
    0,
    testScaleEntry};

/*--- test_cast ---------------------------------------------------------*/

static const int64_t kShape4[] = {4};

static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    float value = (float)mantissa / 16777216.0f; /* 2^-24 per unit */
    return sign ? -value : value;
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float result;
  memcpy(&result, &bits, sizeof(result));
  return result;
}

static int32_t testCastEntry(const tandem_exec_ctx_t *ctx,
                             const void *const *inputs, void *const *outputs) {
  (void)ctx;
  const int32_t *n = (const int32_t *)inputs[0];
  const uint16_t *h = (const uint16_t *)inputs[1];
  int64_t *twice = (int64_t *)outputs[0];
  uint8_t *positive = (uint8_t *)outputs[1];
  float *widened = (float *)outputs[2];
  for (int i = 0; i < 4; ++i) {
    twice[i] = 2 * (int64_t)n[i];
    positive[i] = n[i] > 0;
    widened[i] = halfToFloat(h[i]);
  }
  return 0;
}

static const tandem_tensor_desc_t kCastInputs[] = {
    {"n", TANDEM_I32, 1, kShape4}, {"h", TANDEM_F16, 1, kShape4}};
static const tandem_tensor_desc_t kCastOutputs[] = {
    {"twice", TANDEM_I64, 1, kShape4},
    {"positive", TANDEM_BOOL, 1, kShape4},
    {"widened", TANDEM_F32, 1, kShape4}};

EXPORT const tandem_model_desc_t test_cast_descriptor = {
    TANDEM_TEST_ABI_VERSION,
    "test_cast",
    2,
    3,
    kCastInputs,
    kCastOutputs,
    0,
    0,
    testCastEntry};

/*--- test_bool: a bool input --------------------------------------------*/

/* count = the number of true flags, read as the low bit (as generated code
 * may read an i1), so a byte other than 0 or 1 would be read
 * inconsistently; the checked run path rejects such bytes. */
static int32_t testBoolEntry(const tandem_exec_ctx_t *ctx,
                             const void *const *inputs, void *const *outputs) {
  (void)ctx;
  const uint8_t *flags = (const uint8_t *)inputs[0];
  int32_t *count = (int32_t *)outputs[0];
  *count = 0;
  for (int i = 0; i < 4; ++i)
    *count += flags[i] & 1;
  return 0;
}

static const tandem_tensor_desc_t kBoolInputs[] = {
    {"flags", TANDEM_BOOL, 1, kShape4}};
static const tandem_tensor_desc_t kBoolOutputs[] = {
    {"count", TANDEM_I32, 0, NULL}};

EXPORT const tandem_model_desc_t test_bool_descriptor = {
    TANDEM_TEST_ABI_VERSION,
    "test_bool",
    1,
    1,
    kBoolInputs,
    kBoolOutputs,
    0,
    0,
    testBoolEntry};

/*--- test_names: outputs whose names clean up to one file name ----------*/

static int32_t testNamesEntry(const tandem_exec_ctx_t *ctx,
                              const void *const *inputs, void *const *outputs) {
  (void)ctx;
  const float *x = (const float *)inputs[0];
  for (int i = 0; i < 3; ++i)
    ((float *)outputs[i])[0] = x[0] + (float)i;
  return 0;
}

static const int64_t kShape1[] = {1};
static const tandem_tensor_desc_t kNamesInputs[] = {
    {"x", TANDEM_F32, 1, kShape1}};
static const tandem_tensor_desc_t kNamesOutputs[] = {
    {"a b", TANDEM_F32, 1, kShape1},
    {"a_b", TANDEM_F32, 1, kShape1},
    {"a/b", TANDEM_F32, 1, kShape1}};

EXPORT const tandem_model_desc_t test_names_descriptor = {
    TANDEM_TEST_ABI_VERSION,
    "test_names",
    1,
    3,
    kNamesInputs,
    kNamesOutputs,
    0,
    0,
    testNamesEntry};

/* What the compiler exports from a shared library. */
EXPORT const tandem_model_desc_t *const tandem_default_model =
    &test_add_descriptor;
