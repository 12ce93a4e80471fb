//===- Model.cpp - Load and run a compiled model library ------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/Model.h"
#include "mlc-runtime/HostCPU.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>

using namespace mlc;
using namespace mlc::runtime;

namespace {
using RunFn = int32_t (*)(void *, const void *const *, void *const *);
using RunWithWeightsFn = int32_t (*)(const void *, void *, const void *const *,
                                     void *const *);
/// The entry points of a model with symbolic dims: their values first.
using RunDimsFn = int32_t (*)(const int64_t *, void *, const void *const *,
                              void *const *);
using RunWithWeightsDimsFn = int32_t (*)(const int64_t *, const void *, void *,
                                         const void *const *, void *const *);

/// `size` bytes of zeroed memory aligned to `alignment` (at least one
/// alignment unit, so that empty buffers are still valid pointers).
char *allocateAligned(int64_t size, int64_t alignment) {
  int64_t rounded = std::max<int64_t>(
      (size + alignment - 1) / alignment * alignment, alignment);
  auto *data = static_cast<char *>(std::aligned_alloc(alignment, rounded));
  if (data)
    std::memset(data, 0, rounded);
  return data;
}

/// The directory part of `path`, with its slash, or "".
std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}
} // namespace

Model::~Model() {
  std::free(weights);
  if (signature.bufferCacheOffset)
    abi::releaseBufferCache(*signature.bufferCacheOffset, arena);
  std::free(arena);
  if (library)
    dlclose(library);
}

std::unique_ptr<Model> Model::load(const std::string &path,
                                   const std::string &weightsPath,
                                   std::string &error) {
  std::unique_ptr<Model> model(new Model());
  // dlopen searches the library path for a name without a slash; the
  // argument is a file, so make it a path.
  std::string loadPath =
      path.find('/') == std::string::npos ? "./" + path : path;
  model->library = dlopen(loadPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model->library) {
    const char *message = dlerror();
    error = "cannot load " + path + ": " + (message ? message : "unknown error");
    return nullptr;
  }
  std::string notAModel =
      path + " is not a model library made by mlc-compile -o MODEL.so (no ";
  auto *metadata = static_cast<const char *>(
      dlsym(model->library, abi::kSharedMetadataSymbol.data()));
  if (!metadata) {
    error = notAModel + std::string(abi::kSharedMetadataSymbol) + ")";
    return nullptr;
  }
  if (!abi::parseModelSignature(metadata, model->signature, error)) {
    error = path + ": " + error;
    return nullptr;
  }
  const abi::ModelSignature &signature = model->signature;
  if (signature.target) {
    std::vector<std::string> missing =
        abi::getMissingFeatures(*signature.target);
    if (!missing.empty()) {
      error = path + " was compiled for " +
              (signature.target->cpu.empty() ? std::string("a CPU")
                                             : signature.target->cpu) +
              " and needs CPU features this machine lacks:";
      for (const std::string &feature : missing)
        error += " " + feature;
      error += " (compile it on this machine without --mcpu, or with "
               "--mcpu=generic for any CPU of its architecture)";
      return nullptr;
    }
  }
  std::string_view runSymbol = signature.gpu ? abi::kSharedRunGPUSymbol
                               : signature.npu ? abi::kSharedRunNPUSymbol
                               : signature.weights
                                   ? abi::kSharedRunWithWeightsSymbol
                                   : abi::kSharedRunSymbol;
  model->entry = dlsym(model->library, runSymbol.data());
  if (!model->entry) {
    error = notAModel + std::string(runSymbol) + ")";
    return nullptr;
  }
  if (signature.gpu) {
    model->gpuImage = static_cast<const char *>(
        dlsym(model->library, abi::kSharedGPUImageSymbol.data()));
    auto *size = static_cast<const int64_t *>(
        dlsym(model->library, abi::kSharedGPUImageSizeSymbol.data()));
    if (!model->gpuImage || !size) {
      error = notAModel + std::string(abi::kSharedGPUImageSymbol) + ")";
      return nullptr;
    }
    model->gpuImageSize = *size;
  }
  if (signature.npu) {
    model->npuImage = static_cast<const uint8_t *>(
        dlsym(model->library, abi::kSharedNPUImageSymbol.data()));
    auto *size = static_cast<const int64_t *>(
        dlsym(model->library, abi::kSharedNPUImageSizeSymbol.data()));
    if (!model->npuImage || !size) {
      error = notAModel + std::string(abi::kSharedNPUImageSymbol) + ")";
      return nullptr;
    }
    model->npuImageSize = *size;
    for (const abi::NPUCode::Program &p : signature.npu->programs)
      if (p.offset > model->npuImageSize ||
          p.size > model->npuImageSize - p.offset) {
        error = path + ": an NPU program lies outside the image";
        return nullptr;
      }
  }
  // Kernel timings, when compiled with --profile.
  auto *counters = static_cast<int64_t *>(
      dlsym(model->library, (signature.name + "_profile").c_str()));
  auto *names = static_cast<const char *>(
      dlsym(model->library, (signature.name + "_profile_names").c_str()));
  if (counters && names) {
    std::string all(names);
    for (size_t start = 0, end; (end = all.find('\n', start)) !=
                                std::string::npos;
         start = end + 1)
      model->profileKernels.push_back(all.substr(start, end - start));
    model->profileCounters = counters;
  }

  if (signature.weights) {
    std::string file = weightsPath.empty()
                           ? directoryOf(loadPath) + signature.weights->file
                           : weightsPath;
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) {
      error = "cannot read the weights of " + path + " from " + file + ": " +
              std::strerror(errno) +
              " (it was compiled with --weights=external; pass --weights FILE)";
      return nullptr;
    }
    int64_t size = static_cast<int64_t>(in.tellg());
    if (size != signature.weights->size) {
      error = "weights file " + file + " has " + std::to_string(size) +
              " bytes; " + path + " needs " +
              std::to_string(signature.weights->size);
      return nullptr;
    }
    model->weights = allocateAligned(size, abi::kWeightsAlignment);
    in.seekg(0);
    if (!model->weights || !in.read(model->weights, size)) {
      error = "cannot read the " + std::to_string(size) +
              "-byte weights file " + file;
      return nullptr;
    }
    if (abi::hashWeights(model->weights, size) != signature.weights->hash) {
      error = "weights file " + file + " does not belong to " + path +
              " (checksum differs)";
      return nullptr;
    }
  } else if (!weightsPath.empty()) {
    error = path + " has its weights inside; a weights file is only for "
                   "libraries compiled with --weights=external";
    return nullptr;
  }

  model->arena = allocateAligned(signature.arenaSize, abi::kArenaAlignment);
  if (!model->arena) {
    error = "cannot allocate the " + std::to_string(signature.arenaSize) +
            "-byte arena";
    return nullptr;
  }
  return model;
}

int32_t Model::run(const void *const *inputs, void *const *outputs) {
  return run(inputs, outputs, arena);
}

int32_t Model::run(const void *const *inputs, void *const *outputs,
                   void *runArena) const {
  if (!signature.symbols.empty())
    return abi::kErrorShape;
  return runWithDims(nullptr, inputs, outputs, runArena);
}

int32_t Model::runWithDims(const int64_t *dims, const void *const *inputs,
                           void *const *outputs, void *runArena) const {
  if (isGPU() || isNPU())
    return abi::kErrorDevice;
  if (!runArena)
    runArena = arena;
  if (!signature.symbols.empty()) {
    if (!dims)
      return abi::kErrorShape;
    if (weights)
      return reinterpret_cast<RunWithWeightsDimsFn>(entry)(
          dims, weights, runArena, inputs, outputs);
    return reinterpret_cast<RunDimsFn>(entry)(dims, runArena, inputs, outputs);
  }
  if (weights)
    return reinterpret_cast<RunWithWeightsFn>(entry)(weights, runArena, inputs,
                                                     outputs);
  return reinterpret_cast<RunFn>(entry)(runArena, inputs, outputs);
}

Arena::Arena(const Model &model)
    : bytes(allocateAligned(model.getSignature().arenaSize,
                            abi::kArenaAlignment)),
      bufferCacheOffset(model.getSignature().bufferCacheOffset) {}

Arena::~Arena() {
  if (bufferCacheOffset)
    abi::releaseBufferCache(*bufferCacheOffset, bytes);
  std::free(bytes);
}

Model::Profile Model::getProfile() const {
  Profile profile;
  if (!profileCounters)
    return profile;
  profile.kernels = profileKernels;
  for (size_t k = 0; k < profileKernels.size(); ++k)
    profile.nanoseconds.push_back(
        __atomic_load_n(&profileCounters[k], __ATOMIC_RELAXED));
  return profile;
}

void Model::resetProfile() {
  for (size_t k = 0; profileCounters && k < profileKernels.size(); ++k)
    __atomic_store_n(&profileCounters[k], 0, __ATOMIC_RELAXED);
}
