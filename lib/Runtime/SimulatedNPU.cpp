//===- SimulatedNPU.cpp - Running NPU models in the simulator -------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/NPU/SimulatedNPU.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace mlc;
using namespace mlc::runtime;

namespace {
using RunNPUFn = int32_t (*)(const abi::NPULauncher *, void *,
                             const void *const *, void *const *);
using RunNPUWithWeightsFn = int32_t (*)(const abi::NPULauncher *, const void *,
                                        void *, const void *const *,
                                        void *const *);
/// The same with the symbols' values first (a symbolic batch).
using RunNPUDimsFn = int32_t (*)(const int64_t *, const abi::NPULauncher *,
                                 void *, const void *const *, void *const *);
using RunNPUWithWeightsDimsFn = int32_t (*)(const int64_t *,
                                            const abi::NPULauncher *,
                                            const void *, void *,
                                            const void *const *, void *const *);
} // namespace

SimulatedNPU::~SimulatedNPU() { std::free(arena); }

std::unique_ptr<SimulatedNPU> SimulatedNPU::create(const Model &model,
                                                   std::string &error) {
  const abi::ModelSignature &signature = model.getSignature();
  if (!signature.npu) {
    error = "the model was not compiled for the NPU (--target=npu)";
    return nullptr;
  }
  std::unique_ptr<SimulatedNPU> npu(new SimulatedNPU());
  npu->model = &model;
  std::optional<npu::NPUConfig> config =
      npu::parseNPUConfig(signature.npu->config, "the model's NPU", error);
  if (!config)
    return nullptr;
  npu->config = std::move(*config);
  for (size_t i = 0; i < signature.npu->programs.size(); ++i) {
    const abi::NPUCode::Program &p = signature.npu->programs[i];
    std::string problem;
    std::optional<npu::Program> program = npu::parseProgram(
        model.getNPUImage() + p.offset, size_t(p.size), problem);
    if (!program) {
      error = "NPU program " + std::to_string(i) + ": " + problem;
      return nullptr;
    }
    npu->programs.push_back(std::move(*program));
    npu->nodes.push_back(p.node);
  }
  npu->stats.resize(npu->programs.size());
  try {
    npu->simulator = std::make_unique<npu::Simulator>(npu->config);
  } catch (const std::bad_alloc &) {
    error = "cannot allocate the memories of NPU '" + npu->config.name + "'";
    return nullptr;
  }
  int64_t arenaSize = std::max<int64_t>(signature.arenaSize, 1);
  npu->arena = std::aligned_alloc(
      abi::kArenaAlignment, (arenaSize + abi::kArenaAlignment - 1) /
                                abi::kArenaAlignment * abi::kArenaAlignment);
  if (!npu->arena) {
    error = "cannot allocate the " + std::to_string(arenaSize) + "-byte arena";
    return nullptr;
  }
  return npu;
}

int32_t SimulatedNPU::runProgram(void *context, int32_t index,
                                 void *const *buffers) {
  auto *self = static_cast<SimulatedNPU *>(context);
  if (!self->failure.empty())
    return abi::kErrorDevice;
  const abi::ModelSignature &signature = self->model->getSignature();
  if (index < 0 || size_t(index) >= self->programs.size()) {
    self->failure = "the model launched NPU program " + std::to_string(index) +
                    ", which it does not have";
    return abi::kErrorDevice;
  }
  const abi::NPUCode::Program &p = signature.npu->programs[index];
  uint64_t bytes = 0;
  for (const abi::NPUCode::Buffer &b : p.buffers)
    bytes = std::max<uint64_t>(bytes, uint64_t(b.dram + b.bytes));
  try {
    self->dram.assign(bytes, 0);
  } catch (const std::bad_alloc &) {
    self->failure = "NPU program " + std::to_string(index) +
                    ": cannot allocate its " + std::to_string(bytes) +
                    "-byte DRAM window";
    return abi::kErrorDevice;
  }
  for (size_t i = 0; i < p.buffers.size(); ++i)
    std::memcpy(self->dram.data() + p.buffers[i].dram, buffers[i],
                size_t(p.buffers[i].bytes));
  npu::SimulationStats run;
  std::string error;
  if (!self->simulator->run(self->programs[index], self->dram.data(), bytes,
                            run, error)) {
    self->failure = "NPU program " + std::to_string(index) + ": " + error;
    return abi::kErrorDevice;
  }
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].write)
      std::memcpy(buffers[i], self->dram.data() + p.buffers[i].dram,
                  size_t(p.buffers[i].bytes));
  ProgramStats &s = self->stats[index];
  s.runs += 1;
  s.cycles += run.cycles;
  s.multiplyAccumulates += run.multiplyAccumulates;
  s.bytesLoaded += run.bytesLoaded;
  s.bytesStored += run.bytesStored;
  s.matrixCycles += run.busyCycles[unsigned(npu::Queue::Compute)];
  s.vectorCycles += run.busyCycles[unsigned(npu::Queue::Vector)];
  int64_t loads = run.busyCycles[unsigned(npu::Queue::Load)];
  int64_t stores = run.busyCycles[unsigned(npu::Queue::Store)];
  s.dmaCycles +=
      self->config.dma.channels > 1 ? std::max(loads, stores) : loads + stores;
  return 0;
}

int32_t SimulatedNPU::run(const void *const *inputs, void *const *outputs,
                          std::string &error, const int64_t *dims) {
  failure.clear();
  ++modelRuns;
  abi::NPULauncher launcher{this, &SimulatedNPU::runProgram};
  bool symbolic = !model->getSignature().symbols.empty();
  if (symbolic && !dims)
    return abi::kErrorShape;
  void *entry = const_cast<void *>(model->getNPUEntry());
  int32_t code =
      symbolic && model->getWeights()
          ? reinterpret_cast<RunNPUWithWeightsDimsFn>(entry)(
                dims, &launcher, model->getWeights(), arena, inputs, outputs)
      : symbolic
          ? reinterpret_cast<RunNPUDimsFn>(entry)(dims, &launcher, arena,
                                                  inputs, outputs)
      : model->getWeights()
          ? reinterpret_cast<RunNPUWithWeightsFn>(
                const_cast<void *>(model->getNPUEntry()))(
                &launcher, model->getWeights(), arena, inputs, outputs)
          : reinterpret_cast<RunNPUFn>(const_cast<void *>(
                model->getNPUEntry()))(&launcher, arena, inputs, outputs);
  if (!failure.empty()) {
    error = failure;
    return abi::kErrorDevice;
  }
  return code;
}

SimulatedNPU::ProgramStats SimulatedNPU::getTotal() const {
  ProgramStats total;
  total.runs = modelRuns;
  for (const ProgramStats &s : stats) {
    total.cycles += s.cycles;
    total.multiplyAccumulates += s.multiplyAccumulates;
    total.bytesLoaded += s.bytesLoaded;
    total.bytesStored += s.bytesStored;
    total.matrixCycles += s.matrixCycles;
    total.dmaCycles += s.dmaCycles;
    total.vectorCycles += s.vectorCycles;
  }
  return total;
}

void SimulatedNPU::resetStats() {
  for (ProgramStats &s : stats)
    s = ProgramStats();
  modelRuns = 0;
}
