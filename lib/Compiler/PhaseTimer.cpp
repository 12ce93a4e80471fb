//===- PhaseTimer.cpp - Wall time and memory per compilation phase --------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "PhaseTimer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

#include <mutex>

#include <sys/resource.h>

using namespace mlir;
using namespace mlc::compiler;

int64_t mlc::compiler::getPeakMemoryBytes() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return int64_t(usage.ru_maxrss) * 1024; // KiB on Linux
}

void PhaseTimer::begin(StringRef phase) {
  end();
  current = phase.str();
  start = Clock::now();
}

void PhaseTimer::end() {
  if (current.empty())
    return;
  double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  // A phase that comes back (e.g. two pipelines of one phase) adds up.
  if (!timings.empty() && timings.back().phase == current)
    timings.back().seconds += seconds;
  else
    timings.push_back({current, seconds, 0});
  timings.back().peakMemoryBytes = getPeakMemoryBytes();
  current.clear();
}

namespace mlc::compiler {
/// Switches phases as the top-level passes start, and reports progress.
class PhaseInstrumentation : public PassInstrumentation {
public:
  PhaseInstrumentation(PhaseTimer &timer, ProgressCallback progress)
      : timer(timer), progress(std::move(progress)) {
    for (const auto &[phase, count] : timer.pipelinePhases)
      total += count;
  }

  void runBeforePass(Pass *pass, Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (isa<ModuleOp>(op) && !op->getParentOp()) {
      // Which phase top-level pass `index` belongs to.
      unsigned first = 0;
      for (const auto &[phase, count] : timer.pipelinePhases) {
        if (index < first + count) {
          if (phase != timer.current)
            timer.begin(phase);
          break;
        }
        first += count;
      }
      ++index;
      started.clear();
      functions = 0;
      for (Operation &f : cast<ModuleOp>(op).getBody()->getOperations())
        if (auto func = dyn_cast<FunctionOpInterface>(f))
          functions += !func.isExternal();
    }
    // Pass collections (`func.func(...)`) have no argument: their passes
    // report themselves.
    if (!progress || pass->getArgument().empty())
      return;
    Progress now;
    now.phase = timer.current;
    now.pass = index;
    now.passes = total;
    now.passName = pass->getArgument();
    if (isa<FunctionOpInterface>(op)) {
      started.insert(op);
      now.function = started.size();
      now.functions = functions;
    }
    progress(now);
  }

private:
  PhaseTimer &timer;
  ProgressCallback progress;
  unsigned index = 0, total = 0;
  /// Passes on functions may run on several threads at once.
  std::mutex mutex;
  /// The functions passes of the current top-level pass have started on.
  llvm::DenseSet<Operation *> started;
  unsigned functions = 0;
};
} // namespace mlc::compiler

std::unique_ptr<PassInstrumentation>
PhaseTimer::createInstrumentation(ProgressCallback progress) {
  return std::make_unique<PhaseInstrumentation>(*this, std::move(progress));
}
