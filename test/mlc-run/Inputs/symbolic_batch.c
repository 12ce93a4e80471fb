/*===- symbolic_batch.c - A model compiled once for any batch, from C -----===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * Links with digits_mlp.onnx compiled with --name=model and its batch left
 * symbolic (the header model.h). Runs it at batch 3 and at batch 1 on the
 * first sample, which must give the same row; then calls the entry point
 * with batches out of range and the checked entry point with shapes that
 * disagree, printing the codes.
 *
 *===----------------------------------------------------------------------===*/

#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char *arena = aligned_alloc(MODEL_ARENA_ALIGNMENT,
                              MODEL_ARENA_SIZE + MODEL_ARENA_ALIGNMENT);
  float input[3 * 64], output[3 * 10], single[10];
  for (int i = 0; i < 3 * 64; ++i)
    input[i] = (float)((i * 7) % 17);
  int64_t dims[MODEL_NUM_SYMBOLS];
  const void *inputs[] = {input};
  void *outputs[] = {output};

  dims[MODEL_DIM_batch] = 3;
  printf("batch 3: %d\n", model_run(dims, arena, inputs, outputs));
  int64_t shape[2];
  model_output_shape(0, dims, shape);
  printf("output shape: %lld x %lld\n", (long long)shape[0],
         (long long)shape[1]);
  dims[MODEL_DIM_batch] = 1;
  void *singleOutputs[] = {single};
  printf("batch 1: %d\n", model_run(dims, arena, inputs, singleOutputs));
  double diff = 0;
  for (int i = 0; i < 10; ++i)
    diff = fmax(diff, fabs(single[i] - output[i]));
  printf("first sample equal: %d\n", diff == 0);

  dims[MODEL_DIM_batch] = -1;
  printf("batch -1: %d\n", model_run(dims, arena, inputs, outputs));
  dims[MODEL_DIM_batch] = (int64_t)1 << 61;
  printf("batch 2^61: %d\n", model_run(dims, arena, inputs, outputs));
  dims[MODEL_DIM_batch] = 0;
  printf("batch 0: %d\n", model_run(dims, arena, inputs, outputs));

  int64_t inShape[] = {3, 64}, outShape[] = {3, 10}, badOut[] = {2, 10};
  mlc_tensor in = {input, MLC_FLOAT32, 2, inShape};
  mlc_tensor out = {output, MLC_FLOAT32, 2, outShape};
  mlc_tensor wrongOut = {output, MLC_FLOAT32, 2, badOut};
  printf("checked: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &in, 1, &out));
  printf("checked, output of another batch: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &in, 1, &wrongOut));
  free(arena);
  return 0;
}
