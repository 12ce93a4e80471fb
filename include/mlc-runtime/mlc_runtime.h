/*===- mlc_runtime.h - C interface of the runtime of compiled models -*- C -*-===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * Loads a model library made by `mlc-compile -o MODEL.so`, describes its
 * inputs and outputs and runs it on the caller's buffers, from C or from any
 * language with a C foreign-function interface (the Python package uses it
 * through ctypes). It is the C face of mlc::runtime::Model (Model.h) and, like
 * it, links nothing from MLIR or LLVM: libmlc_runtime.so.
 *
 * Threads: a loaded model may run from many threads at once, each run in an
 * arena of its own (mlc_arena_new); loading and freeing a model must not race
 * with its runs.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MLC_RUNTIME_MLC_RUNTIME_H
#define MLC_RUNTIME_MLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mlc_model mlc_model;
typedef struct mlc_arena mlc_arena;

/* Loads the model library at `path`; `weights_path` (or NULL) names the
   weights file of a library compiled with --weights=external when it is not
   the one beside it. Returns NULL on failure, with the reason in `error`
   (NUL-terminated, cut to `error_size` bytes). */
mlc_model *mlc_model_load(const char *path, const char *weights_path,
                          char *error, size_t error_size);
void mlc_model_free(mlc_model *model);

/* The model's name (its symbol prefix) and the bytes one run's arena needs. */
const char *mlc_model_name(const mlc_model *model);
int64_t mlc_model_arena_size(const mlc_model *model);

/* Inputs (`output` 0) and outputs (`output` 1), in graph order: their
   number, and for each its name, dtype (numbered as ONNX's
   TensorProto.DataType: 1 float32, 7 int64, ...), rank, dims and bytes.
   An output whose size depends on the data (NonZero, a Range on inputs)
   has -1 dims; the buffer passed for it is a record of 1 + rank int64
   words (its bytes), into which the run writes the address of the data it
   allocated (free it with mlc_free) and the dims. A run that fails leaves
   the address 0. */
size_t mlc_model_num_tensors(const mlc_model *model, int output);
const char *mlc_model_tensor_name(const mlc_model *model, int output,
                                  size_t index);
int32_t mlc_model_tensor_dtype(const mlc_model *model, int output,
                               size_t index);
int32_t mlc_model_tensor_rank(const mlc_model *model, int output,
                              size_t index);
int64_t mlc_model_tensor_dim(const mlc_model *model, int output, size_t index,
                             int32_t dim);
int64_t mlc_model_tensor_bytes(const mlc_model *model, int output,
                               size_t index);

/* Symbolic dims: a model compiled with its batch dim left symbolic runs
   at any value of it. Their number and names; for dim `dim` of a tensor,
   the index of the symbol its size is a multiple of, or -1 (for such a
   dim mlc_model_tensor_dim gives the multiple, and mlc_model_tensor_bytes
   gives -1: use mlc_model_tensor_bytes_at). */
size_t mlc_model_num_symbols(const mlc_model *model);
const char *mlc_model_symbol_name(const mlc_model *model, size_t index);
int32_t mlc_model_tensor_dim_symbol(const mlc_model *model, int output,
                                    size_t index, int32_t dim);
/* The symbols' values the input shapes give (input_shapes[i]: the dims of
   input i, as many as its rank), after checking every input's rank and
   static dims and that the inputs agree. Writes one value per symbol to
   `dims` and returns 0, or returns 4 (MLC_ERROR_SHAPE) with the input and
   dim at fault in `error`. */
int32_t mlc_model_resolve_dims(const mlc_model *model,
                               const int64_t *const *input_shapes,
                               int64_t *dims, char *error, size_t error_size);
/* Dim `dim` and the bytes of a tensor at the symbols' values `dims`. */
int64_t mlc_model_tensor_dim_at(const mlc_model *model, int output,
                                size_t index, int32_t dim,
                                const int64_t *dims);
int64_t mlc_model_tensor_bytes_at(const mlc_model *model, int output,
                                  size_t index, const int64_t *dims);
/* mlc_model_run for a model with symbolic dims: their values in `dims`,
   and buffers of the sizes mlc_model_tensor_bytes_at gives. Returns 4 for
   values out of range, before anything runs. */
int32_t mlc_model_run_dims(const mlc_model *model, mlc_arena *arena,
                           const int64_t *dims, const void *const *inputs,
                           void *const *outputs);

/* Frees the data of an output whose size depends on the data (the
   address in its record; the C library's free). */
void mlc_free(void *data);

/* Scratch memory for runs of `model`, one run at a time (NULL when the
   allocation fails). */
mlc_arena *mlc_arena_new(const mlc_model *model);
void mlc_arena_free(mlc_arena *arena);

/* Runs `model` in `arena` on dense row-major buffers, one per input and
   output in graph order, of the sizes mlc_model_tensor_bytes gives. Returns
   0, or a code that mlc_status_message explains. */
int32_t mlc_model_run(const mlc_model *model, mlc_arena *arena,
                      const void *const *inputs, void *const *outputs);
/* After mlc_model_run returned 9 (MLC_ERROR_CHECK) in `arena`: the message
   of the model's run-time check that failed (a branch that cannot run at
   the shapes the model was compiled for, ...), owned by the model; "" when
   no check failed. */
const char *mlc_model_check_message(const mlc_model *model,
                                    const mlc_arena *arena);

/* Kernel timings of a library compiled with `mlc-compile --profile`: the
   number of kernels (0 without --profile), each one's name and the
   nanoseconds its calls took over the runs since the last reset (-1 for an
   index out of range), and the reset. Runs add to the counters
   atomically. */
size_t mlc_model_num_kernels(const mlc_model *model);
const char *mlc_model_kernel_name(const mlc_model *model, size_t index);
int64_t mlc_model_kernel_nanoseconds(const mlc_model *model, size_t index);
void mlc_model_reset_profile(mlc_model *model);

/* What a code of mlc_model_run means. */
/* GPU models (mlc-compile --target=gpu). mlc_model_run returns 8 for them:
   they run in a context on one CUDA device, which loads the model's code,
   allocates its arena and its input and output buffers on the device and
   uploads the weights once. The CUDA driver is loaded at run time
   (libcuda.so.1): without it or without a device, creating a context
   returns NULL with the reason in `error`. mlc_gpu_run copies host inputs
   in, runs and copies host outputs out (an output whose size the data
   decides is a record whose address is host memory the caller frees with
   mlc_free); mlc_gpu_run_device runs on device
   buffers (CUdeviceptr values; NULL: the context's own) on `stream` (a
   CUstream of the device's primary context; NULL: the default stream) and
   waits for it, timing the run with CUDA events when `milliseconds` is not
   NULL. Both return 0, or a
   code with the reason in `error`. One run at a time per context. */
typedef struct mlc_gpu_context mlc_gpu_context;
int mlc_model_is_gpu(const mlc_model *model);
mlc_gpu_context *mlc_gpu_context_create(const mlc_model *model, int device,
                                        char *error, size_t error_size);
void mlc_gpu_context_free(mlc_gpu_context *context);
const char *mlc_gpu_device_description(const mlc_gpu_context *context);
int32_t mlc_gpu_run(mlc_gpu_context *context, const void *const *inputs,
                    void *const *outputs, char *error, size_t error_size);
int32_t mlc_gpu_run_device(mlc_gpu_context *context, const uint64_t *inputs,
                           const uint64_t *outputs, void *stream,
                           float *milliseconds, char *error,
                           size_t error_size);

/* NPU models (mlc-compile --target=npu). mlc_model_run returns 8 for them:
   their NPU programs run in the NPU simulator, which a context holds with
   its own arena. mlc_npu_sim_run runs the model on host buffers (as
   mlc_model_run takes them) and returns 0, the model's code, or 8 with the
   simulator's reason (a hazard, an operand out of range) in `error`.
   mlc_npu_sim_stats gives the simulated counts of the runs since the last
   reset, summed over the model's programs: out[0] runs, [1] cycles, [2]
   multiply-accumulates, [3] bytes loaded, [4] bytes stored, [5] matrix-unit
   busy cycles, [6] DMA busy cycles; and the NPU's clock (MHz) and matrix
   size (rows x cols) in `clock_mhz` and `macs_per_cycle`. One run at a
   time per context. */
typedef struct mlc_npu_sim mlc_npu_sim;
int mlc_model_is_npu(const mlc_model *model);
mlc_npu_sim *mlc_npu_sim_create(const mlc_model *model, char *error,
                                size_t error_size);
void mlc_npu_sim_free(mlc_npu_sim *sim);
int32_t mlc_npu_sim_run(mlc_npu_sim *sim, const void *const *inputs,
                        void *const *outputs, char *error, size_t error_size);
/* The same for a model with a symbolic batch: the symbols' values first
   (mlc_model_resolve_dims). */
int32_t mlc_npu_sim_run_dims(mlc_npu_sim *sim, const int64_t *dims,
                             const void *const *inputs, void *const *outputs,
                             char *error, size_t error_size);
void mlc_npu_sim_stats(const mlc_npu_sim *sim, int64_t out[7],
                       double *clock_mhz, int64_t *macs_per_cycle);
void mlc_npu_sim_reset_stats(mlc_npu_sim *sim);

const char *mlc_status_message(int32_t code);

/* Text generation with a compiled decoder (a CPU model compiled with its
   sequence and past lengths symbolic). The decoder is recognized by the
   names exporters give its tensors, in Optimum's layout and ONNX Runtime
   GenAI's alike: inputs input_ids and attention_mask (int64 [batch, ...]),
   optionally position_ids, and past_key_values.{i}.{key,value} (float
   [batch, heads, past, head size]); outputs logits (float [batch,
   sequence, vocabulary]) and present.{i}.{key,value}. One sequence
   (batch 1): the prompt runs once (prefill), then one token per step with
   the presents fed back as the next step's past.

   Tokens are picked greedily when `temperature` is 0 (or `top_k` is 1);
   otherwise sampled from softmax(logits / temperature) over the `top_k`
   most likely tokens (0: all), cut to the fewest whose probability reaches
   `top_p` (1: no cut), with a generator seeded by `seed`, so a seed
   repeats its tokens. Generation stops after `max_new_tokens` tokens or at
   `eos_token_id` (-1: none), which is kept. */
typedef struct mlc_generate_config {
  int32_t max_new_tokens;
  int32_t top_k;
  float top_p;
  float temperature;
  uint64_t seed;
  int64_t eos_token_id;
} mlc_generate_config;

/* Timings of one generation: the prefill step and the decode steps after
   it, in milliseconds. */
typedef struct mlc_generate_stats {
  double prefill_ms;
  double decode_ms;
  int64_t prompt_tokens;
  int64_t new_tokens;
} mlc_generate_stats;

/* Greedy defaults: 32 new tokens, no sampling, no end token. */
void mlc_generate_config_init(mlc_generate_config *config);

/* Generates up to config->max_new_tokens tokens after the `prompt_length`
   tokens of `prompt`, writing them to `tokens` and their number to
   `num_tokens`, and the timings to `stats` (may be NULL). Returns 0, or a
   code with the reason in `error` (a model that is not a decoder, a run
   that failed). */
int32_t mlc_model_generate(const mlc_model *model, mlc_arena *arena,
                           const int64_t *prompt, size_t prompt_length,
                           const mlc_generate_config *config, int64_t *tokens,
                           size_t *num_tokens, mlc_generate_stats *stats,
                           char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* MLC_RUNTIME_MLC_RUNTIME_H */
