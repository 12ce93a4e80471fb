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

/// What machine code the CPU backend emits.
struct CPUTargetOptions {
  /// LLVM target triple; empty means the host.
  std::string triple;
  /// CPU name (`znver3`, `cortex-a76`); `native` means the host CPU and its
  /// features; empty means the triple's generic CPU.
  std::string cpu;
  /// Extra LLVM feature string (`+avx2,+fma`).
  std::string features;
  /// LLVM optimization level, 0 to 3.
  unsigned optLevel = 3;
  /// The object goes into a shared library: also export the entry point and
  /// metadata under the fixed names loaders look up (see ModelABI.h).
  bool sharedLibrary = false;
  /// Large contractions run on threads through the OpenMP runtime (the
  /// object then needs libomp); otherwise the code needs only libc/libm.
  bool parallel = false;
  /// serialize() writes assembly text instead of an object file.
  bool assembly = false;
  /// Print each contraction kernel's schedule to stdout while lowering.
  bool printSchedules = false;
  /// Schedules that replace the heuristic's for the kernels they name
  /// (a file in --print-schedules' format); empty for none.
  std::string scheduleFile = "";
  /// When set, the weights leave the object: the lowered module carries
  /// them as `mlc.weights` for the driver to write to a file of this name
  /// (recorded in the metadata), and the entry point takes them as an
  /// argument. Empty: weights are embedded in the object.
  std::string weightsFile = "";
};

/// Creates the CPU backend for `options`.
std::unique_ptr<TargetBackend> createCPUTargetBackend(CPUTargetOptions options);

} // namespace mlc::target

#endif // MLC_TARGET_CPU_CPUTARGET_H
