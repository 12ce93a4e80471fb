//===- PhaseTimer.h - Wall time and memory per compilation phase -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times the phases of one compilation: the work outside the pass manager
// (import, code generation, linking) through scopes, and the phases inside
// it through a pass instrumentation that knows which top-level passes
// belong to which phase. Reports progress to a callback as passes start.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_LIB_COMPILER_PHASETIMER_H
#define MLC_LIB_COMPILER_PHASETIMER_H

#include "mlc/Compiler/Invocation.h"

#include "mlir/Pass/PassInstrumentation.h"

#include <chrono>

namespace mlc::compiler {

/// The process's peak resident memory so far, in bytes.
int64_t getPeakMemoryBytes();

class PhaseTimer {
public:
  using Clock = std::chrono::steady_clock;

  explicit PhaseTimer(std::vector<PhaseTiming> &timings) : timings(timings) {}

  /// Starts `phase`, ending the one before.
  void begin(llvm::StringRef phase);
  /// Ends the current phase, if any.
  void end();

  /// Tells the timer that top-level passes [first, first + count) of the
  /// next pipeline are `phase`'s.
  void addPipelinePhase(llvm::StringRef phase, unsigned count) {
    pipelinePhases.push_back({phase.str(), count});
  }
  /// An instrumentation for the pass manager of those pipelines.
  std::unique_ptr<mlir::PassInstrumentation>
  createInstrumentation(ProgressCallback progress);

private:
  friend class PhaseInstrumentation;
  std::vector<PhaseTiming> &timings;
  std::string current;
  Clock::time_point start;
  std::vector<std::pair<std::string, unsigned>> pipelinePhases;
};

} // namespace mlc::compiler

#endif // MLC_LIB_COMPILER_PHASETIMER_H
