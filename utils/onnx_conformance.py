#!/usr/bin/python3
# ===- onnx_conformance.py - Run ONNX's node tests through mlc -------------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
# For every test of ONNX's backend node tests (Debian's libonnx-testdata):
#   1. import:  mlc-compile model.onnx --emit=input
#   2. compile: mlc-compile model.onnx -o model.so   (x86-64, this machine)
#   3. run:     mlc-run model.so -i input_*.pb -o OUT  for each test_data_set_*
#   4. compare OUT/output_k.npy with output_k.pb by ONNX's rule
#      |got - ref| <= atol + rtol * |ref| (rtol 1e-3, atol 1e-7), exact shapes
#      and dtypes, NaN where the reference has NaN.
# Random-number ops (bernoulli, random*) are checked for shape, dtype and range
# only and reported as such. --freeze-inputs makes every input but the first
# a constant (test_data_set_0's value) for ops whose output shape depends on
# those values (Resize scales and sizes).
#
# --compile-flag F (repeatable) adds F to step 2 (e.g. --target=gpu
# --gpu-host-emulation: the GPU target's kernels as loops on the CPU).
# --gpu ARCH: every test that passes also compiles for --target=gpu
# --gpu-arch=ARCH, and ptxas (--ptxas, default /usr/local/cuda/bin/ptxas; the
# check says it skipped when there is none) must accept its PTX; the report
# gets a GPU column, and --min-gpu is its floor.
#
# --npu CONFIG: every test that passes also compiles for --target=npu
# --npu-config=CONFIG with every matmul and convolution the NPU can run
# placed on it, and runs with mlc-run --device=npu-sim (the NPU simulator);
# float outputs are compared at the NPU's bf16 precision. The report gets an
# NPU column, and --min-npu is its floor.
#
# Outcomes: passed; failed (wrong numbers, shape or dtype, or a run error);
# not-imported / not-lowered (a clean diagnostic: the op or form is not
# supported yet); crashed (a signal, an abort, a time-out or an exit code
# other than 0/1, at any step). Exits 1 on any crash or when fewer models
# import than --min-imported or fewer tests pass than --min-passed. With --write-doc it writes docs/Conformance.md.
#
# ===--------------------------------------------------------------------=== #

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

DATA_DIR = "/usr/share/libonnx-testdata/data"
NODE_DIR = os.path.join(DATA_DIR, "node")
RTOL, ATOL = 1e-3, 1e-7
RANDOM_OPS = ("test_bernoulli", "test_randomuniform", "test_randomnormal")


def step(cmd, timeout=300):
    """(kind, message): ok, error (exit 1 with a diagnostic) or crash."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "crash", f"timed out after {timeout} s"
    err = proc.stderr.strip()
    if proc.returncode == 0:
        return "ok", ""
    if proc.returncode == 1 and "error:" in err:
        first = next(l for l in err.splitlines() if "error:" in l)
        return "error", first
    return "crash", f"exit {proc.returncode}: {err[:300]}"


def load_pb(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def bfloat16_inputs(model_path):
    """Positions of the model's bfloat16 graph inputs."""
    graph = onnx.load(model_path).graph
    initialized = {t.name for t in graph.initializer}
    real = [i for i in graph.input if i.name not in initialized]
    return {k for k, i in enumerate(real)
            if i.type.tensor_type.elem_type == TensorProto.BFLOAT16}


def bfloat16_npy(pb_path, npy_path):
    """ONNX's test data stores bfloat16 tensors as UINT16 TensorProtos of the
    raw bits (NumPy has no bfloat16): pass those bits on as a 2-byte void
    .npy, which mlc-run reads as bfloat16."""
    bits = load_pb(pb_path)
    if bits.dtype != np.uint16:
        return pb_path
    np.save(npy_path, bits.view("V2"))
    return npy_path


def compare(test, got, ref):
    """None when `got` matches `ref`, else what differs."""
    if got.dtype.kind == "V" and got.dtype.itemsize == 2 and \
            ref.dtype == np.uint16:
        # A bfloat16 result against test data's raw-bits convention.
        got = got.view(np.uint16)
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype}, expected {ref.dtype}"
    if test.startswith(RANDOM_OPS):
        if test.startswith("test_bernoulli"):
            ok = np.all((got == 0) | (got == 1))
            return None if ok else "values outside {0, 1}"
        if test.startswith("test_randomuniform"):
            return None if np.all(np.isfinite(got)) else "non-finite values"
        return None if np.all(np.isfinite(got)) else "non-finite values"
    if ref.dtype.kind in "fc":
        g = got.astype(np.float64)
        r = ref.astype(np.float64)
        nan = np.isnan(r)
        if np.any(np.isnan(g) != nan):
            return "NaN where the reference has none, or the reverse"
        same_inf = np.isinf(r) & (g == r)
        bad = ~nan & ~same_inf & (np.abs(g - r) > ATOL + RTOL * np.abs(r))
        if np.any(bad):
            i = np.argmax(np.abs(np.where(bad, g - r, 0)))
            return (f"{int(bad.sum())} of {r.size} values differ; worst "
                    f"got {g.flat[i]!r}, expected {r.flat[i]!r}")
        return None
    if not np.array_equal(got, ref):
        return f"{int((got != ref).sum())} of {ref.size} values differ"
    return None


def freeze_inputs(test, tmp):
    """The test's model with every graph input but the first turned into an
    initializer holding test_data_set_0's value, written to tmp; None when
    the data sets disagree on those values."""
    model = onnx.load(os.path.join(NODE_DIR, test, "model.onnx"))
    sets = sorted(glob.glob(os.path.join(NODE_DIR, test, "test_data_set_*")))
    frozen = []
    for k, graph_input in enumerate(model.graph.input[1:], start=1):
        values = [load_pb(os.path.join(s, f"input_{k}.pb")) for s in sets]
        if any(not np.array_equal(v, values[0]) for v in values[1:]):
            return None
        frozen.append(numpy_helper.from_array(values[0], graph_input.name))
    del model.graph.input[1:]
    model.graph.initializer.extend(frozen)
    path = os.path.join(tmp, "frozen.onnx")
    onnx.save(model, path)
    return path


COMPILE_FLAGS = []
GPU_ARCH = None
PTXAS = None
NPU = None
NPU_RTOL = 1e-2


def check_gpu(compile_tool, model, tmp):
    """The GPU target's outcome for a model: ptx-ok, or what went wrong."""
    ptx = os.path.join(tmp, "model.s")
    kind, msg = step([compile_tool, model, "--target=gpu",
                      f"--gpu-arch={GPU_ARCH}", "-o", ptx])
    if kind != "ok":
        return ("gpu-crashed: " if kind == "crash" else "gpu-error: ") + msg
    if PTXAS:
        kind, msg = step([PTXAS, f"-arch={GPU_ARCH}", ptx, "-o",
                          os.path.join(tmp, "model.cubin")])
        if kind != "ok":
            return "ptxas-error: " + (msg or "rejected")
    return "ptx-ok"


def compare_npu(test, got, ref):
    """compare() at the NPU's precision: its matrix unit takes f32 operands
    as bf16 (8 bits of mantissa), so a float result may be off by
    NPU_RTOL of the output's largest magnitude."""
    if ref.dtype.kind != "f" or got.shape != ref.shape or \
            got.dtype != ref.dtype:
        return compare(test, got, ref)
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    if np.any(np.isnan(g) != np.isnan(r)):
        return "NaN where the reference has none, or the reverse"
    finite = ~np.isnan(r)
    scale = np.abs(r[finite]).max() if finite.any() else 0.0
    err = np.abs(np.where(finite, g - r, 0))
    if err.max(initial=0) > ATOL + NPU_RTOL * scale:
        return (f"max |got - ref| {err.max():.3g} over {NPU_RTOL:g} of "
                f"max |ref| {scale:.3g}")
    return None


def check_npu(compile_tool, run_tool, test, model, freeze, tmp):
    """The NPU's outcome for a passing test: compiled with every matmul and
    convolution the NPU can run placed on it and run in its simulator.
    None when nothing went to the NPU; 'npu-passed'; or what went wrong."""
    placement = os.path.join(tmp, "all-on-npu.json")
    with open(placement, "w") as f:
        f.write('{"*": "npu"}')
    lib = os.path.join(tmp, "npu.so")
    try:
        proc = subprocess.run(
            [compile_tool, model, "--target=npu", f"--npu-config={NPU}",
             f"--npu-placement={placement}", "--print-placement", "-o",
             lib], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "npu-crashed: compile timed out"
    if proc.returncode not in (0, 1):
        return f"npu-crashed: compile exit {proc.returncode}"
    if proc.returncode:
        return "npu-error: " + proc.stderr.strip()[:300]
    if ": npu (" not in proc.stdout:
        return None
    failure = run_data_sets(run_tool, lib, test, model, freeze,
                            os.path.join(tmp, "npu"), ["--device=npu-sim"],
                            compare_npu)
    if failure:
        return f"npu-{failure[0]}: {failure[1]}"
    return "npu-passed"


def run_test(compile_tool, run_tool, test, freeze=False):
    with tempfile.TemporaryDirectory(prefix="mlc-conf-") as tmp:
        result = run_test_in(compile_tool, run_tool, test, freeze, tmp)
        model = os.path.join(NODE_DIR, test, "model.onnx")
        if freeze:
            model = os.path.join(tmp, "frozen.onnx")
        gpu = npu = None
        if GPU_ARCH and result[1] == "passed":
            gpu = check_gpu(compile_tool, model, tmp)
        if NPU and result[1] == "passed":
            os.makedirs(os.path.join(tmp, "npu"), exist_ok=True)
            npu = check_npu(compile_tool, run_tool, test, model, freeze, tmp)
        return result + (gpu, npu)


def run_data_sets(run_tool, lib, test, model, freeze, tmp, run_flags,
                  comparer):
    """Runs every test_data_set_* of `test` with `lib` and compares the
    outputs with `comparer`; None, or (kind, message) of the first
    failure."""
    sets = sorted(glob.glob(os.path.join(NODE_DIR, test,
                                         "test_data_set_*")))
    bf16_inputs = bfloat16_inputs(model)
    for s in sets:
        inputs = sorted(glob.glob(os.path.join(s, "input_*.pb")),
                        key=lambda p: int(re.findall(r"\d+", p)[-1]))
        outdir = os.path.join(tmp, os.path.basename(s))
        cmd = [run_tool, lib, "-o", outdir] + run_flags
        for k, i in enumerate(inputs):
            if freeze and k > 0:
                break
            if k in bf16_inputs:
                i = bfloat16_npy(i, os.path.join(tmp, f"bf16_{k}.npy"))
            cmd += ["-i", i]
        kind, msg = step(cmd)
        if kind == "crash":
            return "crashed", "run: " + msg
        if kind == "error":
            return "failed", "run: " + msg
        refs = sorted(glob.glob(os.path.join(s, "output_*.pb")),
                      key=lambda p: int(re.findall(r"\d+", p)[-1]))
        for k, ref_path in enumerate(refs):
            got_path = os.path.join(outdir, f"output_{k}.npy")
            if not os.path.exists(got_path):
                return "failed", f"no output {k}"
            try:
                ref = load_pb(ref_path)
            except Exception as e:  # a sequence or optional reference
                return "failed", f"reference {k}: {e}"
            why = comparer(test, np.load(got_path), ref)
            if why:
                return "failed", f"{os.path.basename(s)} output {k}: {why}"
    return None


def run_test_in(compile_tool, run_tool, test, freeze, tmp):
    model = os.path.join(NODE_DIR, test, "model.onnx")
    if freeze:
        model = freeze_inputs(test, tmp)
        if model is None:
            return test, "failed", "data sets differ in a frozen input"
    kind, msg = step([compile_tool, model, "--emit=input", "-o", os.devnull])
    if kind == "crash":
        return test, "crashed", "import: " + msg
    if kind == "error":
        return test, "not-imported", msg
    lib = os.path.join(tmp, "model.so")
    kind, msg = step([compile_tool, model, "-o", lib] + COMPILE_FLAGS)
    if kind == "crash":
        return test, "crashed", "compile: " + msg
    if kind == "error":
        return test, "not-lowered", msg
    failure = run_data_sets(run_tool, lib, test, model, freeze, tmp, [],
                            compare)
    if failure:
        return (test,) + failure
    return test, "passed", ""


def op_of(test):
    """The op a node test exercises: test_conv_with_strides -> conv."""
    return re.sub(r"^test_", "", test).split("_")[0]


KINDS = ("passed", "failed", "not-lowered", "not-imported", "crashed")


def count_imported(results):
    return sum(1 for _, k, m, *_ in results
               if k != "not-imported" and not m.startswith("import"))


def write_doc(path, results, counts, total, gpu_ok=None, npu_ok=None):
    by_op = collections.defaultdict(collections.Counter)
    for test, kind, _, gpu, npu in results:
        by_op[op_of(test)][kind] += 1
        if gpu == "ptx-ok":
            by_op[op_of(test)]["gpu"] += 1
        if npu == "npu-passed":
            by_op[op_of(test)]["npu"] += 1
    imported = count_imported(results)
    with open(path, "w") as f:
        f.write("# ONNX conformance\n\n")
        f.write(
            "Generated by `utils/onnx_conformance.py build/bin/mlc-compile "
            "build/bin/mlc-run --gpu sm_90 --npu large --write-doc "
            "docs/Conformance.md` "
            "(`make conformance`; run by "
            "`make check` with a floor on the pass count). For each of the "
            f"{total} tests of ONNX's backend node tests under `{NODE_DIR}` "
            "(Debian's libonnx-testdata 1.12) it imports the model, compiles "
            "it to an x86-64 shared library, runs every `test_data_set_*` "
            "with `mlc-run` and compares with the stored outputs: "
            f"|got − ref| ≤ {ATOL:g} + {RTOL:g}·|ref|, exact shapes and "
            "dtypes. Random-number ops (bernoulli, random*) are checked for "
            "shape, dtype and range only.\n\n"
            "*not-imported*: the importer rejects the model with a "
            "diagnostic (an op or form it does not support); *not-lowered*: "
            "it imports, but the CPU backend has no lowering for an op yet "
            "(also a clean diagnostic); *failed*: compiled and ran but a "
            "result differs (or the run refused its inputs); *crashed*: "
            "anything else, which fails `make check`.\n\n"
            "Known reasons behind the larger groups: many tests feed a "
            "value that determines an output shape as a graph *input*, or "
            "compute a size from values. Reshape, Squeeze/Unsqueeze, "
            "Slice, Split, Expand, Tile, Pad, ReduceSum, OneHot, Range, "
            "ConstantOfShape, TopK, NonZero, Compress, "
            "NonMaxSuppression, Unique, Resize with run-time scales or "
            "sizes, STFT and MelWeightMatrix size their results when the "
            "model runs (outputs of such sizes are allocated by the model; "
            "docs/Architecture.md, \"Sizes decided at run time\"), and the "
            "ops after them take tensors of such sizes. With "
            "`--freeze-inputs` those inputs "
            "become constants holding the stored test values, as exporters "
            "write them: the 24 Resize/Upsample tests pass that way too "
            "(test/Conversion/GraphToLoop/resize.mlir), as do the Pad, "
            "Tile, Squeeze/Unsqueeze, ReduceSum and MaxUnpool ones. Tests "
            "whose graph inputs or outputs are sequences, optionals or "
            "strings import but are not-lowered: a compiled model's "
            "interface takes and returns tensors of numbers (sequences "
            "known at compile time are resolved to tensor ops, "
            "test/Frontend/ONNX/containers.test). `make check` also "
            "runs libonnx-testdata's PyTorch suites (`--suite "
            "pytorch-converted`: 66 of 82 pass, `pytorch-operator`: 24 of "
            "35, none fails or crashes); the others use opset-6 forms (Add, "
            "Gemm, BatchNormalization, PRelu with legacy broadcast "
            "attributes) below the supported opsets 7-21. "
            "libonnx-testdata 1.12 stores bfloat16 tensors as UINT16 "
            "TensorProtos of the raw bits; this script passes them to "
            "`mlc-run` as 2-byte void .npy files (its bfloat16 form) and "
            "compares bfloat16 results bit for bit. FLOAT_to_BFLOAT16 still "
            "fails: that data was made by truncating the float32 bits, while "
            "mlc (like the ONNX specification) rounds to nearest even; the "
            "CastLike bfloat16 tests store a `like` input of shape [1] for a "
            "model that declares [3, 4], which `mlc-run` refuses.\n\n")
        f.write(f"**{counts['passed']} of {total} node tests pass "
                f"({100.0 * counts['passed'] / total:.1f}%)**; "
                f"{imported} import ({100.0 * imported / total:.1f}%); "
                f"{counts['failed']} fail, {counts['not-lowered']} are not "
                f"lowered yet, {counts['not-imported']} are not imported, "
                f"{counts['crashed']} crash.\n\n")
        if gpu_ok is not None:
            checked = ("and ptxas accepts their PTX" if PTXAS else
                       "(ptxas was not installed: the PTX is unchecked)")
            f.write(f"**GPU: {gpu_ok} of the {counts['passed']} passing tests "
                    f"compile for `--target=gpu --gpu-arch={GPU_ARCH}`** "
                    f"{checked} (`--gpu {GPU_ARCH}`; column *gpu*). "
                    "`--gpu-host-emulation` runs the same launches as loops "
                    "on the CPU; on a GPU machine, `utils/gpu_node_tests.py` "
                    "runs them against the same stored outputs (docs/GPU.md "
                    "has the last run's card and count).\n\n")
        if npu_ok is not None:
            on_npu = sum(1 for r in results if r[4])
            f.write(f"**NPU: {npu_ok} of the {on_npu} passing tests that "
                    "have a matmul, convolution or pooling the "
                    f"`{NPU}` NPU can run "
                    f"pass with it placed there** (`--npu {NPU}`; column "
                    "*npu*): compiled with `--target=npu "
                    f"--npu-config={NPU}` and a placement file `{{\"*\": "
                    "\"npu\"}` (every kernel the NPU can run goes there, "
                    "however small) and run with `mlc-run "
                    "--device=npu-sim`. The NPU's matrix unit takes f32 "
                    "operands as bf16, so float results are compared at "
                    f"|got − ref| ≤ {ATOL:g} + {NPU_RTOL:g}·max|ref| "
                    "(docs/NPU.md, Precision).\n\n")
        columns = KINDS + (("gpu",) if gpu_ok is not None else ()) + \
            (("npu",) if npu_ok is not None else ())
        f.write("| op (from the test name) | tests | " +
                " | ".join(columns) + " |\n|---|---|" +
                "---|" * len(columns) + "\n")
        for op in sorted(by_op):
            c = by_op[op]
            tests = sum(c[k] for k in KINDS)
            f.write(f"| {op} | {tests} | " +
                    " | ".join(str(c[k]) for k in columns) + " |\n")
        f.write("\n## Failures\n\n| test | why |\n|---|---|\n")
        for test, kind, msg, *_ in results:
            if kind in ("failed", "crashed"):
                msg = msg.replace("|", "\\|")
                f.write(f"| {test} | {msg[:160]} |\n")
        npu_failures = [(t, r[4]) for r in results
                        for t in [r[0]] if r[4] and r[4] != "npu-passed"]
        if npu_failures:
            f.write("\n## NPU failures\n\n| test | why |\n|---|---|\n")
            for test, why in npu_failures:
                why = why.replace("|", "\\|")
                f.write(f"| {test} | {why[:200]} |\n")
        f.write("\n## Not lowered or not imported\n\nEach test with the "
                "first diagnostic mlc-compile gives for it.\n\n"
                "| test | outcome | why |\n|---|---|---|\n")
        for test, kind, msg, *_ in results:
            if kind in ("not-lowered", "not-imported"):
                why = msg.replace("|", "\\|").replace(
                    "/usr/share/libonnx-testdata/data/node/", "")
                why = why.split("mlc-compile: ", 1)[-1]
                f.write(f"| {test} | {kind} | {why[:200]} |\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("compile_tool", help="path to mlc-compile")
    parser.add_argument("run_tool", help="path to mlc-run")
    parser.add_argument("--min-passed", type=int, default=0,
                        help="fail when fewer tests pass than this")
    parser.add_argument("--min-imported", type=int, default=0,
                        help="fail when fewer models import than this")
    parser.add_argument("--write-doc", help="write the Markdown report here")
    parser.add_argument("--filter", default="",
                        help="only tests whose name contains this")
    parser.add_argument("--verbose", action="store_true",
                        help="print every test's outcome")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--suite", default="node",
                        choices=["node", "pytorch-converted",
                                 "pytorch-operator", "simple"],
                        help="which of libonnx-testdata's suites to run "
                        "(default: node; the report is written for node)")
    parser.add_argument("--freeze-inputs", action="store_true",
                        help="compile each model with every input but the "
                        "first made a constant (test_data_set_0's value), as "
                        "exporters write Resize scales or Reshape shapes; "
                        "for ops whose output shape depends on those values")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="add this flag to the compile step "
                        "(repeatable)")
    parser.add_argument("--gpu", metavar="ARCH",
                        help="also compile each passing test for "
                        "--target=gpu --gpu-arch=ARCH and check the PTX "
                        "with ptxas")
    parser.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas",
                        help="ptxas for --gpu (skipped when missing)")
    parser.add_argument("--npu", metavar="CONFIG",
                        help="also run every passing test with its matmuls "
                        "and convolutions on this NPU in the simulator")
    parser.add_argument("--min-npu", type=int, default=0,
                        help="fail when fewer tests pass on the NPU than this")
    parser.add_argument("--min-gpu", type=int, default=0,
                        help="fail when fewer passing tests compile for the "
                        "GPU than this")
    args = parser.parse_args()
    global NODE_DIR, COMPILE_FLAGS, GPU_ARCH, PTXAS, NPU
    COMPILE_FLAGS = args.compile_flag
    NPU = args.npu
    GPU_ARCH = args.gpu
    PTXAS = args.ptxas if args.gpu and os.access(args.ptxas, os.X_OK) \
        else None
    NODE_DIR = os.path.join(DATA_DIR, args.suite)
    if not os.path.isdir(NODE_DIR):
        print(f"error: {NODE_DIR} is missing (install libonnx-testdata)")
        return 1
    tests = sorted(t for t in os.listdir(NODE_DIR)
                   if args.filter in t and
                   os.path.isfile(os.path.join(NODE_DIR, t, "model.onnx")))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda t: run_test(args.compile_tool, args.run_tool, t,
                               args.freeze_inputs), tests))
    counts = collections.Counter(kind for _, kind, *_ in results)
    for test, kind, msg, gpu, npu in results:
        if args.verbose or kind in ("crashed", "failed"):
            print(f"{kind.upper():13} {test}: {msg}")
        if gpu and gpu != "ptx-ok":
            print(f"GPU           {test}: {gpu}")
        if npu and (npu != "npu-passed" or args.verbose):
            print(f"NPU           {test}: {npu}")
    npu_ok = sum(1 for r in results if r[4] == "npu-passed")
    npu_tried = sum(1 for r in results if r[4])
    npu_crashed = sum(1 for r in results
                      if r[4] and r[4].startswith("npu-crashed"))
    gpu_ok = sum(1 for r in results if r[3] == "ptx-ok")
    gpu_crashed = sum(1 for r in results
                      if r[3] and r[3].startswith("gpu-crashed"))
    total = len(results)
    imported = count_imported(results)
    print(f"node tests: {total}; " + ", ".join(
        f"{k}: {counts[k]}" for k in KINDS) +
        f"; imported {imported} ({100.0 * imported / max(total, 1):.1f}%)"
        f"; pass rate {100.0 * counts['passed'] / max(total, 1):.1f}%")
    if GPU_ARCH:
        checked = "accepted by " + PTXAS if PTXAS else \
            "not checked: no ptxas, skipped"
        print(f"gpu ({GPU_ARCH}): {gpu_ok} of {counts['passed']} passing "
              f"tests compile to PTX ({checked}); {gpu_crashed} crash")
    if NPU:
        print(f"npu ({NPU}): {npu_ok} of {npu_tried} passing tests with a "
              f"kernel on the NPU pass in the simulator; {npu_crashed} "
              "crash")
    if args.write_doc:
        write_doc(args.write_doc, results, counts, total,
                  gpu_ok if GPU_ARCH else None, npu_ok if NPU else None)
    if counts["crashed"] or gpu_crashed or npu_crashed:
        return 1
    if NPU and npu_ok < args.min_npu:
        print(f"error: {npu_ok} tests pass on the NPU, fewer than the "
              f"recorded {args.min_npu}")
        return 1
    if GPU_ARCH and gpu_ok < args.min_gpu:
        print(f"error: {gpu_ok} tests compile for the GPU, fewer than the "
              f"recorded {args.min_gpu}")
        return 1
    if imported < args.min_imported:
        print(f"error: {imported} models imported, fewer than the recorded "
              f"{args.min_imported}")
        return 1
    if counts["passed"] < args.min_passed:
        print(f"error: {counts['passed']} tests passed, fewer than the "
              f"recorded {args.min_passed}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
