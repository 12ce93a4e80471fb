/*===- run_mallocs.c - Heap allocations of a model's runs -----------------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 *   run_mallocs MODEL.so RUNS DIM...
 *
 * Loads a model whose inputs and outputs have symbolic dims, gives the
 * symbols the values DIM..., runs it once, then RUNS times more, counting the
 * calls to the C library's allocation functions (this program's own
 * definitions, which the model's code binds to) made during the runs.
 * Prints "heap allocations in the first run: F" and "heap allocations per
 * run: K" (K the count over the RUNS runs after the first, divided by RUNS,
 * rounded up), or an error. Calls made by the OpenMP runtime itself
 * are counted apart ("OpenMP runtime allocations per run: K"): Debian's
 * libomp is built with its debug traces, whose every worksharing loop
 * formats a trace string on the heap, whoever compiled the loop.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "mlc-runtime/mlc_runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static int counting;
static long allocations, runtimeAllocations;

/* Counts one allocation made from `caller`. */
static void countCall(void *caller) {
  if (!counting)
    return;
  Dl_info info;
  if (dladdr(caller, &info) && info.dli_fname &&
      strstr(info.dli_fname, "libomp"))
    ++runtimeAllocations;
  else
    ++allocations;
}

void *malloc(size_t size) {
  countCall(__builtin_return_address(0));
  return __libc_malloc(size);
}
void *calloc(size_t count, size_t size) {
  countCall(__builtin_return_address(0));
  return __libc_calloc(count, size);
}
void *realloc(void *ptr, size_t size) {
  countCall(__builtin_return_address(0));
  return __libc_realloc(ptr, size);
}
void *aligned_alloc(size_t alignment, size_t size) {
  countCall(__builtin_return_address(0));
  return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
  countCall(__builtin_return_address(0));
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: run_mallocs MODEL.so RUNS DIM...\n");
    return 2;
  }
  char error[512];
  mlc_model *model = mlc_model_load(argv[1], NULL, error, sizeof error);
  if (!model) {
    fprintf(stderr, "error: %s\n", error);
    return 1;
  }
  int runs = atoi(argv[2]);
  size_t symbols = mlc_model_num_symbols(model);
  if ((size_t)(argc - 3) != symbols) {
    fprintf(stderr, "error: the model has %zu symbols\n", symbols);
    return 1;
  }
  int64_t dims[16];
  for (size_t s = 0; s < symbols && s < 16; ++s)
    dims[s] = atoll(argv[3 + s]);
  size_t numInputs = mlc_model_num_tensors(model, 0);
  size_t numOutputs = mlc_model_num_tensors(model, 1);
  const void *inputs[16];
  void *outputs[16];
  for (size_t i = 0; i < numInputs && i < 16; ++i)
    inputs[i] = calloc(1, (size_t)mlc_model_tensor_bytes_at(model, 0, i, dims) + 1);
  for (size_t i = 0; i < numOutputs && i < 16; ++i)
    outputs[i] = calloc(1, (size_t)mlc_model_tensor_bytes_at(model, 1, i, dims) + 1);
  mlc_arena *arena = mlc_arena_new(model);
  counting = 1;
  int32_t status = mlc_model_run_dims(model, arena, dims, inputs, outputs);
  long first = allocations;
  allocations = runtimeAllocations = 0;
  for (int r = 0; r < runs && status == 0; ++r)
    status = mlc_model_run_dims(model, arena, dims, inputs, outputs);
  counting = 0;
  if (status != 0) {
    fprintf(stderr, "error: run failed: %s\n", mlc_status_message(status));
    return 1;
  }
  printf("heap allocations in the first run: %ld\n", first);
  printf("heap allocations per run: %ld\n", (allocations + runs - 1) / runs);
  printf("OpenMP runtime allocations per run: %ld\n",
         (runtimeAllocations + runs - 1) / runs);
  mlc_arena_free(arena);
  mlc_model_free(model);
  return 0;
}
