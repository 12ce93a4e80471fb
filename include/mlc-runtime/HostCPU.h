//===- HostCPU.h - Whether this machine runs a model's code -----*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model compiled for a CPU with AVX-512 dies on an illegal instruction on
// one without. The metadata records the features the code needs
// (CodeTarget); the loader compares them with what this machine's CPU
// reports and refuses the model with their names instead.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_RUNTIME_HOSTCPU_H
#define MLC_RUNTIME_HOSTCPU_H

#include "mlc-runtime/ModelSignature.h"

#include <string>
#include <vector>

namespace mlc::abi {

/// The features `target` enables (as LLVM spells them: `avx512f`) that this
/// machine's CPU lacks. Only the instruction-set extensions the loader
/// knows how to ask the CPU about are compared (x86-64: SSE3 to AVX-512,
/// FMA, AMX and their kin), and only for code of this machine's
/// architecture; empty when nothing known is missing.
std::vector<std::string> getMissingFeatures(const CodeTarget &target);

} // namespace mlc::abi

#endif // MLC_RUNTIME_HOSTCPU_H
