/* A CUDA driver with one pretend device whose memory is host memory and
   whose kernels do nothing: it logs the calls that load code and launch
   kernels to stderr, so a test sees what the runtime asks of a driver. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;

CUresult cuInit(unsigned flags) {
  (void)flags;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char **name) {
  *name = r == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDeviceGetName(char *name, int size, int device) {
  (void)device;
  snprintf(name, size, "pretend GPU");
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)attribute;
  (void)device;
  *value = 9;
  return 0;
}
static int context;
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  (void)device;
  *ctx = &context;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return 0;
}
CUresult cuCtxSetCurrent(void *ctx) {
  (void)ctx;
  return 0;
}
static int module;
CUresult cuModuleLoadData(void **out, const void *image) {
  (void)image;
  fprintf(stderr, "fake: cuModuleLoadData\n");
  *out = &module;
  return 0;
}
CUresult cuModuleUnload(void *m) {
  (void)m;
  return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  (void)m;
  fprintf(stderr, "fake: cuModuleGetFunction %s\n", name);
  *f = &module;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t bytes) {
  *out = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return *out ? 0 : 2;
}
CUresult cuMemAllocManaged(CUdeviceptr *out, size_t bytes, unsigned flags) {
  fprintf(stderr, "fake: cuMemAllocManaged %zu flags %u\n", bytes, flags);
  *out = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return *out ? 0 : 2;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes) {
  memmove((void *)(uintptr_t)to, (const void *)(uintptr_t)from, bytes);
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes) {
  memcpy((void *)(uintptr_t)to, from, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes) {
  memcpy(to, (const void *)(uintptr_t)from, bytes);
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **args, void **extra) {
  (void)f;
  (void)shared;
  (void)stream;
  (void)args;
  (void)extra;
  fprintf(stderr, "fake: cuLaunchKernel grid %u %u %u block %u %u %u\n", gx, gy,
          gz, bx, by, bz);
  return 0;
}
CUresult cuStreamSynchronize(void *s) {
  (void)s;
  return 0;
}
static int event;
CUresult cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  *e = &event;
  return 0;
}
CUresult cuEventRecord(void *e, void *s) {
  (void)e;
  (void)s;
  return 0;
}
CUresult cuEventSynchronize(void *e) {
  (void)e;
  return 0;
}
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
  (void)a;
  (void)b;
  *ms = 1.0f;
  return 0;
}
CUresult cuEventDestroy_v2(void *e) {
  (void)e;
  return 0;
}
