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
 * FMA peak, measured with 12 independent chains of 8-wide FMAs (the register
 * budget of AVX2), both in GFLOP/s. bench/run_bench.py compares mlc's
 * matmul with these numbers in the same run.
 *
 *===----------------------------------------------------------------------===*/

#include <cblas.h>
#include <immintrin.h>
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

/* 12 independent FMA chains held in registers; returns GFLOP/s. */
__attribute__((target("avx2,fma"))) static double fmaPeak(void) {
  __m256 c0 = _mm256_set1_ps(0), c1 = _mm256_set1_ps(1),
         c2 = _mm256_set1_ps(2), c3 = _mm256_set1_ps(3),
         c4 = _mm256_set1_ps(4), c5 = _mm256_set1_ps(5),
         c6 = _mm256_set1_ps(6), c7 = _mm256_set1_ps(7),
         c8 = _mm256_set1_ps(8), c9 = _mm256_set1_ps(9),
         c10 = _mm256_set1_ps(10), c11 = _mm256_set1_ps(11);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  const long steps = 50000000;
  double start = now();
  for (long s = 0; s < steps; ++s) {
    c0 = _mm256_fmadd_ps(c0, a, b);
    c1 = _mm256_fmadd_ps(c1, a, b);
    c2 = _mm256_fmadd_ps(c2, a, b);
    c3 = _mm256_fmadd_ps(c3, a, b);
    c4 = _mm256_fmadd_ps(c4, a, b);
    c5 = _mm256_fmadd_ps(c5, a, b);
    c6 = _mm256_fmadd_ps(c6, a, b);
    c7 = _mm256_fmadd_ps(c7, a, b);
    c8 = _mm256_fmadd_ps(c8, a, b);
    c9 = _mm256_fmadd_ps(c9, a, b);
    c10 = _mm256_fmadd_ps(c10, a, b);
    c11 = _mm256_fmadd_ps(c11, a, b);
  }
  double seconds = now() - start;
  __m256 sum = _mm256_add_ps(
      _mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
      _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
  sum = _mm256_add_ps(sum, _mm256_add_ps(_mm256_add_ps(c8, c9),
                                         _mm256_add_ps(c10, c11)));
  if (_mm256_cvtss_f32(sum) == 12345.0f)
    puts("");
  return 2.0 * 8 * 12 * steps / seconds * 1e-9;
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
  printf("{\"n\": %d, \"openblas_ms\": %.4f, \"openblas_gflops\": %.2f, "
         "\"fma_peak_gflops\": %.2f}\n",
         n, seconds * 1e3, 2.0 * n * n * n / seconds * 1e-9, fmaPeak());
  free(a);
  free(b);
  free(c);
  free(times);
  return 0;
}
