#!/usr/bin/python3
# ===- check_malformed.py - mlc-compile on the malformed-model corpus ---=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   utils/check_malformed.py MLC_COMPILE CORPUS [--timeout S] [-- FLAGS...]
#
# Compiles every model of a corpus that utils/malformed_models.py wrote and
# checks each against CORPUS/expectations.json: a model expected to fail
# must exit with status 1 and print its `match` text (an error, never a
# crash, an abort, a sanitizer report or a hang); one expected to compile
# must exit 0. Prints one line per model that does not, and a summary;
# exits 1 if any did not.
#
# ===--------------------------------------------------------------------=== #

import argparse
import json
import os
import subprocess
import sys

CRASH_MARKERS = ("LLVM ERROR", "PLEASE submit a bug report", "Assertion",
                 "Sanitizer", "runtime error:", "Stack dump")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("compiler")
    parser.add_argument("corpus")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("flags", nargs="*")
    args = parser.parse_args()
    with open(os.path.join(args.corpus, "expectations.json")) as f:
        expectations = json.load(f)
    bad = []
    for name, want in sorted(expectations.items()):
        folder = os.path.join(args.corpus, name)
        model = os.path.join(folder, "model.onnx")
        cmd = [args.compiler, model, "-o", os.path.join(folder, "model.o")]
        cmd += args.flags
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  errors="replace", timeout=args.timeout)
        except subprocess.TimeoutExpired:
            bad.append("%s: no answer within %gs" % (name, args.timeout))
            continue
        out = proc.stdout + proc.stderr
        crash = [m for m in CRASH_MARKERS if m in out]
        if proc.returncode not in (0, 1) or crash:
            bad.append("%s: crashed (exit %d%s): %s" % (
                name, proc.returncode,
                ", " + crash[0] if crash else "", out.strip()[-300:]))
        elif want["expect"] == "ok" and proc.returncode != 0:
            bad.append("%s: expected to compile, got: %s" %
                       (name, out.strip()[-300:]))
        elif want["expect"] == "error":
            if proc.returncode != 1:
                bad.append("%s: expected an error, but it compiled" % name)
            elif "error" not in out or want["match"] not in out:
                bad.append("%s: expected an error with '%s', got: %s" % (
                    name, want["match"], out.strip()[-300:]))
    for line in bad:
        print("check_malformed: " + line)
    print("check_malformed: %d models, %d as expected" %
          (len(expectations), len(expectations) - len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
