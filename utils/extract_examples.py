#!/usr/bin/python3
# ===- extract_examples.py - Take the examples out of a Markdown page -----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   extract_examples.py PAGE.md OUTDIR
#
# Writes each fenced code block that follows a line `<!-- example: NAME -->`
# to OUTDIR/NAME and prints the names, so that tests build and run the
# examples the documentation shows.
#
# ===--------------------------------------------------------------------=== #

import os
import re
import sys


def main():
    page, outdir = sys.argv[1:3]
    os.makedirs(outdir, exist_ok=True)
    lines = open(page).read().splitlines()
    name, block, written = None, None, []
    for line in lines:
        if block is not None:
            if line.startswith("```"):
                with open(os.path.join(outdir, name), "w") as f:
                    f.write("\n".join(block) + "\n")
                written.append(name)
                name, block = None, None
            else:
                block.append(line)
            continue
        marker = re.match(r"<!-- example: (\S+) -->", line)
        if marker:
            name = marker.group(1)
        elif name and line.startswith("```"):
            block = []
    if not written:
        print(f"extract_examples: no examples in {page}", file=sys.stderr)
        return 1
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
