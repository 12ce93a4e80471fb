#!/usr/bin/python3
# ===- check_tfidf.py - TfIdfVectorizer modes against a direct count ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_tfidf.py X.npy OUT_DIR
#
# Counts the n-grams of onnx_models.py's tfidf_modes model position by
# position, as the ONNX specification describes them (n-grams of length
# min..max, skips 0..max_skip_count between their tokens, unigrams once),
# and compares mlc-run's TFIDF and IDF outputs. Exits non-zero on a
# mismatch.
#
# ===--------------------------------------------------------------------=== #

import sys

import numpy as np

POOL = [(1,), (2,), (3,), (1, 2), (3, 1)]
COLUMNS = [4, 0, 2, 1, 5]
WEIGHTS = [0.5, 2.0, 3.0, 0.25, 4.0]


def counts(row):
    found = np.zeros(len(POOL))
    for n in (1, 2):
        for skip in range(2 if n > 1 else 1):
            step = skip + 1
            for start in range(len(row) - (n - 1) * step):
                gram = tuple(int(row[start + t * step]) for t in range(n))
                for k, entry in enumerate(POOL):
                    found[k] += gram == entry
    return found


def main():
    x = np.load(sys.argv[1])
    tfidf = np.load(f"{sys.argv[2]}/output_0.npy")
    idf = np.load(f"{sys.argv[2]}/output_1.npy")
    for r, row in enumerate(x):
        c = counts(row)
        want_tfidf = np.zeros(6, np.float32)
        want_idf = np.zeros(6, np.float32)
        for k, j in enumerate(COLUMNS):
            want_tfidf[j] = c[k] * WEIGHTS[k]
            want_idf[j] = WEIGHTS[k] if c[k] > 0 else 0.0
        np.testing.assert_array_equal(tfidf[r], want_tfidf)
        np.testing.assert_array_equal(idf[r], want_idf)
    print("ok")


if __name__ == "__main__":
    main()
