#!/usr/bin/python3
# ===- onnx_node_import.py - Import every ONNX node-test model ------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# Runs `mlc-compile --emit=input` on every model.onnx of ONNX's backend node
# tests (Debian's libonnx-testdata) and sorts the outcomes:
#   imported  exit 0, the graph IR verified
#   rejected  exit 1 with a diagnostic (for example an unsupported op)
#   crashed   anything else: a signal, an abort, another exit code, no
#             diagnostic, or a time-out
# Exits 1 when any model crashed or fewer models import than --min-imported.
# With --write-doc it writes the per-op table of docs/Conformance.md.
#
# ===--------------------------------------------------------------------=== #

import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

NODE_DIR = "/usr/share/libonnx-testdata/data/node"


def run_one(tool, test):
    model = os.path.join(NODE_DIR, test, "model.onnx")
    try:
        proc = subprocess.run([tool, model, "--emit=input", "-o", os.devnull],
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return test, "crashed", "timed out after 60 s"
    err = proc.stderr.strip()
    if proc.returncode == 0:
        return test, "imported", ""
    if proc.returncode == 1 and "error:" in err:
        return test, "rejected", err.splitlines()[0]
    return test, "crashed", f"exit {proc.returncode}: {err[:300]}"


def op_of(test):
    """The op a node test exercises: test_conv_with_strides -> conv."""
    return re.sub(r"^test_", "", test).split("_")[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool", help="path to mlc-compile")
    parser.add_argument("--min-imported", type=int, default=0,
                        help="fail when fewer models import than this")
    parser.add_argument("--write-doc", help="write the Markdown table here")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    if not os.path.isdir(NODE_DIR):
        print(f"error: {NODE_DIR} is missing (install libonnx-testdata)")
        return 1
    tests = sorted(t for t in os.listdir(NODE_DIR)
                   if os.path.isfile(os.path.join(NODE_DIR, t, "model.onnx")))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: run_one(args.tool, t), tests))

    counts = collections.Counter(kind for _, kind, _ in results)
    reasons = collections.Counter()
    for _, kind, msg in results:
        if kind == "rejected":
            m = re.search(r"unsupported op type.*?:\s*$", msg)
            reasons[re.sub(r"'[^']*'", "'…'", msg.split(": ", 1)[-1])[:90]] += 1
    for test, kind, msg in results:
        if kind == "crashed":
            print(f"CRASH {test}: {msg}")
    total = len(results)
    share = 100.0 * counts["imported"] / total if total else 0.0
    print(f"node tests: {total}, imported: {counts['imported']} "
          f"({share:.1f}%), rejected with a diagnostic: {counts['rejected']}, "
          f"crashed: {counts['crashed']}")

    if args.write_doc:
        by_op = collections.defaultdict(collections.Counter)
        for test, kind, _ in results:
            by_op[op_of(test)][kind] += 1
        with open(args.write_doc, "w") as f:
            f.write("# ONNX conformance\n\n")
            f.write("## Import of the ONNX backend node tests\n\n")
            f.write("`utils/onnx_node_import.py build/bin/mlc-compile "
                    "--write-doc docs/Conformance.md` runs `mlc-compile "
                    "--emit=input` on every `model.onnx` under "
                    f"`{NODE_DIR}` (Debian's libonnx-testdata 1.12, "
                    f"{total} models). *Imported* means the graph IR was "
                    "produced and verified; *rejected* means a clean "
                    "diagnostic and exit code 1 (mostly ops not yet "
                    "supported); *crashed* is anything else and fails "
                    "`make check`. Numerical conformance (running the models "
                    "against the stored outputs) needs the CPU backend's "
                    "graph lowering and is not measured yet.\n\n")
            f.write(f"**{counts['imported']} of {total} models import "
                    f"({share:.1f}%)**, {counts['rejected']} are rejected "
                    f"with a diagnostic, {counts['crashed']} crash.\n\n")
            f.write("| op (from the test name) | tests | imported | rejected |"
                    " crashed |\n|---|---|---|---|---|\n")
            for op in sorted(by_op):
                c = by_op[op]
                f.write(f"| {op} | {sum(c.values())} | {c['imported']} | "
                        f"{c['rejected']} | {c['crashed']} |\n")
    if counts["crashed"]:
        return 1
    if counts["imported"] < args.min_imported:
        print(f"error: {counts['imported']} models imported, fewer than the "
              f"recorded {args.min_imported}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
