# ===- decoder_steps.py - One compile of a decoder for every step ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   decoder_steps.py WORKDIR
#
# Exports the tiny Llama-style decoder of models/export_decoder.py (KV cache
# in Optimum's layout: past in, present out), compiles it once with its
# symbolic batch, sequence and past length, and runs it as a generation
# loop does: a prompt with an empty past (prefill), then one token at a
# time with the cache growing, for one sequence and for a batch of two
# whose first prompt is left-padded (attention_mask 0). At every step each
# output (logits and every present key and value) is compared with ONNX
# Runtime's on the same inputs, and the next step's past is ONNX Runtime's
# present. Prints "BATCHxSEQ past P: ok (max error E)" per step, or what
# differs; then the errors of two malformed inputs.
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "models"))
import export_decoder  # noqa: E402
import mlc  # noqa: E402
from mlc import comparison  # noqa: E402


def main():
    work = sys.argv[1]
    path = os.path.join(work, "decoder.onnx")
    export_decoder.export(path, "tiny")
    graph = onnx.load(path).graph
    past_names = [i.name for i in graph.input if i.name.startswith("past")]
    present_names = [o.name for o in graph.output
                     if o.name.startswith("present")]
    kv_heads, head_dim = [d.dim_value for d in
                          graph.input[3].type.tensor_type.shape.dim][1::2]
    vocab = export_decoder.SIZES["tiny"][-1]
    library = mlc.load(mlc.compile(path, output=os.path.join(work,
                                                               "decoder.so")))
    rng = np.random.default_rng(5)
    failed = 0
    for batch, prompt, steps, padded in ((1, 5, 3, 0), (2, 4, 2, 2)):
        past = {n: np.zeros((batch, kv_heads, 0, head_dim), np.float32)
                for n in past_names}
        mask = np.ones((batch, prompt), np.int64)
        mask[0, :padded] = 0
        ids = rng.integers(0, vocab, (batch, prompt)).astype(np.int64)
        positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)
        length = 0
        for step in range(steps + 1):
            inputs = {"input_ids": ids, "attention_mask": mask,
                      "position_ids": positions, **past}
            ref = comparison.run_ort(path, inputs)
            got = library.run(inputs)
            errors = []
            for name, value in ref.items():
                diff = comparison.Difference(name, got[name], value, 1e-4)
                if not diff.ok:
                    errors.append(str(diff))
            worst = max(comparison.Difference(n, got[n], v, 1e-4).error
                        for n, v in ref.items())
            where = f"{batch}x{ids.shape[1]} past {length}"
            if errors:
                failed += 1
                print(f"{where}: " + "; ".join(errors))
            else:
                print(f"{where}: ok (max error {worst:.1e})")
            # The next token: the most likely one of each sequence.
            length += ids.shape[1]
            ids = ref["logits"][:, -1].argmax(-1)[:, None].astype(np.int64)
            mask = np.concatenate([mask, np.ones((batch, 1), np.int64)], 1)
            positions = positions[:, -1:] + 1
            past = {p: ref[q] for p, q in zip(past_names, present_names)}
    # Inputs a caller can get wrong: a token past the vocabulary, and an
    # attention mask that does not cover the past and the new tokens.
    empty = {n: np.zeros((1, kv_heads, 0, head_dim), np.float32)
             for n in past_names}
    for what, ids, mask in (
            ("token past the vocabulary", [[1, vocab]], np.ones((1, 2))),
            ("mask too short", [[1, 2]], np.ones((1, 1)))):
        inputs = {"input_ids": np.array(ids, np.int64),
                  "attention_mask": mask.astype(np.int64),
                  "position_ids": np.array([[0, 1]], np.int64), **empty}
        try:
            library.run(inputs)
            print(f"{what}: ran")
        except mlc.MLCError as error:
            print(f"{what}: error: {' '.join(str(error).split())}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
