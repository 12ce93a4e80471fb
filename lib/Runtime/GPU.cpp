//===- GPU.cpp - Running GPU models on an NVIDIA device -------------------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc-runtime/GPU.h"
#include "CUDADriver.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace mlc;
using namespace mlc::runtime;
using namespace mlc::runtime::cuda;

namespace {
using RunGPUFn = int32_t (*)(const abi::GPULauncher *, const void *, void *,
                             const void *const *, void *const *);
} // namespace

struct GPUContext::Impl {
  const Driver *driver = nullptr;
  const Model *model = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> kernels;
  CUdeviceptr arena = 0, weights = 0;
  std::vector<CUdeviceptr> buffers;
  CUevent start = nullptr, stop = nullptr;
  /// The stream of the current run.
  CUstream stream = nullptr;
  /// The first launch that failed in the current run.
  CUresult launchError = 0;
  std::string launchWhat;
  /// Whether the model's host code reads what its kernels write: all its
  /// memory is managed (host-visible).
  bool hostAccess = false;
  /// The records of the context's own outputs of data-decided sizes (the
  /// model fills in a device address and the dims), by output.
  std::vector<std::vector<int64_t>> records;
  /// Host memory given in place of device memory after a failure of the
  /// run: the host code goes on to its end, launching nothing, and may
  /// still read and write its scalars.
  std::set<void *> fallbacks;

  ~Impl() {
    if (!driver)
      return;
    if (context)
      driver->cuCtxSetCurrent(context);
    releaseRecords();
    for (void *host : fallbacks)
      std::free(host);
    for (CUdeviceptr b : buffers)
      driver->cuMemFree(b);
    if (arena)
      driver->cuMemFree(arena);
    if (weights)
      driver->cuMemFree(weights);
    if (start)
      driver->cuEventDestroy(start);
    if (stop)
      driver->cuEventDestroy(stop);
    if (module)
      driver->cuModuleUnload(module);
    if (context)
      driver->cuDevicePrimaryCtxRelease(device);
  }

  /// A device buffer of `bytes` (at least one byte: empty tensors still
  /// get a valid pointer).
  bool allocate(CUdeviceptr &out, int64_t bytes, std::string &error) {
    size_t size = std::max<int64_t>(bytes, 1);
    if (CUresult r =
            hostAccess ? driver->cuMemAllocManaged(&out, size, kMemAttachGlobal)
                       : driver->cuMemAlloc(&out, size)) {
      error = describe(*driver, hostAccess ? "cuMemAllocManaged" : "cuMemAlloc",
                       r) +
              " (" + std::to_string(bytes) + " bytes)";
      return false;
    }
    return true;
  }

  /// Frees the device data the context's own output records hold.
  void releaseRecords() {
    for (std::vector<int64_t> &record : records)
      if (!record.empty() && record[0]) {
        release(this, reinterpret_cast<void *>(record[0]));
        record[0] = 0;
      }
  }

  /// Records the first failure of a run.
  void fail(CUresult r, std::string what) {
    if (launchError)
      return;
    launchError = r ? r : -1;
    launchWhat = std::move(what);
  }

  static void *allocateFor(void *self, int64_t bytes) {
    auto *impl = static_cast<Impl *>(self);
    CUdeviceptr out = 0;
    std::string error;
    if (bytes < 0)
      impl->fail(-1, "the model asked for a buffer of " +
                         std::to_string(bytes) + " bytes");
    else if (!impl->launchError && impl->allocate(out, bytes, error))
      return reinterpret_cast<void *>(out);
    else
      impl->fail(-1, error);
    void *host =
        bytes < 0 ? nullptr : std::calloc(1, std::max<int64_t>(bytes, 1));
    if (host)
      impl->fallbacks.insert(host);
    return host;
  }

  static void release(void *self, void *address) {
    auto *impl = static_cast<Impl *>(self);
    if (impl->fallbacks.erase(address))
      std::free(address);
    else if (address)
      impl->driver->cuMemFree(reinterpret_cast<CUdeviceptr>(address));
  }

  static int32_t synchronize(void *self) {
    auto *impl = static_cast<Impl *>(self);
    if (CUresult r = impl->driver->cuStreamSynchronize(impl->stream))
      impl->fail(r, describe(*impl->driver, "running the model", r));
    return impl->launchError;
  }

  static int32_t launch(void *self, int32_t kernel, const uint32_t *dims,
                        void **args) {
    auto *impl = static_cast<Impl *>(self);
    if (impl->launchError)
      return impl->launchError;
    if (kernel < 0 || static_cast<size_t>(kernel) >= impl->kernels.size()) {
      impl->launchError = -1;
      impl->launchWhat = "the model launched kernel " +
                         std::to_string(kernel) + ", which its image lacks";
      return impl->launchError;
    }
    CUresult r = impl->driver->cuLaunchKernel(
        impl->kernels[kernel], dims[0], dims[1], dims[2], dims[3], dims[4],
        dims[5], /*sharedMemBytes=*/0, impl->stream, args, nullptr);
    if (r) {
      impl->launchError = r;
      impl->launchWhat =
          describe(*impl->driver, "cuLaunchKernel", r) + " for kernel " +
          impl->model->getSignature().gpu->kernels[kernel];
    }
    return r;
  }
};

GPUContext::~GPUContext() = default;

std::unique_ptr<GPUContext> GPUContext::create(const Model &model, int device,
                                               std::string &error) {
  const abi::ModelSignature &signature = model.getSignature();
  if (!signature.gpu) {
    error = "the model was compiled for the CPU (not --target=gpu)";
    return nullptr;
  }
  const Driver *driver = getDriver(error);
  if (!driver)
    return nullptr;
  std::unique_ptr<GPUContext> ctx(new GPUContext());
  ctx->impl = std::make_unique<Impl>();
  Impl &impl = *ctx->impl;
  impl.driver = driver;
  impl.model = &model;
  impl.hostAccess = signature.gpu->hostAccess;
  int count = 0;
  if (CUresult r = driver->cuDeviceGetCount(&count)) {
    error = describe(*driver, "cuDeviceGetCount", r);
    return nullptr;
  }
  if (device < 0 || device >= count) {
    error = "no CUDA device " + std::to_string(device) + " (this machine has " +
            std::to_string(count) + ")";
    return nullptr;
  }
  if (CUresult r = driver->cuDeviceGet(&impl.device, device)) {
    error = describe(*driver, "cuDeviceGet", r);
    return nullptr;
  }
  char name[256] = {0};
  driver->cuDeviceGetName(name, sizeof(name) - 1, impl.device);
  int major = 0, minor = 0;
  driver->cuDeviceGetAttribute(&major, kComputeCapabilityMajor, impl.device);
  driver->cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, impl.device);
  ctx->description = std::string(name) + ", sm_" + std::to_string(major) +
                     std::to_string(minor);
  int managed = 0;
  driver->cuDeviceGetAttribute(&managed, kManagedMemory, impl.device);
  if (impl.hostAccess && !managed) {
    error = "the model reads device memory from its host code (sizes the "
            "data decides, or run-time checks), which needs managed memory; " +
            ctx->description + " has none";
    return nullptr;
  }
  if (CUresult r = driver->cuDevicePrimaryCtxRetain(&impl.context,
                                                    impl.device)) {
    impl.context = nullptr;
    error = describe(*driver, "cuDevicePrimaryCtxRetain", r);
    return nullptr;
  }
  driver->cuCtxSetCurrent(impl.context);
  // A NUL-terminated PTX, which the driver compiles for this device, or a
  // fatbin. A model with nothing to compute (all its tensors empty) has no
  // kernels and an image the driver would refuse: nothing to load.
  std::string image(model.getGPUImage(), model.getGPUImageSize());
  bool hasKernels = !signature.gpu->kernels.empty();
  if (CUresult r = hasKernels
                       ? driver->cuModuleLoadData(&impl.module, image.c_str())
                       : 0) {
    impl.module = nullptr;
    error = describe(*driver, "cuModuleLoadData", r) +
            " (the model's code is for " + signature.gpu->arch + "; this is " +
            ctx->description + ")";
    return nullptr;
  }
  for (const std::string &kernel : signature.gpu->kernels) {
    CUfunction f = nullptr;
    if (CUresult r =
            driver->cuModuleGetFunction(&f, impl.module, kernel.c_str())) {
      error = describe(*driver, "cuModuleGetFunction", r) + " (" + kernel + ")";
      return nullptr;
    }
    impl.kernels.push_back(f);
  }
  if (!impl.allocate(impl.arena, signature.arenaSize, error))
    return nullptr;
  int64_t weightBytes = signature.weights ? signature.weights->size : 0;
  if (!impl.allocate(impl.weights, weightBytes, error))
    return nullptr;
  if (weightBytes)
    if (CUresult r = driver->cuMemcpyHtoD(impl.weights, model.getWeights(),
                                          weightBytes)) {
      error = describe(*driver, "cuMemcpyHtoD", r) + " (the weights)";
      return nullptr;
    }
  impl.records.resize(signature.outputs.size());
  for (const auto *list : {&signature.inputs, &signature.outputs})
    for (const abi::TensorSignature &t : *list) {
      if (list == &signature.outputs && t.isDynamic()) {
        // The model allocates the data; the context keeps its record.
        std::vector<int64_t> &record = impl.records[ctx->outputs.size()];
        record.assign(1 + t.shape.size(), 0);
        ctx->outputs.push_back(reinterpret_cast<uintptr_t>(record.data()));
        continue;
      }
      CUdeviceptr b = 0;
      if (!impl.allocate(b, t.getNumBytes(), error))
        return nullptr;
      impl.buffers.push_back(b);
      (list == &signature.inputs ? ctx->inputs : ctx->outputs).push_back(b);
    }
  if (CUresult r = driver->cuEventCreate(&impl.start, 0)) {
    error = describe(*driver, "cuEventCreate", r);
    return nullptr;
  }
  if (CUresult r = driver->cuEventCreate(&impl.stop, 0)) {
    error = describe(*driver, "cuEventCreate", r);
    return nullptr;
  }
  return ctx;
}

int32_t GPUContext::runOnDevice(const uint64_t *inputBuffers,
                                const uint64_t *outputBuffers,
                                std::string &error, float *milliseconds,
                                void *stream) {
  Impl &impl = *this->impl;
  const Driver &d = *impl.driver;
  const abi::ModelSignature &signature = impl.model->getSignature();
  d.cuCtxSetCurrent(impl.context);
  impl.launchError = 0;
  impl.launchWhat.clear();
  impl.stream = static_cast<CUstream>(stream);
  // The entry point takes arrays of pointers to the buffers. Host code that
  // reads the inputs reads them from the context's managed buffers.
  std::vector<const void *> in, out;
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    CUdeviceptr given = inputBuffers[i];
    if (impl.hostAccess && given != inputs[i])
      if (int64_t bytes = signature.inputs[i].getNumBytes())
        if (CUresult r = d.cuMemcpyDtoD(inputs[i], given, bytes)) {
          error = describe(d, "cuMemcpyDtoD", r) + " (input '" +
                  signature.inputs[i].name + "')";
          return abi::kErrorDevice;
        }
    in.push_back(
        reinterpret_cast<const void *>(impl.hostAccess ? inputs[i] : given));
  }
  // Copies between device buffers do not wait for the host: they must be
  // done before the host code reads the inputs.
  if (impl.hostAccess)
    if (CUresult r = d.cuStreamSynchronize(nullptr)) {
      error = describe(d, "copying the inputs", r);
      return abi::kErrorDevice;
    }
  // The context's own records: the last run's data goes.
  impl.releaseRecords();
  for (size_t i = 0; i < signature.outputs.size(); ++i)
    out.push_back(reinterpret_cast<void *>(outputBuffers[i]));
  abi::GPULauncher launcher{&impl, &Impl::launch, &Impl::allocateFor,
                            &Impl::release, &Impl::synchronize};
  if (milliseconds)
    d.cuEventRecord(impl.start, impl.stream);
  auto run = reinterpret_cast<RunGPUFn>(
      const_cast<void *>(impl.model->getGPUEntry()));
  int32_t rc = run(&launcher, reinterpret_cast<const void *>(impl.weights),
                   reinterpret_cast<void *>(impl.arena), in.data(),
                   const_cast<void *const *>(out.data()));
  if (milliseconds)
    d.cuEventRecord(impl.stop, impl.stream);
  // A failed run hands over no outputs of data-decided size.
  auto failed = [&](int32_t code) {
    for (size_t i = 0; i < signature.outputs.size(); ++i)
      if (signature.outputs[i].isDynamic()) {
        auto *record = reinterpret_cast<int64_t *>(outputBuffers[i]);
        Impl::release(&impl, reinterpret_cast<void *>(record[0]));
        record[0] = 0;
      }
    return code;
  };
  if (impl.launchError) {
    error = impl.launchWhat;
    return failed(abi::kErrorDevice);
  }
  if (CUresult r = d.cuStreamSynchronize(impl.stream)) {
    error = describe(d, "running the model", r);
    return failed(abi::kErrorDevice);
  }
  if (rc == abi::kErrorCheck) {
    // The status word is in the (managed) arena, final after the wait.
    error = impl.model->getCheckMessage(reinterpret_cast<void *>(impl.arena));
    return failed(rc);
  }
  if (rc) {
    error = "the model returned error code " + std::to_string(rc);
    return failed(rc);
  }
  if (milliseconds)
    d.cuEventElapsedTime(milliseconds, impl.start, impl.stop);
  return 0;
}

int32_t GPUContext::run(const void *const *hostInputs,
                        void *const *hostOutputs, std::string &error) {
  Impl &impl = *this->impl;
  const Driver &d = *impl.driver;
  const abi::ModelSignature &signature = impl.model->getSignature();
  d.cuCtxSetCurrent(impl.context);
  for (size_t i = 0; i < signature.inputs.size(); ++i)
    if (int64_t bytes = signature.inputs[i].getNumBytes()) {
      // Managed memory the host code may read: written by the host, so
      // that no copy is still in flight when it does (the last run's
      // kernels are done).
      if (impl.hostAccess) {
        std::memcpy(reinterpret_cast<void *>(inputs[i]), hostInputs[i], bytes);
        continue;
      }
      if (CUresult r = d.cuMemcpyHtoD(inputs[i], hostInputs[i], bytes)) {
        error = describe(d, "cuMemcpyHtoD", r) + " (input '" +
                signature.inputs[i].name + "')";
        return abi::kErrorDevice;
      }
    }
  // An output of data-decided size: the caller's record, filled with a
  // device address that becomes a host copy (malloc, the caller frees).
  std::vector<uint64_t> outs(outputs);
  for (size_t i = 0; i < signature.outputs.size(); ++i)
    if (signature.outputs[i].isDynamic())
      outs[i] = reinterpret_cast<uintptr_t>(hostOutputs[i]);
  int32_t code = runOnDevice(inputs.data(), outs.data(), error);
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    const abi::TensorSignature &t = signature.outputs[i];
    if (!t.isDynamic())
      continue;
    auto *record = static_cast<int64_t *>(hostOutputs[i]);
    auto device = static_cast<CUdeviceptr>(record[0]);
    record[0] = 0;
    if (!device)
      continue;
    int64_t bytes = abi::getDTypeSize(t.dtype);
    for (size_t d = 0; d < t.shape.size(); ++d)
      bytes *= record[1 + d];
    void *host = code ? nullptr : std::malloc(std::max<int64_t>(bytes, 1));
    if (!code && !host) {
      error = "out of host memory for output '" + t.name + "' (" +
              std::to_string(bytes) + " bytes)";
      code = abi::kErrorDevice;
    }
    if (host && bytes)
      if (CUresult r = d.cuMemcpyDtoH(host, device, bytes)) {
        error = describe(d, "cuMemcpyDtoH", r) + " (output '" + t.name + "')";
        code = abi::kErrorDevice;
        std::free(host);
        host = nullptr;
      }
    record[0] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(host));
    Impl::release(&impl, reinterpret_cast<void *>(device));
  }
  if (code)
    return code;
  for (size_t i = 0; i < signature.outputs.size(); ++i)
    if (signature.outputs[i].isDynamic())
      continue;
    else if (int64_t bytes = signature.outputs[i].getNumBytes())
      if (CUresult r = d.cuMemcpyDtoH(hostOutputs[i], outputs[i], bytes)) {
        error = describe(d, "cuMemcpyDtoH", r) + " (output '" +
                signature.outputs[i].name + "')";
        return abi::kErrorDevice;
      }
  return 0;
}
