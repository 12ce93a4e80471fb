/*===- checked_entry.c - Bad calls of a model's checked entry point -------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * Links with digits_mlp.onnx compiled with --name=model --dim batch=2 (the
 * header model.h) and calls model_run_checked with each kind of bad
 * argument, printing the code each returns, then once correctly.
 *
 *===----------------------------------------------------------------------===*/

#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char *arena = aligned_alloc(MODEL_ARENA_ALIGNMENT,
                              MODEL_ARENA_SIZE + MODEL_ARENA_ALIGNMENT);
  float input[2 * 64] = {0}, output[2 * 10];
  int64_t shape[] = {2, 64}, outShape[] = {2, 10}, wrongShape[] = {3, 64};
  mlc_tensor in = {input, MLC_FLOAT32, 2, shape};
  mlc_tensor out = {output, MLC_FLOAT32, 2, outShape};
  mlc_tensor nullData = {NULL, MLC_FLOAT32, 2, shape};
  mlc_tensor wrongDtype = {input, MLC_INT64, 2, shape};
  mlc_tensor wrongRank = {input, MLC_FLOAT32, 1, shape};
  mlc_tensor noShape = {input, MLC_FLOAT32, 2, NULL};
  mlc_tensor wrongDims = {input, MLC_FLOAT32, 2, wrongShape};
  mlc_tensor misaligned = {(char *)input + 2, MLC_FLOAT32, 2, shape};
  printf("count: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 2, &in, 1, &out));
  printf("null inputs: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, NULL, 1, &out));
  printf("null data: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &nullData, 1, &out));
  printf("dtype: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &wrongDtype, 1, &out));
  printf("rank: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &wrongRank, 1, &out));
  printf("no shape: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &noShape, 1, &out));
  printf("shape: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &wrongDims, 1, &out));
  printf("output shape: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &in, 1, &wrongDims));
  printf("misaligned data: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &misaligned, 1, &out));
  printf("small arena: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE - 1, 1, &in, 1, &out));
  printf("misaligned arena: %d\n",
         model_run_checked(arena + 4, MODEL_ARENA_SIZE, 1, &in, 1, &out));
  printf("null arena: %d\n",
         model_run_checked(NULL, MODEL_ARENA_SIZE, 1, &in, 1, &out));
  printf("run: %d\n",
         model_run_checked(arena, MODEL_ARENA_SIZE, 1, &in, 1, &out));
  free(arena);
  return 0;
}
