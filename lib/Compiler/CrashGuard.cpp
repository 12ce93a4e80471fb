//===- CrashGuard.cpp - A crash ends the compiler promptly, named ---------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The signal handler runs before LLVM's and uses only async-signal-safe
// calls (sem_post, write, sigaction, raise, _exit). The watchdog is a
// thread started with the guard, waiting on a semaphore the handler posts:
// not alarm(), which LLVM's handler cancels when it runs llvm-symbolizer
// (ExecuteAndWait). The pass instrumentation
// formats the running pass and op into a fixed per-thread buffer outside
// the handler, so the handler reads it without allocating.
//
//===----------------------------------------------------------------------===//

#include "mlc/Compiler/CrashGuard.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

using namespace mlir;

namespace {
/// Seconds the rest of the crash handling (LLVM's pretty stack and
/// backtrace) may take before the watchdog ends the process.
constexpr unsigned kWatchdogSeconds = 5;
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,
                                 SIGABRT, SIGTRAP, SIGSYS};
/// Nested passes (a pass manager's adaptor, then the pass on each function)
/// recorded per thread; the innermost is the one named.
constexpr int kDepth = 8;
constexpr size_t kEntryBytes = 320;

struct sigaction previousActions[NSIG];
char toolName[64] = "mlc";
volatile sig_atomic_t crashSignal = 0;

thread_local char passEntries[kDepth][kEntryBytes];
thread_local int passDepth = 0;

void writeText(const char *text) {
  size_t length = std::strlen(text);
  while (length > 0) {
    ssize_t written = ::write(STDERR_FILENO, text, length);
    if (written <= 0)
      return;
    text += written;
    length -= static_cast<size_t>(written);
  }
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV, a segmentation fault";
  case SIGBUS:
    return "SIGBUS, a bus error";
  case SIGILL:
    return "SIGILL, an illegal instruction";
  case SIGFPE:
    return "SIGFPE, an arithmetic exception";
  case SIGABRT:
    return "SIGABRT, an abort";
  case SIGTRAP:
    return "SIGTRAP, a trap";
  case SIGSYS:
    return "SIGSYS, a bad system call";
  default:
    return "a fatal signal";
  }
}

/// Ends the process with `sig` as the cause (what a shell and lit's
/// `not --crash` see), whatever handler was installed.
[[noreturn]] void dieWith(int sig) {
  struct sigaction fallback;
  std::memset(&fallback, 0, sizeof(fallback));
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(sig, &fallback, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(sig);
  _exit(128 + sig);
}

sem_t crashPosted;

/// The watchdog thread: once a crash is posted, gives the crash handling
/// kWatchdogSeconds, then ends the process.
void *watchdog(void *) {
  while (sem_wait(&crashPosted) != 0) {
  }
  struct timespec left = {kWatchdogSeconds, 0};
  while (nanosleep(&left, &left) != 0) {
  }
  writeText(toolName);
  writeText(": the crash handler did not finish within a few seconds (a "
            "corrupted heap can block it); exiting\n");
  dieWith(crashSignal ? crashSignal : SIGABRT);
}

void onCrash(int sig, siginfo_t *info, void *context) {
  if (crashSignal)
    dieWith(sig); // a crash inside the crash handling
  crashSignal = sig;
  sem_post(&crashPosted);

  writeText(toolName);
  writeText(": internal compiler error: ");
  writeText(signalName(sig));
  if (passDepth > 0) {
    writeText(" in ");
    writeText(passEntries[std::min(passDepth, kDepth) - 1]);
  } else {
    writeText(" outside any pass");
  }
  writeText("; please report it with the model\n");

  // LLVM's handler: the pretty stack (program arguments, LLVM passes) and
  // the backtrace.
  const struct sigaction &previous = previousActions[sig];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction)
      previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL &&
             previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  }
  dieWith(sig);
}

/// Blocks forever: stands for a crash handler that deadlocks.
void blockForever(void *) {
  for (;;)
    pause();
}

struct CrashContextInstrumentation : PassInstrumentation {
  explicit CrashContextInstrumentation(StringRef crashInPass) {
    auto [name, mode] = crashInPass.split(':');
    crashPass = name.str();
    deadlock = mode == "deadlock";
  }

  void runBeforePass(Pass *pass, Operation *op) override {
    if (passDepth < kDepth) {
      llvm::SmallString<kEntryBytes> text;
      llvm::raw_svector_ostream os(text);
      StringRef argument = pass->getArgument();
      os << "pass '" << (argument.empty() ? pass->getName() : argument)
         << "' on '" << op->getName();
      if (auto symbol = op->getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName()))
        os << " @" << symbol.getValue();
      os << "'";
      if (!isa<UnknownLoc>(op->getLoc()))
        os << " (" << op->getLoc() << ")";
      size_t length = std::min(text.size(), kEntryBytes - 1);
      std::memcpy(passEntries[passDepth], text.data(), length);
      passEntries[passDepth][length] = '\0';
    }
    ++passDepth;
    if (!crashPass.empty() && pass->getArgument() == crashPass) {
      if (deadlock)
        llvm::sys::AddSignalHandler(blockForever, nullptr);
      raise(SIGSEGV);
    }
  }
  void runAfterPass(Pass *, Operation *) override { --passDepth; }
  void runAfterPassFailed(Pass *, Operation *) override { --passDepth; }

  std::string crashPass;
  bool deadlock = false;
};
} // namespace

void mlc::installCrashGuard(llvm::StringRef tool) {
  size_t length = std::min(tool.size(), sizeof(toolName) - 1);
  std::memcpy(toolName, tool.data(), length);
  toolName[length] = '\0';
  // The watchdog thread takes no signals: they stay with the threads that
  // crash.
  if (sem_init(&crashPosted, 0, 0) != 0)
    return;
  sigset_t all, previousMask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previousMask);
  pthread_t thread;
  int started = pthread_create(&thread, nullptr, watchdog, nullptr);
  pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
  if (started != 0)
    return;
  pthread_detach(thread);
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = onCrash;
  // SA_NODEFER: a second crash, or the watchdog's signal, is not held back
  // while the first is handled.
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int sig : kFatalSignals)
    sigaction(sig, &action, &previousActions[sig]);
}

std::unique_ptr<PassInstrumentation>
mlc::createCrashContextInstrumentation(llvm::StringRef crashInPass) {
  return std::make_unique<CrashContextInstrumentation>(crashInPass);
}
