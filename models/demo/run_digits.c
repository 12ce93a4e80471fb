/*===- run_digits.c - Run the compiled demo model -------------------------===*
 *
 * Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
 * See LICENSE for license information.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===*
 *
 * Links with the object mlc-compile made from digits_mlp.onnx and classifies
 * the held-out digits in samples.h (written by utils/demo.sh from
 * digits_samples.json), comparing with scikit-learn's probabilities.
 *
 *===----------------------------------------------------------------------===*/

#include "digits_mlp.h"
#include "samples.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int correct = 0, agree = 0;
  double worst = 0.0;
  /* The static memory plan: one arena for every activation, allocated
     once and reused by every run. */
  void *arena = aligned_alloc(DIGITS_MLP_ARENA_ALIGNMENT,
                              DIGITS_MLP_ARENA_SIZE + DIGITS_MLP_ARENA_ALIGNMENT);
  if (!arena)
    return 1;
  for (int s = 0; s < NUM_SAMPLES; ++s) {
    float image[64], p[10];
    for (int i = 0; i < 64; ++i)
      image[i] = sample_images[s][i];
    mlc_tensor in = {image, MLC_FLOAT32, 2, digits_mlp_input0_shape};
    mlc_tensor out = {p, MLC_FLOAT32, 2, digits_mlp_output0_shape};
    int32_t rc = digits_mlp_run_checked(arena, DIGITS_MLP_ARENA_SIZE, 1, &in,
                                        1, &out);
    if (rc != MLC_OK) {
      printf("digits_mlp_run_checked failed with code %d\n", rc);
      return 1;
    }
    int best = 0, ref = 0;
    double diff = 0.0;
    for (int k = 0; k < 10; ++k) {
      if (p[k] > p[best])
        best = k;
      if (sample_probabilities[s][k] > sample_probabilities[s][ref])
        ref = k;
      double d = fabs(p[k] - sample_probabilities[s][k]);
      if (d > diff)
        diff = d;
    }
    if (diff > worst)
      worst = diff;
    correct += best == sample_labels[s];
    agree += best == ref;
    printf("  sample %d: label %d, mlc predicts %d (p = %.4f), scikit-learn %d; "
           "max |p - p_sklearn| = %.2e\n",
           s, sample_labels[s], best, p[best], ref, diff);
  }
  /* The checked entry point refuses a wrongly shaped input. */
  {
    float image[64], p[10];
    const int64_t wrong_shape[] = {1, 63};
    mlc_tensor in = {image, MLC_FLOAT32, 2, wrong_shape};
    mlc_tensor out = {p, MLC_FLOAT32, 2, digits_mlp_output0_shape};
    if (digits_mlp_run_checked(arena, DIGITS_MLP_ARENA_SIZE, 1, &in, 1, &out) !=
        MLC_ERROR_SHAPE) {
      printf("a 1x63 input was not refused\n");
      return 1;
    }
  }
  free(arena);
  printf("mlc: %d/%d correct, %d/%d agree with scikit-learn, worst probability "
         "difference %.2e\n",
         correct, NUM_SAMPLES, agree, NUM_SAMPLES, worst);
  return agree == NUM_SAMPLES && worst < 1e-4 ? 0 : 1;
}
