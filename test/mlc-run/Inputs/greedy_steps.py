# ===- greedy_steps.py - Greedy generation against ONNX Runtime ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   greedy_steps.py WORKDIR optimum|gpt2|genai [--prompts 1,17,128]
#       [--steps 32]
#
# Writes the tiny decoder of one KV-cache layout (models/export_decoder.py:
# PyTorch's export in Optimum's layout, Llama-style or GPT-2-style;
# models/export_genai.py: ONNX Runtime
# GenAI's contrib ops, 4-bit MatMulNBits and GroupQueryAttention), compiles
# it once with its symbolic batch, sequence and past length, and generates
# greedily from seeded prompts twice: with mlc, feeding back its own tokens
# and cache, and with ONNX Runtime, feeding back its own. Prints per prompt
# whether the tokens agree at every step and the largest logit difference
# over all steps, or the first step where they part.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "models"))
import mlc  # noqa: E402
from mlc import comparison  # noqa: E402


def export(layout, path):
    if layout in ("optimum", "gpt2"):
        import export_decoder
        export_decoder.export(path, "tiny",
                              arch="gpt2" if layout == "gpt2" else "llama")
        return export_decoder.SIZES["tiny"][-1]
    import export_genai
    export_genai.export(path, "tiny", bits=4)
    return export_genai.SIZES["tiny"][5]


class Generation:
    """One greedy loop: its tokens so far and its cache."""

    def __init__(self, run, graph, prompt):
        self.run = run
        self.past = [i for i in graph.input if i.name.startswith("past")]
        self.presents = [o.name for o in graph.output
                         if o.name.startswith("present")]
        self.positions = any(i.name == "position_ids" for i in graph.input)
        dims = self.past[0].type.tensor_type.shape.dim
        self.cache = {i.name: np.zeros((1, dims[1].dim_value, 0,
                                        dims[3].dim_value), np.float32)
                      for i in self.past}
        self.ids, self.length, self.tokens = prompt, 0, []

    def step(self):
        seq = self.ids.shape[1]
        feed = {"input_ids": self.ids,
                "attention_mask": np.ones((1, self.length + seq), np.int64),
                **self.cache}
        if self.positions:
            feed["position_ids"] = np.arange(
                self.length, self.length + seq, dtype=np.int64)[None]
        out = self.run(feed)
        logits = out["logits"][:, -1]
        token = int(logits.argmax(-1)[0])
        self.tokens.append(token)
        self.cache = {p.name: out[q] for p, q in zip(self.past, self.presents)}
        self.length += seq
        self.ids = np.array([[token]], np.int64)
        return logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("layout", choices=["optimum", "gpt2", "genai"])
    parser.add_argument("--prompts", default="1,17,128")
    parser.add_argument("--steps", type=int, default=32)
    args = parser.parse_args()
    path = os.path.join(args.work, args.layout + ".onnx")
    vocab = export(args.layout, path)
    graph = onnx.load(path).graph
    library = mlc.load(mlc.compile(
        path, output=os.path.join(args.work, args.layout + ".so")))
    rng = np.random.default_rng(3)
    failed = 0
    for length in (int(p) for p in args.prompts.split(",")):
        prompt = rng.integers(0, vocab, (1, length)).astype(np.int64)
        ours = Generation(library.run, graph, prompt)
        theirs = Generation(lambda f: comparison.run_ort(path, f), graph,
                            prompt)
        worst, parted = 0.0, None
        for step in range(args.steps + 1):
            diff = comparison.Difference("logits", ours.step(),
                                         theirs.step(), 1e-4)
            worst = max(worst, diff.error)
            if not diff.ok or ours.tokens[-1] != theirs.tokens[-1]:
                parted = (step, diff)
                break
        if parted:
            failed += 1
            step, diff = parted
            print(f"prompt {length}: DIFFERS at step {step}: {diff}; tokens "
                  f"{ours.tokens} vs {theirs.tokens}")
        else:
            print(f"prompt {length}: {args.steps} steps, tokens match "
                  f"(max logit error {worst:.1e})")
        # The runtime's own loop (mlc_model_generate) gives the same tokens.
        tokens = library.generate(prompt, max_new_tokens=args.steps + 1)
        same = list(tokens) == theirs.tokens[:len(tokens)]
        failed += not same
        print(f"prompt {length}: generate: "
              f"{'same tokens' if same else 'DIFFERS: ' + str(list(tokens))}")
    # Sampling is repeatable for a seed.
    sample = dict(max_new_tokens=8, temperature=0.9, top_k=40, top_p=0.95)
    first = library.generate(prompt[:, :5], seed=11, **sample)
    again = library.generate(prompt[:, :5], seed=11, **sample)
    print(f"sampling: {'repeats' if list(first) == list(again) else 'DIFFERS'}"
          f" for a seed, {len(first)} tokens")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
