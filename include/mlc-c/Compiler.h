/*===- Compiler.h - C interface of the mlc compiler ---------------*- C -*-===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * Compiles an ONNX model, from a file or from bytes in memory, in one call,
 * from C or any language with a C foreign-function interface (the Python
 * package uses it through ctypes): libmlc_compiler.so. It is the C face of
 * mlc::compile() (mlc/Compiler/Compile.h); options are set by the names
 * mlc-compile gives its flags, so a command line carries over unchanged.
 *
 *   mlc_compile_options *o = mlc_compile_options_new();
 *   mlc_compile_options_set(o, "dim", "batch=1", err, sizeof err);
 *   char *diagnostics = NULL;
 *   if (mlc_compile_file("model.onnx", "model.so", o, &diagnostics) != 0)
 *     fprintf(stderr, "%s\n", diagnostics);
 *   mlc_string_free(diagnostics);
 *   mlc_compile_options_free(o);
 *
 * Threads: each compilation has an MLIR context of its own, but
 * compilations from several threads at once are not tested yet: take them
 * in turn.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MLC_C_COMPILER_H
#define MLC_C_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of mlc, e.g. "0.1.0". */
const char *mlc_compiler_version(void);

typedef struct mlc_compile_options mlc_compile_options;

/* Options with mlc-compile's defaults (the host CPU, weights embedded). */
mlc_compile_options *mlc_compile_options_new(void);
void mlc_compile_options_free(mlc_compile_options *options);

/* Sets the option mlc-compile spells --NAME=VALUE: target, shape and dim
   (repeatable: each call adds one), mtriple, mcpu, mattr, name, parallel,
   emit, compile-to, weights, linker, schedules, profile, report,
   report-profile, print-memory-plan,
   max-tensor-bytes, max-nodes, max-nesting (see `mlc-compile --help`).
   Returns 0, or -1 with the reason in `error` (NUL-terminated, cut to
   `error_size` bytes; `error` may be NULL). */
int mlc_compile_options_set(mlc_compile_options *options, const char *name,
                            const char *value, char *error,
                            size_t error_size);

/* Compiles the model file at `model_path` (an .onnx file, or the .mlir of a
   phase) to `output_path`, whose extension picks what is written unless
   the emit or compile-to option says: .o an object, .so a shared library,
   .s assembly (the first two with the C header FILE.h beside), anything
   else the graph IR. `options` may be NULL for the defaults. Returns 0, or
   -1 when the model is refused; either way `*diagnostics` (when
   `diagnostics` is not NULL) receives every error and warning, one per
   line, or NULL when there were none: free it with mlc_string_free. */
int mlc_compile_file(const char *model_path, const char *output_path,
                     const mlc_compile_options *options, char **diagnostics);

/* The same for the `size` bytes of an .onnx file at `data`: `name` names
   the model in messages, and external data is looked for in `model_dir`
   (NULL: the current folder), which it may not leave. */
int mlc_compile_buffer(const void *data, size_t size, const char *name,
                       const char *model_dir, const char *output_path,
                       const mlc_compile_options *options,
                       char **diagnostics);

/* Called as each pass starts while compiling (see mlc::compiler::Progress):
   the phase, the top-level pass (from 1) of `passes` (0 of 0 during code
   generation), its name, and for a pass on each function the function
   (from 1) of `functions` (else 0 of 0). */
typedef void (*mlc_progress_fn)(const char *phase, unsigned pass,
                                unsigned passes, const char *pass_name,
                                unsigned function, unsigned functions,
                                void *user);
/* Calls `progress` (NULL: nothing) with `user` during compilations with
   these options. */
void mlc_compile_options_set_progress(mlc_compile_options *options,
                                      mlc_progress_fn progress, void *user);

/* What a compilation produced, kept in memory. */
typedef struct mlc_artifacts mlc_artifacts;

/* As mlc_compile_file and mlc_compile_buffer, with `output_path` optional
   (NULL: nothing is written, and without an emit or compile-to option the
   result is an object) and the results in `*artifacts` when `artifacts` is
   not NULL (free with mlc_artifacts_free; NULL on failure). */
int mlc_compile_file_ex(const char *model_path, const char *output_path,
                        const mlc_compile_options *options,
                        mlc_artifacts **artifacts, char **diagnostics);
int mlc_compile_buffer_ex(const void *data, size_t size, const char *name,
                          const char *model_dir, const char *output_path,
                          const mlc_compile_options *options,
                          mlc_artifacts **artifacts, char **diagnostics);

/* The bytes of one result: "object" (the relocatable object, or assembly
   text), "header", "weights" (with the weights option external), "ir" (an
   earlier phase's IR), "memory-plan"; NULL, with `*size` 0, for one not
   produced. */
const void *mlc_artifacts_get(const mlc_artifacts *artifacts,
                              const char *what, size_t *size);
/* Each phase's name, wall time in seconds and the process's peak memory
   in bytes after it, in order (import, graph, loop, kernels, llvm,
   object, link); NULL past the last. */
size_t mlc_artifacts_num_phases(const mlc_artifacts *artifacts);
const char *mlc_artifacts_phase(const mlc_artifacts *artifacts, size_t index,
                                double *seconds, int64_t *peak_bytes);
void mlc_artifacts_free(mlc_artifacts *artifacts);

/* The report of `mlc-compile --check-support`: the opsets, the op types with
   their counts, and each unsupported op with the reason, in `*report` (free
   it with mlc_string_free). Returns 0 when every op is supported, else
   -1. */
int mlc_check_support(const char *model_path,
                      const mlc_compile_options *options, char **report);

/* Frees a string this interface returned; NULL is ignored. */
void mlc_string_free(char *string);

#ifdef __cplusplus
}
#endif

#endif /* MLC_C_COMPILER_H */
