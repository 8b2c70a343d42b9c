/* deploy: a minimal C program that links a model compiled by tandemc.
 *
 *   tandemc resnet18.onnx --name model -o model.o     (also writes model.h)
 *   cc main.c model.o -ltandem_runtime -lm -o deploy      (shared runtime)
 *   cc main.c model.o libtandem_runtime.a -lstdc++ -lpthread -lm -o deploy
 *   ./deploy input.bin            (raw little-endian f32, MODEL_INPUT0_BYTES)
 *   ./deploy                      (a deterministic synthetic input)
 *
 * It creates the model, runs it once, and prints the top-5 of output 0. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

/* Prints the status's message and frees it; returns 1 if it was an error. */
static int failed(tandem_status_t status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "deploy: %s: %s\n", what, tandem_status_message(status));
  tandem_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  float *input = malloc(MODEL_INPUT0_BYTES);
  float *output = malloc(MODEL_OUTPUT0_BYTES);
  if (!input || !output)
    return 1;
  size_t n_in = MODEL_INPUT0_BYTES / sizeof(float);
  size_t n_out = MODEL_OUTPUT0_BYTES / sizeof(float);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "rb");
    if (!f || fread(input, 1, MODEL_INPUT0_BYTES, f) != MODEL_INPUT0_BYTES) {
      fprintf(stderr, "deploy: cannot read %llu bytes of f32 input from %s\n",
              (unsigned long long)MODEL_INPUT0_BYTES, argv[1]);
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
  if (failed(model_create(&options, &model), "create"))
    return 1;
  if (failed(model_run(model, input, output), "run"))
    return 1;
  model_destroy(model);

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
