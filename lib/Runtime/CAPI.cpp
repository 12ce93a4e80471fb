//===- CAPI.cpp - C interface of the runtime of compiled models -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/mlc_runtime.h"
#include "mlc-runtime/GPU.h"
#include "mlc-runtime/NPU/SimulatedNPU.h"
#include "mlc-runtime/Model.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace mlc;

struct mlc_model {
  std::unique_ptr<runtime::Model> model;
};

struct mlc_gpu_context {
  std::unique_ptr<runtime::GPUContext> context;
};

struct mlc_npu_sim {
  std::unique_ptr<runtime::SimulatedNPU> npu;
};

struct mlc_arena {
  explicit mlc_arena(const runtime::Model &model) : arena(model) {}
  runtime::Arena arena;
};

namespace {
const abi::TensorSignature *getTensor(const mlc_model *model, int output,
                                      size_t index) {
  if (!model)
    return nullptr;
  const abi::ModelSignature &signature = model->model->getSignature();
  const std::vector<abi::TensorSignature> &tensors =
      output ? signature.outputs : signature.inputs;
  return index < tensors.size() ? &tensors[index] : nullptr;
}

void copyError(const std::string &message, char *error, size_t error_size) {
  if (error && error_size) {
    std::strncpy(error, message.c_str(), error_size - 1);
    error[error_size - 1] = '\0';
  }
}
} // namespace

extern "C" {

mlc_model *mlc_model_load(const char *path, const char *weights_path,
                          char *error, size_t error_size) {
  std::string message;
  std::unique_ptr<runtime::Model> model;
  if (!path)
    message = "no model path";
  else
    model = runtime::Model::load(path, weights_path ? weights_path : "",
                                 message);
  if (!model) {
    copyError(message, error, error_size);
    return nullptr;
  }
  return new mlc_model{std::move(model)};
}

void mlc_model_free(mlc_model *model) { delete model; }

const char *mlc_model_name(const mlc_model *model) {
  return model ? model->model->getSignature().name.c_str() : "";
}

int64_t mlc_model_arena_size(const mlc_model *model) {
  return model ? model->model->getSignature().arenaSize : 0;
}

size_t mlc_model_num_tensors(const mlc_model *model, int output) {
  if (!model)
    return 0;
  const abi::ModelSignature &signature = model->model->getSignature();
  return output ? signature.outputs.size() : signature.inputs.size();
}

const char *mlc_model_tensor_name(const mlc_model *model, int output,
                                  size_t index) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor ? tensor->name.c_str() : "";
}

int32_t mlc_model_tensor_dtype(const mlc_model *model, int output,
                               size_t index) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor ? static_cast<int32_t>(tensor->dtype) : 0;
}

int32_t mlc_model_tensor_rank(const mlc_model *model, int output,
                              size_t index) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor ? static_cast<int32_t>(tensor->shape.size()) : -1;
}

int64_t mlc_model_tensor_dim(const mlc_model *model, int output, size_t index,
                             int32_t dim) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  if (!tensor || dim < 0 || static_cast<size_t>(dim) >= tensor->shape.size())
    return -1;
  return tensor->shape[dim];
}

int64_t mlc_model_tensor_bytes(const mlc_model *model, int output,
                               size_t index) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor ? tensor->getNumBytes() : -1;
}

mlc_arena *mlc_arena_new(const mlc_model *model) {
  if (!model)
    return nullptr;
  auto *arena = new mlc_arena(*model->model);
  if (!arena->arena.get()) {
    delete arena;
    return nullptr;
  }
  return arena;
}

void mlc_arena_free(mlc_arena *arena) { delete arena; }

int32_t mlc_model_run(const mlc_model *model, mlc_arena *arena,
                      const void *const *inputs, void *const *outputs) {
  if (!model || !arena ||
      (!inputs && !model->model->getSignature().inputs.empty()) ||
      (!outputs && !model->model->getSignature().outputs.empty()))
    return 1;
  size_t numInputs = model->model->getSignature().inputs.size();
  size_t numOutputs = model->model->getSignature().outputs.size();
  for (size_t i = 0; i < numInputs; ++i)
    if (!inputs[i])
      return 1;
  for (size_t i = 0; i < numOutputs; ++i)
    if (!outputs[i])
      return 1;
  return model->model->run(inputs, outputs, arena->arena.get());
}

size_t mlc_model_num_symbols(const mlc_model *model) {
  return model ? model->model->getSignature().symbols.size() : 0;
}

const char *mlc_model_symbol_name(const mlc_model *model, size_t index) {
  if (!model || index >= model->model->getSignature().symbols.size())
    return nullptr;
  return model->model->getSignature().symbols[index].c_str();
}

int32_t mlc_model_tensor_dim_symbol(const mlc_model *model, int output,
                                    size_t index, int32_t dim) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor && dim >= 0 ? tensor->getDimSymbol(dim) : -1;
}

int32_t mlc_model_resolve_dims(const mlc_model *model,
                               const int64_t *const *input_shapes,
                               int64_t *dims, char *error, size_t error_size) {
  if (!model || !dims ||
      (!input_shapes && !model->model->getSignature().inputs.empty())) {
    copyError("a null model, shape list or dims array", error, error_size);
    return abi::kErrorShape;
  }
  const abi::ModelSignature &signature = model->model->getSignature();
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    size_t rank = signature.inputs[i].shape.size();
    if (rank && !input_shapes[i]) {
      copyError("no shape for input '" + signature.inputs[i].name + "'",
                error, error_size);
      return abi::kErrorShape;
    }
    shapes.emplace_back(input_shapes[i], input_shapes[i] + rank);
  }
  std::vector<int64_t> values;
  std::string message;
  if (!abi::resolveSymbols(signature, shapes, values, message)) {
    copyError(message, error, error_size);
    return abi::kErrorShape;
  }
  std::copy(values.begin(), values.end(), dims);
  return 0;
}

int64_t mlc_model_tensor_dim_at(const mlc_model *model, int output,
                                size_t index, int32_t dim,
                                const int64_t *dims) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  if (!tensor || dim < 0 || static_cast<size_t>(dim) >= tensor->shape.size())
    return -1;
  return tensor->getShape(dims)[dim];
}

int64_t mlc_model_tensor_bytes_at(const mlc_model *model, int output,
                                  size_t index, const int64_t *dims) {
  const abi::TensorSignature *tensor = getTensor(model, output, index);
  return tensor ? tensor->getNumBytes(dims) : -1;
}

int32_t mlc_model_run_dims(const mlc_model *model, mlc_arena *arena,
                           const int64_t *dims, const void *const *inputs,
                           void *const *outputs) {
  if (!model || !arena || !dims ||
      (!inputs && !model->model->getSignature().inputs.empty()) ||
      (!outputs && !model->model->getSignature().outputs.empty()))
    return 1;
  const abi::ModelSignature &signature = model->model->getSignature();
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    if (!inputs[i])
      return 1;
  for (size_t i = 0; i < signature.outputs.size(); ++i)
    if (!outputs[i])
      return 1;
  return model->model->runWithDims(dims, inputs, outputs, arena->arena.get());
}

void mlc_free(void *data) { std::free(data); }

const char *mlc_model_check_message(const mlc_model *model,
                                    const mlc_arena *arena) {
  if (!model || !arena)
    return "";
  return model->model->getCheckMessage(arena->arena.get());
}

size_t mlc_model_num_kernels(const mlc_model *model) {
  return model && model->model->hasProfile()
             ? model->model->getProfile().kernels.size()
             : 0;
}

const char *mlc_model_kernel_name(const mlc_model *model, size_t index) {
  if (!model || !model->model->hasProfile())
    return nullptr;
  const std::vector<std::string> &names = model->model->getProfileKernels();
  return index < names.size() ? names[index].c_str() : nullptr;
}

int64_t mlc_model_kernel_nanoseconds(const mlc_model *model, size_t index) {
  if (!model || !model->model->hasProfile())
    return -1;
  runtime::Model::Profile profile = model->model->getProfile();
  return index < profile.nanoseconds.size() ? profile.nanoseconds[index] : -1;
}

void mlc_model_reset_profile(mlc_model *model) {
  if (model)
    model->model->resetProfile();
}

int mlc_model_is_gpu(const mlc_model *model) {
  return model && model->model->isGPU();
}

mlc_gpu_context *mlc_gpu_context_create(const mlc_model *model, int device,
                                        char *error, size_t error_size) {
  std::string message = "no model";
  std::unique_ptr<runtime::GPUContext> context;
  if (model)
    context = runtime::GPUContext::create(*model->model, device, message);
  if (!context) {
    copyError(message, error, error_size);
    return nullptr;
  }
  return new mlc_gpu_context{std::move(context)};
}

void mlc_gpu_context_free(mlc_gpu_context *context) { delete context; }

const char *mlc_gpu_device_description(const mlc_gpu_context *context) {
  return context ? context->context->getDeviceDescription().c_str() : "";
}

int32_t mlc_gpu_run(mlc_gpu_context *context, const void *const *inputs,
                    void *const *outputs, char *error, size_t error_size) {
  if (!context || !inputs || !outputs)
    return 1;
  std::string message;
  int32_t code = context->context->run(inputs, outputs, message);
  if (code)
    copyError(message, error, error_size);
  return code;
}

int32_t mlc_gpu_run_device(mlc_gpu_context *context, const uint64_t *inputs,
                           const uint64_t *outputs, void *stream,
                           float *milliseconds, char *error,
                           size_t error_size) {
  if (!context)
    return 1;
  const auto &ins = context->context->getInputBuffers();
  const auto &outs = context->context->getOutputBuffers();
  std::string message;
  int32_t code = context->context->runOnDevice(
      inputs ? inputs : ins.data(), outputs ? outputs : outs.data(), message,
      milliseconds, stream);
  if (code)
    copyError(message, error, error_size);
  return code;
}

int mlc_model_is_npu(const mlc_model *model) {
  return model && model->model->isNPU();
}

mlc_npu_sim *mlc_npu_sim_create(const mlc_model *model, char *error,
                                size_t error_size) {
  std::string message = "no model";
  std::unique_ptr<runtime::SimulatedNPU> npu;
  if (model)
    npu = runtime::SimulatedNPU::create(*model->model, message);
  if (!npu) {
    copyError(message, error, error_size);
    return nullptr;
  }
  return new mlc_npu_sim{std::move(npu)};
}

void mlc_npu_sim_free(mlc_npu_sim *sim) { delete sim; }

int32_t mlc_npu_sim_run(mlc_npu_sim *sim, const void *const *inputs,
                        void *const *outputs, char *error,
                        size_t error_size) {
  return mlc_npu_sim_run_dims(sim, nullptr, inputs, outputs, error,
                              error_size);
}

int32_t mlc_npu_sim_run_dims(mlc_npu_sim *sim, const int64_t *dims,
                             const void *const *inputs, void *const *outputs,
                             char *error, size_t error_size) {
  if (!sim || !inputs || !outputs)
    return 1;
  std::string message;
  int32_t code = sim->npu->run(inputs, outputs, message, dims);
  if (code && !message.empty())
    copyError(message, error, error_size);
  return code;
}

void mlc_npu_sim_stats(const mlc_npu_sim *sim, int64_t out[7],
                       double *clock_mhz, int64_t *macs_per_cycle) {
  if (!sim)
    return;
  runtime::SimulatedNPU::ProgramStats total = sim->npu->getTotal();
  if (out) {
    out[0] = total.runs;
    out[1] = total.cycles;
    out[2] = total.multiplyAccumulates;
    out[3] = total.bytesLoaded;
    out[4] = total.bytesStored;
    out[5] = total.matrixCycles;
    out[6] = total.dmaCycles;
  }
  const npu::NPUConfig &config = sim->npu->getConfig();
  if (clock_mhz)
    *clock_mhz = config.clockMHz;
  if (macs_per_cycle)
    *macs_per_cycle = config.matrix.rows * config.matrix.cols;
}

void mlc_npu_sim_reset_stats(mlc_npu_sim *sim) {
  if (sim)
    sim->npu->resetStats();
}

const char *mlc_status_message(int32_t code) {
  switch (code) {
  case 0:
    return "ok";
  case 1:
    return "a null model, arena, input or output";
  case 2:
    return "wrong number of inputs or outputs";
  case 3:
    return "an input or output of the wrong dtype";
  case 4:
    return "an input or output of the wrong rank or shape";
  case 5:
    return "the arena is too small or misaligned";
  case 6:
    return "the external weights are missing, of the wrong size or "
           "misaligned";
  case 7:
    return "an input or output not aligned to its element size";
  case 8:
    return "the model runs on a GPU (mlc_gpu_context_create) or an NPU "
           "(mlc_npu_sim_create), or the device failed";
  case 9:
    return "a condition the model checks at run time failed "
           "(mlc_model_check_message says which)";
  default:
    return "unknown status";
  }
}

} // extern "C"
