/* A CUDA driver on a machine without a GPU: cuInit fails with
   CUDA_ERROR_NO_DEVICE, as the real driver does there. Every function the
   runtime looks up exists. */
typedef int CUresult;
#define FN(name) CUresult name() { return 100; }
CUresult cuInit(unsigned flags) { (void)flags; return 100; }
CUresult cuGetErrorName(CUresult r, const char **name) {
  *name = r == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
FN(cuDeviceGetCount)
FN(cuDeviceGet) FN(cuDeviceGetName) FN(cuDeviceGetAttribute)
    FN(cuDevicePrimaryCtxRetain) FN(cuDevicePrimaryCtxRelease_v2)
        FN(cuCtxSetCurrent) FN(cuModuleLoadData) FN(cuModuleUnload)
            FN(cuModuleGetFunction) FN(cuMemAlloc_v2) FN(cuMemFree_v2)
                FN(cuMemcpyHtoD_v2) FN(cuMemcpyDtoH_v2) FN(cuLaunchKernel)
                    FN(cuMemAllocManaged) FN(cuMemcpyDtoD_v2)
                        FN(cuStreamSynchronize) FN(cuEventCreate)
                            FN(cuEventRecord) FN(cuEventSynchronize)
                                FN(cuEventElapsedTime_v2) FN(cuEventDestroy_v2)
