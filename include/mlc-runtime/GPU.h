//===- GPU.h - Running GPU models on an NVIDIA device -----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model compiled with `--target=gpu` runs in a context on one device:
// creating it loads the model's image into the device, allocates the arena
// and the input and output buffers planned at compile time and uploads the
// weights once; each run launches the kernels on the context's stream. The
// CUDA driver is loaded at run time (libcuda.so.1): without it, or without
// a device, creating a context fails with a message.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_GPU_H
#define MLC_RUNTIME_GPU_H

#include "mlc-runtime/Model.h"

#include <memory>
#include <string>
#include <vector>

namespace mlc::runtime {

class GPUContext {
public:
  ~GPUContext();
  GPUContext(const GPUContext &) = delete;
  GPUContext &operator=(const GPUContext &) = delete;

  /// A context for `model` (which must outlive it) on device `device`.
  /// Returns null and says why in `error`.
  static std::unique_ptr<GPUContext> create(const Model &model, int device,
                                            std::string &error);

  /// The device's name and compute capability (`NVIDIA H100 80GB HBM3,
  /// sm_90`).
  const std::string &getDeviceDescription() const { return description; }

  /// Copies the inputs (host buffers, in graph order) to the device, runs,
  /// and copies the outputs back; an output whose size the data decides is
  /// a record (address, dims) that gets a host copy the caller frees with
  /// free(). Returns 0, or MLC_ERROR_CHECK or MLC_ERROR_DEVICE with the
  /// reason in `error`.
  int32_t run(const void *const *inputs, void *const *outputs,
              std::string &error);

  /// Runs on device buffers (CUdeviceptr values, one per input and output)
  /// on `stream` (a CUstream of the device's primary context; null: the
  /// default stream), and waits for the end. With `milliseconds`, also times
  /// the run with CUDA events. For an output whose size the data decides,
  /// the value is the host address of its record (int64: the data's device
  /// address, then the dims), which the run fills; the caller frees that
  /// data with cuMemFree (for the context's own records, the next run or
  /// the context's end does; a failed run leaves the records' addresses
  /// null). A model whose host code reads device memory
  /// (ModelSignature's gpu.hostAccess) reads its inputs from the context's
  /// own buffers: others are copied there first. Returns 0, MLC_ERROR_CHECK
  /// with the failed check's message, or MLC_ERROR_DEVICE.
  int32_t runOnDevice(const uint64_t *inputs, const uint64_t *outputs,
                      std::string &error, float *milliseconds = nullptr,
                      void *stream = nullptr);

  /// The context's own device buffers for the inputs and outputs.
  const std::vector<uint64_t> &getInputBuffers() const { return inputs; }
  const std::vector<uint64_t> &getOutputBuffers() const { return outputs; }

private:
  GPUContext() = default;
  struct Impl;
  std::unique_ptr<Impl> impl;
  std::string description;
  std::vector<uint64_t> inputs, outputs;
};

} // namespace mlc::runtime

#endif // MLC_RUNTIME_GPU_H
