//===- TargetBackend.cpp - Registry of code generators --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/TargetBackend.h"
#include "mlc/Target/CPU/CPUTarget.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <mutex>

using namespace mlc::target;

TargetBackend::~TargetBackend() = default;

namespace {
struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<TargetBackend>> backends;
};
Registry &getRegistry() {
  static Registry registry;
  return registry;
}
} // namespace

void mlc::target::registerTargetBackend(
    std::unique_ptr<TargetBackend> backend) {
  Registry &r = getRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string name = backend->getName().str();
  r.backends[name] = std::move(backend);
}

const TargetBackend *mlc::target::lookupTargetBackend(llvm::StringRef name) {
  Registry &r = getRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.backends.find(name);
  return it == r.backends.end() ? nullptr : it->second.get();
}

std::vector<std::string> mlc::target::getRegisteredTargetBackends() {
  Registry &r = getRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto &entry : r.backends)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

void mlc::target::registerAllTargetBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTargetBackend(createCPUTargetBackend(CPUTargetOptions()));
  });
}
