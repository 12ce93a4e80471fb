//===- CrashGuard.h - A crash ends the compiler promptly, named -*- C++ -*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the command-line tools do when the compiler itself crashes. LLVM's
// crash handler prints the pretty stack and a symbolized backtrace; both
// allocate memory, so after a heap corruption (a malloc that aborts holding
// its arena's lock) the handler can block forever and the process hangs at
// 0% CPU. The guard runs before LLVM's handler, with nothing but
// async-signal-safe calls:
//   1. it wakes a watchdog thread that ends the process if the rest of the
//      crash handling has not finished within a few seconds;
//   2. it writes one line naming the signal, the pass that was running and
//      the op it ran on (kept in a fixed per-thread buffer by a pass
//      instrumentation, so reading it allocates nothing);
//   3. it hands over to LLVM's handler, then ends the process with the
//      signal.
// Libraries that embed the compiler (the C API, Python) leave signals to
// their host program: only the tools install the guard.
//
//===----------------------------------------------------------------------===//

#ifndef MLC_COMPILER_CRASHGUARD_H
#define MLC_COMPILER_CRASHGUARD_H

#include "mlir/Pass/PassInstrumentation.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace mlc {

/// Installs the guard for the fatal signals (SEGV, BUS, ILL, FPE, ABRT,
/// TRAP, SYS) of this process. Call it after llvm::InitLLVM, whose handler
/// it hands over to. `tool` starts the crash line.
void installCrashGuard(llvm::StringRef tool);

/// Records the pass that runs and the op it runs on for the crash line.
/// When `crashInPass` names a pass (its command-line argument), the pass
/// crashes on purpose before it runs: with `crashInPass` followed by
/// `:segv` (the default) by a segmentation fault, with `:deadlock` by one
/// whose LLVM crash handler then blocks forever, so a test can show that
/// the watchdog ends the process.
std::unique_ptr<mlir::PassInstrumentation>
createCrashContextInstrumentation(llvm::StringRef crashInPass = {});

} // namespace mlc

#endif // MLC_COMPILER_CRASHGUARD_H
