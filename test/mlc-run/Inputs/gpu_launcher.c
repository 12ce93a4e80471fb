/* Runs a GPU model's host code (linked in as gpu_model.o, header
   gpu_model.h) with a launcher that records each launch instead of
   starting it, and checks what a real one would get: a kernel index in
   range whose name is an entry of the PTX image, positive sizes, and
   arguments that point into the buffers the call was given. */
#define _GNU_SOURCE
#include "gpu_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char arena[1 << 20] __attribute__((aligned(64)));
static char weights[1 << 20] __attribute__((aligned(64)));
static char inputs_data[4][4096] __attribute__((aligned(64)));
static char outputs_data[4][4096] __attribute__((aligned(64)));

static int inside(const char *p, const char *base, size_t size) {
  return p >= base && p < base + size;
}

static int launches, failures;

static int32_t record(void *context, int32_t kernel, const uint32_t *dims,
                      void **args) {
  ++launches;
  if (context != (void *)&launches || kernel < 0 ||
      kernel >= GPU_MODEL_GPU_NUM_KERNELS) {
    printf("bad context or kernel %d\n", kernel);
    ++failures;
    return 1;
  }
  const char *name = gpu_model_gpu_kernels[kernel];
  /* The name is in the PTX's .entry, or the cubin's string table. */
  if (!memmem(gpu_model_gpu_image, gpu_model_gpu_image_size, name,
              strlen(name))) {
    printf("kernel %s is not in the image\n", name);
    ++failures;
  }
  size_t threads = (size_t)dims[3] * dims[4] * dims[5];
  printf("launch %s grid %u %u %u block %u %u %u\n", name, dims[0], dims[1],
         dims[2], dims[3], dims[4], dims[5]);
  if (!dims[0] || !dims[1] || !dims[2] || !threads || threads > 1024)
    ++failures;
  /* Every argument is a buffer: a pointer into one of the call's. */
  for (int i = 0; args[i]; ++i) {
    const char *p = *(const char *const *)args[i];
    int ok = inside(p, arena, sizeof arena) ||
             inside(p, weights, sizeof weights);
    for (int k = 0; k < 4; ++k)
      ok |= inside(p, inputs_data[k], sizeof inputs_data[k]) ||
            inside(p, outputs_data[k], sizeof outputs_data[k]);
    if (!ok) {
      printf("argument %d of %s points outside the buffers\n", i, name);
      ++failures;
    }
  }
  return 0;
}

int main(void) {
  const void *inputs[4] = {inputs_data[0], inputs_data[1], inputs_data[2],
                           inputs_data[3]};
  void *outputs[4] = {outputs_data[0], outputs_data[1], outputs_data[2],
                      outputs_data[3]};
  mlc_gpu_launcher launcher = {&launches, record};
  if (GPU_MODEL_ARENA_SIZE > (int64_t)sizeof arena) {
    printf("arena too large for the test\n");
    return 1;
  }
  int32_t rc = gpu_model_run_gpu(&launcher, weights, arena, inputs, outputs);
  printf("rc %d launches %d kernels %d failures %d\n", rc, launches,
         GPU_MODEL_GPU_NUM_KERNELS, failures);
  return rc || failures || !launches;
}
