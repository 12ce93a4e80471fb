#!/usr/bin/env bash
#===- utils/cross_check.sh - Same model on x86-64 and AArch64 ----------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
#   cross_check.sh BUILD_DIR MODEL.onnx [mlc-compile options...]
#
# Compiles MODEL for x86-64 (this machine) and for AArch64
# (--mtriple=aarch64-linux-gnu), links both with utils/run_model.c (the
# AArch64 one statically, with Debian's cross gcc), runs them on the same
# random inputs (the AArch64 one under qemu-user) and requires the outputs
# to agree: max |arm - x86| <= 1e-4 * max |x86| per output.
#
#===--------------------------------------------------------------------===#
set -euo pipefail
BUILD_DIR=$(cd "$1" && pwd)
MODEL=$2
shift 2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v $tool >/dev/null || {
    echo "cross_check: $tool is missing (utils/install-deps.sh installs it)"
    exit 1
  }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MLC="$BUILD_DIR/bin/mlc-compile"
mkdir -p "$WORK/x86" "$WORK/arm"
"$MLC" "$MODEL" "$@" --name=model -o "$WORK/x86/model.o"
"$MLC" "$MODEL" "$@" --name=model --mtriple=aarch64-linux-gnu \
  -o "$WORK/arm/model.o"
# Host objects may run their large kernels on threads: the header says
# whether they need LLVM's OpenMP runtime.
OPENMP=()
if grep -q "_USES_OPENMP 1" "$WORK/x86/model.h"; then
  OMP_DIR=$(llvm-config-22 --libdir 2>/dev/null || echo /usr/lib/llvm-22/lib)
  OPENMP=(-L"$OMP_DIR" -lomp -Wl,-rpath,"$OMP_DIR")
fi
cc -O2 -include "$WORK/x86/model.h" -DMLC_MODEL=model \
  "$ROOT/utils/run_model.c" "$WORK/x86/model.o" -lm "${OPENMP[@]}" \
  -o "$WORK/run-x86"
aarch64-linux-gnu-gcc -O2 -static -include "$WORK/arm/model.h" \
  -DMLC_MODEL=model "$ROOT/utils/run_model.c" "$WORK/arm/model.o" -lm \
  -o "$WORK/run-arm"
file "$WORK/run-arm" | sed 's/^.*: /cross_check: aarch64 runner: /' | cut -c1-100

# Random inputs of the declared sizes and dtypes, then both runs.
/usr/bin/python3 - "$WORK" "$WORK/x86/model.h" <<'PY'
import re, sys
import numpy as np
work, header = sys.argv[1], open(sys.argv[2]).read()
rng = np.random.default_rng(0)
dtypes = {"FLOAT32": np.float32, "FLOAT64": np.float64, "INT64": np.int64,
          "INT32": np.int32, "INT8": np.int8, "UINT8": np.uint8,
          "BOOL": np.bool_}
for k, (dtype, shape) in enumerate(re.findall(
        r"MODEL_INPUT\d+_DTYPE MLC_(\w+)\n.*?\n.*?\n.*?\n"
        r"static const int64_t model_input\d+_shape\[\] = \{([^}]*)\}",
        header)):
    dims = [int(d) for d in shape.split(",") if d.strip().isdigit()]
    t = dtypes[dtype]
    if t is np.float32 or t is np.float64:
        a = rng.standard_normal(dims).astype(t)
    else:
        a = rng.integers(0, 2, dims).astype(t)
    a.tofile(f"{work}/in{k}.bin")
PY
ins=$(ls "$WORK"/in*.bin 2>/dev/null | sort -V || true)
nout=$(sed -n 's/^#define MODEL_NUM_OUTPUTS \([0-9]*\)/\1/p' "$WORK/x86/model.h")
outs_x86=""; outs_arm=""
for k in $(seq 0 $((nout - 1))); do
  outs_x86="$outs_x86 $WORK/x86-out$k.bin"
  outs_arm="$outs_arm $WORK/arm-out$k.bin"
done
"$WORK/run-x86" $ins $outs_x86
start=$(date +%s%N)
qemu-aarch64 "$WORK/run-arm" $ins $outs_arm
end=$(date +%s%N)
echo "cross_check: aarch64 run under qemu-user took $(( (end - start) / 1000000 )) ms"
/usr/bin/python3 - "$WORK" "$nout" "$WORK/x86/model.h" <<'PY'
import re, sys
import numpy as np
work, nout, header = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
worst = 0.0
for k in range(nout):
    dtype = re.search(rf"MODEL_OUTPUT{k}_DTYPE MLC_(\w+)", header).group(1)
    t = {"FLOAT32": np.float32, "FLOAT64": np.float64, "INT64": np.int64,
         "INT32": np.int32, "BOOL": np.bool_}.get(dtype, np.uint8)
    x = np.fromfile(f"{work}/x86-out{k}.bin", t).astype(np.float64)
    a = np.fromfile(f"{work}/arm-out{k}.bin", t).astype(np.float64)
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    err = float(np.max(np.abs(a - x))) if x.size else 0.0
    rel = err / scale if scale else err
    worst = max(worst, rel)
    print(f"cross_check: output {k}: {x.size} values, max |arm - x86| = "
          f"{err:.3e}, max |x86| = {scale:.3e}, relative {rel:.2e}")
ok = worst <= 1e-4
print(f"cross_check: {'ok' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY
