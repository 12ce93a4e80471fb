/*===- run_external_weights.c - Load a model's weights file ---------------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * run_external_weights WEIGHTS INPUT OUTPUT: links with the object of
 * digits_mlp.onnx compiled with --weights=external (header model.h), reads
 * the weights file the way an application would, checks it with the
 * header's hash, and runs the model on the raw float32 input, writing the
 * raw float32 output. The checked entry point must refuse weights of the
 * wrong size or alignment.
 *
 *===----------------------------------------------------------------------===*/

#include "model.h"

#include <stdio.h>
#include <stdlib.h>

static int readFile(const char *path, void *data, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  size_t got = fread(data, 1, size, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  return got == size && !extra;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  /* One spare alignment unit to try a misaligned pointer below. */
  char *weights = aligned_alloc(MODEL_WEIGHTS_ALIGNMENT,
                                MODEL_WEIGHTS_SIZE + 2 * MODEL_WEIGHTS_ALIGNMENT);
  void *arena = aligned_alloc(MODEL_ARENA_ALIGNMENT,
                              MODEL_ARENA_SIZE + MODEL_ARENA_ALIGNMENT);
  float input[MODEL_INPUT0_SIZE / 4], output[MODEL_OUTPUT0_SIZE / 4];
  if (!weights || !arena || !readFile(argv[1], weights, MODEL_WEIGHTS_SIZE)) {
    printf("cannot read %s as %d bytes of weights\n", argv[1],
           (int)MODEL_WEIGHTS_SIZE);
    return 1;
  }
  if (mlc_weights_hash(weights, MODEL_WEIGHTS_SIZE) != MODEL_WEIGHTS_HASH) {
    printf("%s does not belong to this object\n", argv[1]);
    return 1;
  }
  if (!readFile(argv[2], input, sizeof(input)))
    return 1;
  mlc_tensor in = {input, MLC_FLOAT32, MODEL_INPUT0_RANK, model_input0_shape};
  mlc_tensor out = {output, MLC_FLOAT32, MODEL_OUTPUT0_RANK,
                    model_output0_shape};
  printf("wrong size: %d\n",
         model_run_checked(weights, MODEL_WEIGHTS_SIZE - 1, arena,
                           MODEL_ARENA_SIZE, 1, &in, 1, &out));
  printf("misaligned: %d\n",
         model_run_checked(weights + 4, MODEL_WEIGHTS_SIZE, arena,
                           MODEL_ARENA_SIZE, 1, &in, 1, &out));
  printf("no weights: %d\n",
         model_run_checked(NULL, MODEL_WEIGHTS_SIZE, arena, MODEL_ARENA_SIZE,
                           1, &in, 1, &out));
  int32_t rc = model_run_checked(weights, MODEL_WEIGHTS_SIZE, arena,
                                 MODEL_ARENA_SIZE, 1, &in, 1, &out);
  printf("run: %d\n", rc);
  FILE *f = fopen(argv[3], "wb");
  if (rc != MLC_OK || !f || fwrite(output, sizeof(output), 1, f) != 1)
    return 1;
  fclose(f);
  free(arena);
  free(weights);
  return 0;
}
