#!/bin/bash
# ===- gpu_machine_check.sh - Everything that needs an NVIDIA GPU ---------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   bench/gpu_machine_check.sh BUNDLE RESULTS [COMPILE_MODELS]
#
# Runs on a GPU machine, from the source tree, what
#   utils/gpu_node_tests.py prepare build BUNDLE/nodes
#   bench/gpu_bench.py prepare build BUNDLE/models
# put into BUNDLE where mlc builds: the card and driver, the node tests
# against ONNX's stored outputs, the error a wrong input shape gives, and
# the bench models against ONNX Runtime's CPU outputs with their timings
# beside PyTorch eager (and torch.compile for COMPILE_MODELS, comma
# separated); the node tests BUNDLE/nodes/first.txt names run first; and,
# when BUNDLE/default_arch holds a library compiled
# without --gpu-arch with its model.onnx and input_0.npy, that library
# against ONNX Runtime (the driver compiles its PTX for a newer card).
# Writes RESULTS/{device,nodes,errors,models}.txt and models.md.
#
# ===--------------------------------------------------------------------=== #

set -u -o pipefail
bundle=$1
results=$2
compile_models=${3:-}
mkdir -p "$results"
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH="$bundle/models/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mlc_run="$bundle/models/mlc-run"
python=${PYTHON:-$(command -v python3)}
status=0

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$python" -c "import torch, onnxruntime; print('torch', torch.__version__, \
'onnxruntime', onnxruntime.__version__)"
} 2>&1 | tee "$results/device.txt"

first=()
if [ -f "$bundle/nodes/first.txt" ]; then first=(--first "$bundle/nodes/first.txt"); fi
"$python" utils/gpu_node_tests.py run "$bundle/nodes" "$mlc_run" --jobs 12 \
  --write "$results/nodes.txt" "${first[@]}" > /dev/null || status=1
grep -v '^ok ' "$results/nodes.txt" | tail -n 40

# A wrong input shape and a model compiled for the CPU on this machine.
{
  model=$(ls -d "$bundle"/nodes/test_add 2>/dev/null)
  if [ -n "$model" ]; then
    "$python" -c "import numpy as np; np.save('/tmp/wrong.npy', \
np.zeros((2, 2), np.float32))"
    "$mlc_run" "$model/model.so" --device=cuda -i /tmp/wrong.npy \
      -i /tmp/wrong.npy; echo "exit $?"
  fi
} 2>&1 | tee "$results/errors.txt"

# A model compiled for the default architecture (sm_80 code and PTX, which
# the driver compiles for a newer card), against ONNX Runtime.
if [ -d "$bundle/default_arch" ]; then
  d="$bundle/default_arch"
  "$mlc_run" "$d/model.so" --device=cuda -i "$d/input_0.npy" -o "$d/out" &&
  "$python" -c "
import numpy as np, onnxruntime as ort
s = ort.InferenceSession('$d/model.onnx', providers=['CPUExecutionProvider'])
x = np.load('$d/input_0.npy')
ref = s.run(None, {s.get_inputs()[0].name: x})[0]
got = np.load('$d/out/output_0.npy')
print('default arch vs ONNX Runtime: max |d|', np.abs(got - ref).max(),
      'max |ref|', np.abs(ref).max())" 2>&1 | tee -a "$results/errors.txt"
fi

"$python" bench/gpu_bench.py run "$bundle/models" --iterations 20 \
  --torch-compile "$compile_models" --write-doc "$results/models.md" \
  2>&1 | tee "$results/models.txt" || status=1
exit $status
