/*===- run_model.c - Run any compiled model on raw binary files -----------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 *   cc -include model.h -DMLC_MODEL=model run_model.c model.o -lm
 *   ./a.out in0.bin ... out0.bin ...
 *
 * A target-independent runner for cross-compiled models (for example an
 * AArch64 object run under qemu-user): inputs and outputs are raw
 * little-endian row-major files of exactly the sizes the header declares.
 *
 *===----------------------------------------------------------------------===*/

#include <stdio.h>
#include <stdlib.h>

#define MLC_CAT2(a, b) a##b
#define MLC_CAT(a, b) MLC_CAT2(a, b)
#define MLC_SYM(suffix) MLC_CAT(MLC_MODEL, suffix)

static int readFile(const char *path, void *data, long size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open %s\n", path);
    return 1;
  }
  long got = (long)fread(data, 1, (size_t)size, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != size || extra) {
    fprintf(stderr, "run_model: %s must hold exactly %ld bytes\n", path, size);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  enum { kInputs = sizeof(MLC_SYM(_input_sizes)) / sizeof(int64_t),
         kOutputs = sizeof(MLC_SYM(_output_sizes)) / sizeof(int64_t) };
  int numInputs = MLC_SYM(_num_inputs);
  int numOutputs = MLC_SYM(_num_outputs);
  if (argc != 1 + numInputs + numOutputs) {
    fprintf(stderr, "usage: %s IN0.bin ... OUT0.bin ... (%d inputs, %d outputs)\n",
            argv[0], numInputs, numOutputs);
    return 2;
  }
  const void *inputs[kInputs];
  void *outputs[kOutputs];
  for (int i = 0; i < numInputs; ++i) {
    void *data = malloc((size_t)MLC_SYM(_input_sizes)[i] + 1);
    if (!data || readFile(argv[1 + i], data, (long)MLC_SYM(_input_sizes)[i]))
      return 1;
    inputs[i] = data;
  }
  for (int i = 0; i < numOutputs; ++i)
    outputs[i] = malloc((size_t)MLC_SYM(_output_sizes)[i] + 1);
  void *arena = aligned_alloc(64, (size_t)MLC_SYM(_arena_size) + 64);
  if (!arena)
    return 1;
  int rc = MLC_SYM(_run)(arena, inputs, outputs);
  if (rc != 0) {
    fprintf(stderr, "run_model: the model returned %d\n", rc);
    return 1;
  }
  for (int i = 0; i < numOutputs; ++i) {
    FILE *f = fopen(argv[1 + numInputs + i], "wb");
    if (!f || fwrite(outputs[i], 1, (size_t)MLC_SYM(_output_sizes)[i], f) !=
                  (size_t)MLC_SYM(_output_sizes)[i]) {
      fprintf(stderr, "run_model: cannot write %s\n", argv[1 + numInputs + i]);
      return 1;
    }
    fclose(f);
  }
  return 0;
}
