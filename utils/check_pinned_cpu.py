#!/usr/bin/python3
# ===- check_pinned_cpu.py - Codegen tests name their target CPU ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   check_pinned_cpu.py TEST_DIR
#
# The compiler targets the host CPU by default, and the host changes from
# machine to machine (AVX2, AVX-512 with 512-bit or 256-bit vectors): a test
# whose FileCheck reads generated code must say which CPU it compiles for,
# as LLVM's CodeGen tests pin -mcpu. This script reads every lit test's RUN
# lines (continuations joined) and reports each command whose output
# reaches FileCheck and depends on the target CPU without naming one:
#   - mlc-compile with --compile-to=kernels|llvm, --emit=llvm|asm|kernels
#     or --print-schedules, without --mcpu (or --mtriple of another
#     architecture);
#   - mlc-opt running a CPU pipeline (mlc-loop-to-cpu-pipeline,
#     mlc-cpu-loop-to-kernels-pipeline, mlc-cpu-kernels-to-llvm-pipeline)
#     without its mcpu option.
# The CPU passes run alone by mlc-opt take their tiles as options and read
# no host. Exits 1 when any command is unpinned.
#
# ===--------------------------------------------------------------------=== #

import os
import re
import sys

CPU_DEPENDENT = re.compile(
    r"--compile-to[= ](kernels|llvm)\b|--emit[= ](llvm|asm|kernels)\b|"
    r"--print-schedules")
CPU_PIPELINES = re.compile(
    r"mlc-loop-to-cpu-pipeline|mlc-cpu-loop-to-kernels-pipeline|"
    r"mlc-cpu-kernels-to-llvm-pipeline")
OTHER_ARCH = re.compile(r"--mtriple[= ](?!x86_64)\S+|--target[= ]gpu")


def run_lines(path):
    """The RUN commands of the lit test PATH, continuations joined."""
    commands, current = [], ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = re.search(r"RUN:(.*)$", line.rstrip("\n"))
            if not match:
                continue
            text = match.group(1).rstrip()
            if text.endswith("\\"):
                current += text[:-1] + " "
                continue
            commands.append(current + text)
            current = ""
    return commands


def unpinned(command):
    """The parts of the pipeline COMMAND that FileCheck reads and that
    depend on the host CPU."""
    if "FileCheck" not in command:
        return []
    found = []
    for part in command.split("|"):
        if re.search(r"\bmlc-compile\b", part) and CPU_DEPENDENT.search(part):
            if "--mcpu" not in part and not OTHER_ARCH.search(part):
                found.append(part.strip())
        if re.search(r"\bmlc-opt\b", part) and CPU_PIPELINES.search(part):
            if "mcpu=" not in part:
                found.append(part.strip())
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "test"
    problems = 0
    for folder, _, files in os.walk(root):
        if "Inputs" in os.path.relpath(folder, root).split(os.sep):
            continue
        for name in sorted(files):
            if not name.endswith((".test", ".mlir")):
                continue
            path = os.path.join(folder, name)
            for command in run_lines(path):
                for part in unpinned(command):
                    problems += 1
                    print(f"{os.path.relpath(path, root)}: the CPU is not "
                          f"pinned (--mcpu) in: {part}")
    print(f"{problems} unpinned code-generation commands")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
