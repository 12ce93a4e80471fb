//===- Model.h - Load and run a compiled model library ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The runtime loader: opens a shared library made by `mlc-compile -o
// MODEL.so`, reads its metadata, maps its external weights (checking size
// and checksum), owns the arena and runs the model. It uses the C library's
// dlopen and nothing from MLIR or LLVM, so programs that only run models
// (mlc-run, bindings, applications) stay small.
//
//   std::string error;
//   auto model = mlc::runtime::Model::load("model.so", "", error);
//   if (!model) { ... error ... }
//   int32_t rc = model->run(inputs, outputs);   // pointer arrays, graph order
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_MODEL_H
#define MLC_RUNTIME_MODEL_H

#include "mlc-runtime/ModelSignature.h"

#include <memory>
#include <optional>
#include <string>

namespace mlc::runtime {

/// A loaded model library with its weights and arena.
class Model {
public:
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// Loads the library at `path` (a path, never searched for). A library
  /// compiled with `--weights=external` reads `weightsPath`, or the file its
  /// metadata names beside the library when that is empty. Returns null and
  /// says why in `error`.
  static std::unique_ptr<Model> load(const std::string &path,
                                     const std::string &weightsPath,
                                     std::string &error);

  /// Names, dtypes and shapes of the inputs and outputs, the arena size.
  const abi::ModelSignature &getSignature() const { return signature; }

  /// Runs the model on dense row-major buffers in graph order: one pointer
  /// per input and output, of the sizes the signature gives. Returns the
  /// model's code: 0 on success. Uses the model's own arena: one run at a
  /// time.
  int32_t run(const void *const *inputs, void *const *outputs);

  /// The same in `arena` (getSignature().arenaSize bytes, 64-byte aligned:
  /// an Arena). Runs in different arenas may go on at once from any
  /// threads: they share only the code and the read-only weights.
  /// A model with symbolic dims returns abi::kErrorShape: it runs through
  /// runWithDims.
  int32_t run(const void *const *inputs, void *const *outputs,
              void *arena) const;

  /// Runs a model with symbolic dims (getSignature().symbols): their values
  /// in `dims` (abi::resolveSymbols gets them from the input shapes), and
  /// buffers of the sizes they give; in `arena`, or the model's own when
  /// null. A model without symbols ignores `dims`. An arena that is not
  /// an Arena must start zeroed, and abi::releaseBufferCache must free what
  /// it kept before its memory is freed or reused.
  int32_t runWithDims(const int64_t *dims, const void *const *inputs,
                      void *const *outputs, void *arena = nullptr) const;

  /// After a run in `arena` (null: the model's own) returned kErrorCheck:
  /// the message of the model's run-time check that failed (a branch that
  /// cannot run at the compiled shapes, ...); otherwise "".
  const char *getCheckMessage(const void *arena = nullptr) const {
    return abi::getCheckMessage(signature, arena ? arena : this->arena);
  }

  /// Kernel timings of a model compiled with `mlc-compile --profile`: one
  /// name and one nanosecond counter per kernel, summed over the runs since
  /// the last reset (runs add to them atomically).
  struct Profile {
    std::vector<std::string> kernels;
    std::vector<int64_t> nanoseconds;
  };
  /// Whether the model was compiled with --profile.
  bool hasProfile() const { return profileCounters != nullptr; }
  /// The counters as they stand (empty when !hasProfile()).
  Profile getProfile() const;
  /// The kernels' names, in the counters' order.
  const std::vector<std::string> &getProfileKernels() const {
    return profileKernels;
  }
  /// Sets the counters to zero.
  void resetProfile();

  /// Whether the model runs on a GPU (compiled with --target=gpu): then it
  /// runs in a GPUContext, and run() returns MLC_ERROR_DEVICE.
  bool isGPU() const { return signature.gpu.has_value(); }
  /// A GPU model's entry point, device image and weights (host memory).
  const void *getGPUEntry() const { return entry; }
  const char *getGPUImage() const { return gpuImage; }
  int64_t getGPUImageSize() const { return gpuImageSize; }
  const char *getWeights() const { return weights; }

  /// Whether part of the model runs on the NPU (compiled with
  /// --target=npu): then it runs through an NPU launcher (NPU/SimulatedNPU.h
  /// runs it in the simulator), and run() returns MLC_ERROR_DEVICE.
  bool isNPU() const { return signature.npu.has_value(); }
  /// An NPU model's entry point and image (its programs' command streams).
  const void *getNPUEntry() const { return entry; }
  const uint8_t *getNPUImage() const { return npuImage; }
  int64_t getNPUImageSize() const { return npuImageSize; }

private:
  Model() = default;

  const uint8_t *npuImage = nullptr;
  int64_t npuImageSize = 0;

  const char *gpuImage = nullptr;
  int64_t gpuImageSize = 0;

  /// `<name>_profile` and the kernel names of `<name>_profile_names`.
  int64_t *profileCounters = nullptr;
  std::vector<std::string> profileKernels;

  void *library = nullptr;
  abi::ModelSignature signature;
  void *entry = nullptr;
  /// The external weights, 64-byte aligned; null when they are embedded.
  char *weights = nullptr;
  /// The arena, 64-byte aligned.
  char *arena = nullptr;
};

/// Scratch memory for one run of a model at a time (64-byte aligned);
/// one per thread for concurrent runs. It keeps the blocks of the model's
/// buffers of run-time size from one run to the next (the signature's
/// bufferCacheOffset) and frees them when destroyed.
class Arena {
public:
  explicit Arena(const Model &model);
  ~Arena();
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  /// Null when the allocation failed.
  void *get() const { return bytes; }

private:
  char *bytes;
  std::optional<int64_t> bufferCacheOffset;
};

} // namespace mlc::runtime

#endif // MLC_RUNTIME_MODEL_H
