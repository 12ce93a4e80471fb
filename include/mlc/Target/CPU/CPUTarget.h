//===- CPUTarget.h - The CPU (x86-64, AArch64) backend ----------*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers loop-level IR through one-shot bufferization to the LLVM dialect
// and emits an ELF object with LLVM's TargetMachine, in process.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_TARGET_CPU_CPUTARGET_H
#define MLC_TARGET_CPU_CPUTARGET_H

#include "mlc/Target/TargetBackend.h"

#include <memory>
#include <string>

namespace mlc::target {

/// The CPU backend reads every field of TargetOptions.
using CPUTargetOptions = TargetOptions;

/// Creates the CPU backend for `options`.
std::unique_ptr<TargetBackend> createCPUTargetBackend(CPUTargetOptions options);

} // namespace mlc::target

#endif // MLC_TARGET_CPU_CPUTARGET_H
