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
  for (int s = 0; s < NUM_SAMPLES; ++s) {
    float image[64];
    for (int i = 0; i < 64; ++i)
      image[i] = sample_images[s][i];
    mlc_memref_float_2d in = {image, image, 0, {1, 64}, {64, 1}};
    mlc_memref_float_2d out;
    _mlir_ciface_digits_mlp(&out, &in);
    const float *p = out.aligned + out.offset;
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
    free(out.allocated);
  }
  printf("mlc: %d/%d correct, %d/%d agree with scikit-learn, worst probability "
         "difference %.2e\n",
         correct, NUM_SAMPLES, agree, NUM_SAMPLES, worst);
  return agree == NUM_SAMPLES && worst < 1e-4 ? 0 : 1;
}
