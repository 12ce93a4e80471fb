/*===- compile_and_run.c - The C interfaces end to end ---------------------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * compile_and_run MODEL.onnx DIR INPUT.raw
 *
 * Compiles MODEL with libmlc_compiler (from its file to DIR/file.so, from
 * its bytes to DIR/buffer.so), loads both with libmlc_runtime, runs them on
 * INPUT.raw and writes DIR/file.raw and DIR/buffer.raw; along the way it
 * prints what bad options and a bad model give.
 *
 *===----------------------------------------------------------------------===*/

#include "mlc-c/Compiler.h"
#include "mlc-runtime/mlc_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

/* Loads DIR/NAME.so, runs it on `input`, writes DIR/NAME.raw. */
static int runModel(const char *dir, const char *name, const void *input,
                    size_t inputSize) {
  char path[4096], error[512];
  snprintf(path, sizeof path, "%s/%s.so", dir, name);
  mlc_model *model = mlc_model_load(path, NULL, error, sizeof error);
  if (!model) {
    printf("load: %s\n", error);
    return 1;
  }
  if (mlc_model_num_tensors(model, 0) != 1 ||
      (size_t)mlc_model_tensor_bytes(model, 0, 0) != inputSize) {
    printf("%s: unexpected inputs\n", name);
    return 1;
  }
  size_t outputSize = (size_t)mlc_model_tensor_bytes(model, 1, 0);
  void *output = malloc(outputSize);
  mlc_arena *arena = mlc_arena_new(model);
  const void *inputs[1] = {input};
  void *outputs[1] = {output};
  int32_t status = mlc_model_run(model, arena, inputs, outputs);
  printf("%s: run %d, model %s\n", name, status, mlc_model_name(model));
  snprintf(path, sizeof path, "%s/%s.raw", dir, name);
  FILE *f = fopen(path, "wb");
  fwrite(output, 1, outputSize, f);
  fclose(f);
  free(output);
  mlc_arena_free(arena);
  mlc_model_free(model);
  return status != 0;
}

static void countPasses(const char *phase, unsigned pass, unsigned passes,
                        const char *name, unsigned function,
                        unsigned functions, void *user) {
  (void)phase, (void)pass, (void)passes, (void)name, (void)function,
      (void)functions;
  ++*(unsigned *)user;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  const char *modelPath = argv[1], *dir = argv[2];
  char error[512], path[4096];
  char *diagnostics = NULL;
  printf("version: %s\n", mlc_compiler_version());

  mlc_compile_options *options = mlc_compile_options_new();
  if (mlc_compile_options_set(options, "no-such-option", "1", error,
                              sizeof error) != 0)
    printf("unknown option: %s\n", error);
  if (mlc_compile_options_set(options, "max-nodes", "many", error,
                              sizeof error) != 0)
    printf("bad value: %s\n", error);
  if (mlc_compile_options_set(options, "dim", "batch=8", error,
                              sizeof error) != 0 ||
      mlc_compile_options_set(options, "parallel", "false", error,
                              sizeof error) != 0) {
    printf("set: %s\n", error);
    return 1;
  }

  /* From the file. */
  snprintf(path, sizeof path, "%s/file.so", dir);
  int status = mlc_compile_file(modelPath, path, options, &diagnostics);
  printf("compile file: %d%s%s", status, diagnostics ? "\n" : "",
         diagnostics ? diagnostics : "\n");
  mlc_string_free(diagnostics);

  /* From its bytes. */
  size_t size = 0;
  char *bytes = readFile(modelPath, &size);
  snprintf(path, sizeof path, "%s/buffer.so", dir);
  status = mlc_compile_buffer(bytes, size, "in-memory.onnx", NULL, path,
                              options, &diagnostics);
  printf("compile buffer: %d%s%s", status, diagnostics ? "\n" : "",
         diagnostics ? diagnostics : "\n");
  mlc_string_free(diagnostics);

  /* Cut short: refused, with the diagnostics naming the model. */
  snprintf(path, sizeof path, "%s/truncated.so", dir);
  status = mlc_compile_buffer(bytes, size / 2, "truncated.onnx", NULL, path,
                              options, &diagnostics);
  printf("compile truncated: %d\n%s", status,
         diagnostics ? diagnostics : "(no diagnostics)\n");
  mlc_string_free(diagnostics);
  free(bytes);

  /* In memory: nothing written, the object and each phase's time kept. */
  mlc_artifacts *artifacts = NULL;
  unsigned passes = 0;
  mlc_compile_options_set_progress(options, countPasses, &passes);
  status = mlc_compile_file_ex(modelPath, NULL, options, &artifacts,
                               &diagnostics);
  size_t objectSize = 0;
  const unsigned char *object =
      mlc_artifacts_get(artifacts, "object", &objectSize);
  printf("in memory: %d, %s object, %zu phases, first %s, progress %s\n",
         status, object && objectSize > 4 && object[0] == 0x7f ? "ELF" : "no",
         mlc_artifacts_num_phases(artifacts),
         mlc_artifacts_phase(artifacts, 0, NULL, NULL),
         passes > 10 ? "reported" : "missing");
  mlc_artifacts_free(artifacts);
  mlc_compile_options_set_progress(options, NULL, NULL);

  /* A missing file. */
  status = mlc_compile_file("/nonexistent/model.onnx", path, NULL,
                            &diagnostics);
  printf("compile missing: %d\n%s", status,
         diagnostics ? diagnostics : "(no diagnostics)\n");
  mlc_string_free(diagnostics);
  mlc_compile_options_free(options);

  size_t inputSize = 0;
  char *input = readFile(argv[3], &inputSize);
  if (!input)
    return 1;
  int failed = runModel(dir, "file", input, inputSize) |
               runModel(dir, "buffer", input, inputSize);
  free(input);
  return failed;
}
