/*===- sgemm_bench.c - OpenBLAS sgemm and the FMA peak, one thread -------===//
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===//
 *
 *   sgemm_bench N ITERATIONS
 *
 * Prints one JSON line: the median time of OpenBLAS's cblas_sgemm on N x N
 * row-major matrices (run with OPENBLAS_NUM_THREADS=1) and the single-core
 * FMA peak, measured with 12 independent chains of FMAs (within the register
 * budget of AVX2) at the widest vectors the CPU has, both in GFLOP/s. bench/run_bench.py compares mlc's
 * matmul with these numbers in the same run.
 *
 *===----------------------------------------------------------------------===*/

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof(double), compare);
  return v[n / 2];
}

/* 12 independent FMA chains of BYTES-wide vectors held in registers;
 * returns GFLOP/s. GCC contracts `c * a + b` of its vector types into FMAs
 * (-ffp-contract=fast is its default outside strict ISO modes). */
#define DEFINE_FMA_PEAK(NAME, TARGET, BYTES)                                   \
  __attribute__((target(TARGET))) static double NAME(void) {                  \
    typedef float vec __attribute__((vector_size(BYTES)));                     \
    enum { LANES = BYTES / 4 };                                               \
    vec a, b, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11;               \
    for (int l = 0; l < LANES; ++l) {                                         \
      a[l] = 0.999999f;                                                       \
      b[l] = 1e-7f;                                                           \
      c0[l] = c1[l] = c2[l] = c3[l] = c4[l] = c5[l] = (float)l;               \
      c6[l] = c7[l] = c8[l] = c9[l] = c10[l] = c11[l] = (float)-l;            \
    }                                                                         \
    const long steps = 50000000;                                              \
    double start = now();                                                     \
    for (long s = 0; s < steps; ++s) {                                        \
      c0 = c0 * a + b, c1 = c1 * a + b, c2 = c2 * a + b, c3 = c3 * a + b;     \
      c4 = c4 * a + b, c5 = c5 * a + b, c6 = c6 * a + b, c7 = c7 * a + b;     \
      c8 = c8 * a + b, c9 = c9 * a + b, c10 = c10 * a + b;                    \
      c11 = c11 * a + b;                                                      \
    }                                                                         \
    double seconds = now() - start;                                           \
    vec sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;    \
    if (sum[0] == 12345.0f)                                                   \
      puts("");                                                               \
    return 2.0 * LANES * 12 * steps / seconds * 1e-9;                         \
  }

DEFINE_FMA_PEAK(fmaPeak256, "avx2,fma", 32)
DEFINE_FMA_PEAK(fmaPeak512, "avx512f", 64)

/* The FMA peak at the widest vectors the CPU has: 512-bit ones on AVX-512
 * CPUs (Zen 5 runs them at full width, Zen 4 and most Intel parts at about
 * the rate of 256-bit ones), else 256-bit ones. */
static double fmaPeak(int *bits) {
  double peak = fmaPeak256();
  *bits = 256;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    double wide = fmaPeak512();
    if (wide > peak) {
      peak = wide;
      *bits = 512;
    }
  }
  return peak;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: sgemm_bench N ITERATIONS\n");
    return 1;
  }
  int n = atoi(argv[1]), iterations = atoi(argv[2]);
  if (n <= 0 || iterations <= 0 || iterations > 1000) {
    fprintf(stderr, "sgemm_bench: bad N or ITERATIONS\n");
    return 1;
  }
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  double *times = malloc(sizeof(double) * iterations);
  if (!a || !b || !c || !times) {
    fprintf(stderr, "sgemm_bench: out of memory\n");
    return 1;
  }
  for (long i = 0; i < (long)n * n; ++i) {
    a[i] = (float)rand() / RAND_MAX;
    b[i] = (float)rand() / RAND_MAX;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
              b, n, 0.0f, c, n);
  for (int i = 0; i < iterations; ++i) {
    double start = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a,
                n, b, n, 0.0f, c, n);
    times[i] = now() - start;
  }
  double seconds = median(times, iterations);
  int bits = 0;
  double peak = fmaPeak(&bits);
  printf("{\"n\": %d, \"openblas_ms\": %.4f, \"openblas_gflops\": %.2f, "
         "\"fma_peak_gflops\": %.2f, \"fma_peak_bits\": %d}\n",
         n, seconds * 1e3, 2.0 * n * n * n / seconds * 1e-9, peak, bits);
  free(a);
  free(b);
  free(c);
  free(times);
  return 0;
}
