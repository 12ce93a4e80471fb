//===- CheckedRunFuzzer.cpp - Calls into a compiled model's checked entry --===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The demo model, compiled by this build's mlc-compile (--name=fz) and
// linked in, is called through the checked entry point its header declares
// with whatever the input describes: tensor counts, dtypes, ranks, shapes,
// buffer offsets (alignment), arena size and offset, null pointers, and the
// input values. Every buffer is allocated to the size its description
// claims, so the sanitizers see any read or write the validation let
// through; a call that is accepted must also run cleanly on those bytes
// (NaNs and infinities included).
//
//===----------------------------------------------------------------------===//

#include "fz.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
/// One tensor as the input describes it, owning a buffer of the size its
/// dtype and shape claim (at most 1 MiB).
struct FuzzTensor {
  std::vector<int64_t> shape;
  std::vector<uint8_t> storage;
  mlc_tensor tensor{};

  FuzzTensor(FuzzedDataProvider &in, const int64_t *modelShape,
             int32_t modelRank, int32_t modelDtype) {
    // Mostly near the truth, so that accepted calls are common.
    bool truthful = in.ConsumeBool();
    int32_t dtype = truthful ? modelDtype : in.ConsumeIntegralInRange(0, 17);
    int32_t rank = truthful ? modelRank : in.ConsumeIntegralInRange(0, 6);
    for (int32_t i = 0; i < rank; ++i)
      shape.push_back(truthful && i < modelRank
                          ? modelShape[i]
                          : in.ConsumeIntegralInRange<int64_t>(-2, 70));
    size_t bytes = mlc_dtype_size(dtype);
    for (int64_t d : shape)
      bytes = d <= 0 ? 0 : std::min<size_t>(bytes * size_t(d), 1 << 20);
    size_t offset = in.ConsumeIntegralInRange(0, 7);
    storage.resize(bytes + offset);
    std::vector<uint8_t> values = in.ConsumeBytes<uint8_t>(bytes);
    if (!values.empty())
      std::memcpy(storage.data() + offset, values.data(), values.size());
    tensor.dtype = dtype;
    tensor.rank = rank;
    tensor.shape = shape.empty() ? nullptr : shape.data();
    tensor.data = in.ConsumeIntegralInRange(0, 15) == 0
                      ? nullptr
                      : storage.data() + offset;
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  size_t numInputs = in.ConsumeIntegralInRange<size_t>(0, 2);
  size_t numOutputs = in.ConsumeIntegralInRange<size_t>(0, 2);
  std::vector<FuzzTensor> inputs, outputs;
  inputs.reserve(numInputs);
  outputs.reserve(numOutputs);
  for (size_t i = 0; i < numInputs; ++i)
    inputs.emplace_back(in, fz_input0_shape, FZ_INPUT0_RANK, FZ_INPUT0_DTYPE);
  for (size_t i = 0; i < numOutputs; ++i)
    outputs.emplace_back(in, fz_output0_shape, FZ_OUTPUT0_RANK,
                         FZ_OUTPUT0_DTYPE);
  std::vector<mlc_tensor> in_tensors, out_tensors;
  for (FuzzTensor &t : inputs)
    in_tensors.push_back(t.tensor);
  for (FuzzTensor &t : outputs)
    out_tensors.push_back(t.tensor);

  size_t arenaSize = in.ConsumeBool()
                         ? FZ_ARENA_SIZE
                         : in.ConsumeIntegralInRange<size_t>(0, 2 * FZ_ARENA_SIZE);
  size_t arenaOffset = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange(0, 63);
  void *arenaStorage = std::aligned_alloc(64, (arenaSize + 127) / 64 * 64);
  void *arena = in.ConsumeIntegralInRange(0, 15) == 0
                    ? nullptr
                    : static_cast<uint8_t *>(arenaStorage) + arenaOffset;
  const mlc_tensor *inPtr = in.ConsumeBool() ? in_tensors.data() : nullptr;
  const mlc_tensor *outPtr = in.ConsumeBool() ? out_tensors.data() : nullptr;
  int32_t rc = fz_run_checked(arena, arenaSize, numInputs, inPtr, numOutputs,
                              outPtr);
  // The model's own code is not instrumented: the oracle is that a call
  // accepted was one the model can run on, tensor by tensor.
  if (rc == MLC_OK) {
    auto matches = [](const mlc_tensor &t, int32_t dtype, int32_t rank,
                      const int64_t *shape) {
      if (!t.data || t.dtype != dtype || t.rank != rank ||
          reinterpret_cast<uintptr_t>(t.data) % mlc_dtype_size(dtype) != 0)
        return false;
      for (int32_t i = 0; i < rank; ++i)
        if (t.shape[i] != shape[i])
          return false;
      return true;
    };
    if (numInputs != 1 || numOutputs != 1 || !inPtr || !outPtr || !arena ||
        arenaSize < FZ_ARENA_SIZE ||
        reinterpret_cast<uintptr_t>(arena) % FZ_ARENA_ALIGNMENT != 0 ||
        !matches(inPtr[0], FZ_INPUT0_DTYPE, FZ_INPUT0_RANK, fz_input0_shape) ||
        !matches(outPtr[0], FZ_OUTPUT0_DTYPE, FZ_OUTPUT0_RANK,
                 fz_output0_shape))
      __builtin_trap();
  }
  std::free(arenaStorage);
  return 0;
}
