//===- TargetBackend.cpp - Registry of code generators --------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/TargetBackend.h"
#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/GPU/GPUTarget.h"
#include "mlc/Target/NPU/NPUTarget.h"

#include <map>
#include <mutex>

using namespace mlc::target;

TargetBackend::~TargetBackend() = default;

namespace {
struct Entry {
  std::string description;
  TargetBackendFactory factory;
};
struct Registry {
  std::mutex mutex;
  std::map<std::string, Entry> backends;
};
Registry &getRegistry() {
  static Registry registry;
  return registry;
}
} // namespace

void mlc::target::registerTargetBackend(llvm::StringRef name,
                                        llvm::StringRef description,
                                        TargetBackendFactory factory) {
  Registry &r = getRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.backends[name.str()] = Entry{description.str(), std::move(factory)};
}

std::unique_ptr<TargetBackend>
mlc::target::createTargetBackend(llvm::StringRef name,
                                 const TargetOptions &options) {
  TargetBackendFactory factory;
  {
    Registry &r = getRegistry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.backends.find(name.str());
    if (it == r.backends.end())
      return nullptr;
    factory = it->second.factory;
  }
  return factory(options);
}

std::vector<std::pair<std::string, std::string>>
mlc::target::getRegisteredTargetBackends() {
  Registry &r = getRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto &[name, entry] : r.backends)
    names.emplace_back(name, entry.description);
  return names;
}

void mlc::target::registerAllTargetBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTargetBackend(
        "cpu",
        "CPU through LLVM: x86-64 (default) or AArch64 (--mtriple), for the "
        "host's CPU unless --mcpu says otherwise",
        [](const TargetOptions &options) {
          return createCPUTargetBackend(options);
        });
    registerTargetBackend(
        "gpu",
        "NVIDIA GPUs through LLVM's NVPTX backend: host code for this CPU "
        "with the kernels' PTX for --gpu-arch (sm_80 by default) inside",
        [](const TargetOptions &options) {
          return createGPUTargetBackend(options);
        });
    registerTargetBackend(
        "npu",
        "mlc's NPU (--npu-config: edge, large or a JSON description), run "
        "in its simulator (mlc-run --device=npu-sim); what it does not take "
        "runs on this CPU in the same object",
        [](const TargetOptions &options) {
          return createNPUTargetBackend(options);
        });
  });
}
