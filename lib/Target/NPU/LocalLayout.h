//===- LocalLayout.h - Where a stream's buffers go --------------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The arithmetic the NPU's stream builders share to lay out their buffers
// in the scratchpad and the accumulator.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_TARGET_NPU_LOCALLAYOUT_H
#define MLC_LIB_TARGET_NPU_LOCALLAYOUT_H

#include "mlc-runtime/NPU/Config.h"

#include <algorithm>
#include <cstdint>

namespace mlc::npu {

/// Local buffers start on this many bytes.
constexpr int64_t kLocalAlignment = 64;

inline int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The bytes of one scratchpad bank (at least the alignment): a buffer
/// set that starts a bank of its own never waits for another's port.
inline int64_t getScratchpadBank(const NPUConfig &config) {
  return std::max<int64_t>(config.scratchpad.bytes / config.scratchpad.banks,
                           kLocalAlignment);
}

} // namespace mlc::npu

#endif // MLC_LIB_TARGET_NPU_LOCALLAYOUT_H
