//===- CUDADriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"

#include <dlfcn.h>
#include <mutex>

using namespace mlc::runtime::cuda;

namespace {
/// Looks `name` up into `slot`; false when the library lacks it.
template <typename Fn>
bool bind(void *library, Fn &slot, const char *name) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  return slot != nullptr;
}

struct Loaded {
  Driver driver{};
  std::string error;
  bool ok = false;
};

Loaded load() {
  Loaded l;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    l.error = std::string("cannot load the NVIDIA driver (libcuda.so.1): ") +
              (why ? why : "not found") +
              "; GPU models need an NVIDIA GPU and its driver";
    return l;
  }
  Driver &d = l.driver;
  const char *missing = nullptr;
  auto need = [&](auto &slot, const char *name) {
    if (!missing && !bind(library, slot, name))
      missing = name;
  };
  need(d.cuInit, "cuInit");
  need(d.cuDeviceGetCount, "cuDeviceGetCount");
  need(d.cuDeviceGet, "cuDeviceGet");
  need(d.cuDeviceGetName, "cuDeviceGetName");
  need(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  need(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  need(d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  need(d.cuCtxSetCurrent, "cuCtxSetCurrent");
  need(d.cuModuleLoadData, "cuModuleLoadData");
  need(d.cuModuleUnload, "cuModuleUnload");
  need(d.cuModuleGetFunction, "cuModuleGetFunction");
  need(d.cuMemAlloc, "cuMemAlloc_v2");
  need(d.cuMemAllocManaged, "cuMemAllocManaged");
  need(d.cuMemFree, "cuMemFree_v2");
  need(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  need(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  need(d.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
  need(d.cuLaunchKernel, "cuLaunchKernel");
  need(d.cuStreamSynchronize, "cuStreamSynchronize");
  need(d.cuEventCreate, "cuEventCreate");
  need(d.cuEventRecord, "cuEventRecord");
  need(d.cuEventSynchronize, "cuEventSynchronize");
  need(d.cuEventDestroy, "cuEventDestroy_v2");
  need(d.cuGetErrorName, "cuGetErrorName");
  // Renamed in CUDA 12.8; older drivers have only the first.
  if (!bind(library, d.cuEventElapsedTime, "cuEventElapsedTime_v2"))
    need(d.cuEventElapsedTime, "cuEventElapsedTime");
  if (missing) {
    l.error = std::string("the NVIDIA driver (libcuda.so.1) has no ") +
              missing + ": it is too old";
    return l;
  }
  if (CUresult r = d.cuInit(0)) {
    l.error = describe(d, "cuInit", r) +
              " (no usable NVIDIA GPU, or the driver is not running)";
    return l;
  }
  l.ok = true;
  return l;
}
} // namespace

const Driver *mlc::runtime::cuda::getDriver(std::string &error) {
  static Loaded loaded = load();
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

std::string mlc::runtime::cuda::describe(const Driver &driver, const char *what,
                                         CUresult result) {
  const char *name = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  return std::string(what) + ": " +
         (name ? name : "CUDA error " + std::to_string(result));
}
