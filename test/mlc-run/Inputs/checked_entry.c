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
  struct {
    const char *name;
    void *arena;
    size_t arenaSize, numInputs;
    const mlc_tensor *inputs, *outputs;
  } calls[] = {
      {"count", arena, MODEL_ARENA_SIZE, 2, &in, &out},
      {"null inputs", arena, MODEL_ARENA_SIZE, 1, NULL, &out},
      {"null data", arena, MODEL_ARENA_SIZE, 1, &nullData, &out},
      {"dtype", arena, MODEL_ARENA_SIZE, 1, &wrongDtype, &out},
      {"rank", arena, MODEL_ARENA_SIZE, 1, &wrongRank, &out},
      {"no shape", arena, MODEL_ARENA_SIZE, 1, &noShape, &out},
      {"shape", arena, MODEL_ARENA_SIZE, 1, &wrongDims, &out},
      {"output shape", arena, MODEL_ARENA_SIZE, 1, &in, &wrongDims},
      {"misaligned data", arena, MODEL_ARENA_SIZE, 1, &misaligned, &out},
      {"small arena", arena, MODEL_ARENA_SIZE - 1, 1, &in, &out},
      {"misaligned arena", arena + 4, MODEL_ARENA_SIZE, 1, &in, &out},
      {"null arena", NULL, MODEL_ARENA_SIZE, 1, &in, &out},
      {"run", arena, MODEL_ARENA_SIZE, 1, &in, &out},
  };
  for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); ++i)
    printf("%s: %d\n", calls[i].name,
           model_run_checked(calls[i].arena, calls[i].arenaSize,
                             calls[i].numInputs, calls[i].inputs, 1,
                             calls[i].outputs));
  free(arena);
  return 0;
}
