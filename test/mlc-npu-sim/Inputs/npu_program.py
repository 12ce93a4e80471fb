# ===- npu_program.py - Write NPU command streams from Python ------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   npu_program.py matmul OUT.npu DRAM.bin M K N [--double-buffer]
#
# Writes, from the layout in docs/NPU.md alone (an independent writer of
# the format), an int8 program computing C[M x N] = A[M x K] B[K x N] in
# blocks of 16 rows of A, and a DRAM image with random A at 0, B after it
# and room for C; prints where C is. With --double-buffer, block i+1 loads
# while block i multiplies, its buffers in separate banks.

import struct
import sys

import numpy as np

LOAD, STORE, MATMUL = 1, 2, 3
INT8, INT32 = 1, 2
SCRATCHPAD, ACCUMULATOR = 0, 1


def command(opcode, type_, memory=SCRATCHPAD, signal=-1, wait=0, dram=0,
            local=0, local2=0, local3=0, rows=0, cols=0, depth=0, stride=0):
    return struct.pack("<BBBBBBBbH6xQIIIIIIIfi4x", opcode, type_, type_, 4,
                       memory, 0, 0, signal, wait, dram, local, local2,
                       local3, rows, cols, depth, stride, 1.0, 0)


def main():
    _, kind, out, image, m, k, n = sys.argv[:7]
    assert kind == "matmul"
    m, k, n = int(m), int(k), int(n)
    double = "--double-buffer" in sys.argv
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    b_at, c_at = m * k, m * k + k * n
    cmds = [command(LOAD, INT8, signal=0, dram=b_at, local=0, rows=k, cols=n,
                    stride=n)]
    block = 16
    for i in range(m // block):
        j = i % 2 if double else 0
        a_local = 65536 * (1 + j) if double else 4096
        c_local = 32768 * j if double else 0
        wait_load = (1 << (6 + j)) if double and i >= 2 else 0
        if not double and i > 0:
            wait_load = 1 << 3  # the previous store
        cmds.append(command(LOAD, INT8, signal=1, wait=wait_load,
                            dram=i * block * k, local=a_local, rows=block,
                            cols=k, stride=k))
        cmds.append(command(MATMUL, INT8, signal=2,
                            wait=(1 if i == 0 else 0) | 2, local=a_local,
                            local2=0, local3=c_local, rows=block, cols=n,
                            depth=k))
        cmds.append(command(STORE, INT32, memory=ACCUMULATOR,
                            signal=(6 + j) if double else 3, wait=1 << 2,
                            dram=c_at + i * block * n * 4, local=c_local,
                            rows=block, cols=n, stride=n * 4))
    with open(out, "wb") as f:
        f.write(b"MLCNPU\0\0" + struct.pack("<II", 1, len(cmds)))
        f.write(b"".join(cmds))
    dram = np.zeros(c_at + m * n * 4, np.uint8)
    dram[:m * k] = a.view(np.uint8).ravel()
    dram[b_at:c_at] = b.view(np.uint8).ravel()
    dram.tofile(image)
    np.save(image + ".want.npy", a.astype(np.int32) @ b.astype(np.int32))
    print(c_at)


if __name__ == "__main__":
    main()
