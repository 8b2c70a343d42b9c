/* deploy: a minimal C program that links a model compiled by tandemc.
 *
 * With CMake and an installed Tandem (see CMakeLists.txt here):
 *   cmake -S . -B build -DCMAKE_PREFIX_PATH=/opt/tandem -DDEPLOY_MODEL=m.onnx
 *   cmake --build build && build/deploy
 * By hand:
 *   tandemc resnet18.onnx --name model -o model.o     (also writes model.h)
 *   cc main.c model.o -ltandem_runtime -lm -o deploy      (shared runtime)
 *   cc main.c model.o libtandem_runtime.a -lstdc++ -lpthread -lm -o deploy
 * Then:
 *   ./deploy input.bin            (raw little-endian f32, MODEL_INPUT0_BYTES)
 *   ./deploy                      (a deterministic synthetic input)
 *
 * It creates the model, runs it once, and prints the top-5 of output 0. */

/* The model's name (tandemc --name) and its header; the CMake project sets
 * them from DEPLOY_MODEL_NAME, the defaults match `--name model`. */
#ifndef MODEL_NAME
#define MODEL_HEADER "model.h"
#define MODEL_NAME model
#define MODEL_NAME_UPPER MODEL
#endif
#include MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
#define DEPLOY_INPUT0_BYTES PASTE(MODEL_NAME_UPPER, _INPUT0_BYTES)
#define DEPLOY_OUTPUT0_BYTES PASTE(MODEL_NAME_UPPER, _OUTPUT0_BYTES)
#define DEPLOY_CREATE PASTE(MODEL_NAME, _create)
#define DEPLOY_RUN PASTE(MODEL_NAME, _run)
#define DEPLOY_DESTROY PASTE(MODEL_NAME, _destroy)

/* Prints the status's message and frees it; returns 1 if it was an error. */
static int failed(tandem_status_t status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "deploy: %s: %s\n", what, tandem_status_message(status));
  tandem_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  float *input = malloc(DEPLOY_INPUT0_BYTES);
  float *output = malloc(DEPLOY_OUTPUT0_BYTES);
  if (!input || !output)
    return 1;
  size_t n_in = DEPLOY_INPUT0_BYTES / sizeof(float);
  size_t n_out = DEPLOY_OUTPUT0_BYTES / sizeof(float);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "rb");
    if (!f || fread(input, 1, DEPLOY_INPUT0_BYTES, f) != DEPLOY_INPUT0_BYTES) {
      fprintf(stderr, "deploy: cannot read %llu bytes of f32 input from %s\n",
              (unsigned long long)DEPLOY_INPUT0_BYTES, argv[1]);
      return 1;
    }
    fclose(f);
  } else {
    for (size_t i = 0; i < n_in; ++i)
      input[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  }

  tandem_model_options_t options;
  tandem_model_options_init(&options);
  options.intra_op_threads = 1;
  tandem_model_t *model = NULL;
  if (failed(DEPLOY_CREATE(&options, &model), "create"))
    return 1;
  if (failed(DEPLOY_RUN(model, input, output), "run"))
    return 1;
  DEPLOY_DESTROY(model);

  /* Top-5 by selection: the output is small. */
  printf("top-5 of %zu:\n", n_out);
  for (int k = 0; k < 5 && (size_t)k < n_out; ++k) {
    size_t best = 0;
    for (size_t i = 1; i < n_out; ++i)
      if (output[i] > output[best])
        best = i;
    printf("  %zu %.6f\n", best, output[best]);
    output[best] = -1e30f;
  }
  free(input);
  free(output);
  return 0;
}
