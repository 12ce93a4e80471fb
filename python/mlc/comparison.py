# ===- compare.py - Compare mlc with a reference; find the first wrong node -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""Runs a model with mlc and with a reference on the same inputs and compares
the outputs; with ``bisect``, finds the first value of the graph whose mlc
result departs from the reference, by compiling the model cut at
intermediate values.

The reference is ONNX Runtime (``"ort"``: onnxruntime-node from npm, run by
bench/ort_bench.js), a folder of stored outputs (``output_<k>.pb`` as in
ONNX's test data sets, or ``<name>.npy``), or a callable
``reference(model_proto, inputs) -> {name: array}``.
"""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from .compiler import compile as _compile
from .runtime import load
from .tools import MLCError

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
       "int64": np.int64, "int32": np.int32, "int8": np.int8,
       "uint8": np.uint8, "bool": np.bool_}


class Difference:
    """How one value compares: ``error`` is max |mlc - ref| divided by
    max(1, max |ref|); ``ok`` when it is within the tolerance and the
    shapes agree."""

    def __init__(self, name, got, ref, tolerance):
        self.name = name
        got, ref = np.asarray(got), np.asarray(ref)
        self.shape_ok = got.shape == ref.shape
        if not self.shape_ok:
            self.error = float("inf")
        elif got.size == 0:
            self.error = 0.0
        else:
            g, r = got.astype(np.float64), ref.astype(np.float64)
            same = (g == r) | (np.isnan(g) & np.isnan(r))
            diff = np.where(same, 0.0, np.abs(g - r))
            diff = np.where(np.isnan(diff), np.inf, diff)
            finite = np.abs(r[np.isfinite(r)])
            scale = max(1.0, float(finite.max()) if finite.size else 1.0)
            self.error = float(diff.max()) / scale
        self.got_shape, self.ref_shape = got.shape, ref.shape
        self.ok = self.shape_ok and self.error <= tolerance

    def __str__(self):
        if not self.shape_ok:
            return (f"{self.name}: shape {list(self.got_shape)}, reference "
                    f"{list(self.ref_shape)}")
        return (f"{self.name}: {'ok' if self.ok else 'DIFFERS'} "
                f"(max error {self.error:.3g} of max(1, |ref|))")


def _find_ort():
    """(node, ort_bench.js) when onnxruntime-node is installed, else None."""
    script = os.environ.get("MLC_ORT_BENCH",
                            os.path.join(_ROOT, "bench", "ort_bench.js"))
    node = shutil.which("node")
    modules = os.path.join(os.path.dirname(script), "node_modules",
                           "onnxruntime-node")
    if node and os.path.exists(script) and os.path.isdir(modules):
        return node, script
    return None


def ort_available():
    return _find_ort() is not None


def run_ort(model_path, inputs, optimization="all"):
    """ONNX Runtime's outputs for `inputs` (one run, 1 thread), with its
    graph optimizations at `optimization` ('all', 'disabled', ...)."""
    found = _find_ort()
    if not found:
        raise MLCError("mlc compare",
                       "ONNX Runtime is not installed: `cd bench && npm "
                       "install --ignore-scripts` (or set MLC_ORT_BENCH to an "
                       "ort_bench.js beside node_modules/onnxruntime-node), "
                       "or compare with stored outputs")
    node, script = found
    with tempfile.TemporaryDirectory() as tmp:
        specs = []
        for i, (name, array) in enumerate(inputs.items()):
            array = np.ascontiguousarray(array)
            dtype = "bool" if array.dtype == np.bool_ else array.dtype.name
            path = os.path.join(tmp, f"in{i}.bin")
            array.astype(np.uint8 if dtype == "bool" else array.dtype).tofile(path)
            dims = "x".join(str(d) for d in array.shape)
            specs.append(f"{name}:{dtype}:{dims}:{path}")
        env = dict(os.environ, ORT_OPT_LEVEL=optimization)
        proc = subprocess.run([node, script, model_path, "1", "1", "0", tmp]
                              + specs, capture_output=True, text=True,
                              env=env)
        if proc.returncode != 0:
            raise MLCError("onnxruntime", proc.stderr.strip())
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        outputs = {}
        for k, info in enumerate(result["outputs"]):
            dtype = _NP.get(info["type"])
            if dtype is None:
                raise MLCError("onnxruntime",
                               f"output '{info['name']}' has type "
                               f"{info['type']}, which compare cannot read")
            raw = np.fromfile(os.path.join(tmp, f"ort_output_{k}.bin"),
                              np.uint8 if dtype is np.bool_ else dtype)
            outputs[info["name"]] = raw.astype(dtype).reshape(info["dims"])
        return outputs


def _read_tensor(path):
    """A TensorProto file as an array."""
    from onnx import TensorProto, numpy_helper
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def _read_stored(folder, names):
    """Stored outputs of a folder: <name>.npy, or output_<k>.pb in order."""
    values = {}
    for k, name in enumerate(names):
        npy = os.path.join(folder, name + ".npy")
        pb = os.path.join(folder, f"output_{k}.pb")
        if os.path.exists(npy):
            values[name] = np.load(npy)
        elif os.path.exists(pb):
            values[name] = _read_tensor(pb)
    return values


def _stored_inputs(folder, graph_inputs):
    """Stored inputs of a folder: input_<k>.pb in order."""
    return {name: _read_tensor(os.path.join(folder, f"input_{k}.pb"))
            for k, name in enumerate(graph_inputs)
            if os.path.exists(os.path.join(folder, f"input_{k}.pb"))}


def _graph_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def random_inputs(model, dims=None, seed=0):
    """Inputs for `model`: normal floats, small integers, random booleans;
    symbolic dims from `dims` ({name: value}) or 1."""
    from onnx import helper
    to_numpy = getattr(helper, "tensor_dtype_to_np_dtype", None)
    if to_numpy is None:  # onnx < 1.13
        from onnx import mapping
        to_numpy = mapping.TENSOR_TYPE_TO_NP_TYPE.__getitem__
    rng = np.random.default_rng(seed)
    dims = dims or {}
    values = {}
    for value in _graph_inputs(model):
        tensor = value.type.tensor_type
        dtype = np.dtype(to_numpy(tensor.elem_type))
        shape = [d.dim_value if d.HasField("dim_value")
                 else int(dims.get(d.dim_param, 1)) for d in tensor.shape.dim]
        if np.issubdtype(dtype, np.floating):
            values[value.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            values[value.name] = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            values[value.name] = rng.integers(0, 4, shape).astype(dtype)
    return values


def _dims_option(options):
    dims = options.get("dim") or {}
    if isinstance(dims, (list, tuple)):
        dims = dict(d.split("=", 1) for d in dims)
    return {k: int(v) for k, v in dims.items()}


def _run_mlc(model, inputs, workdir, tag, options):
    path = _compile(model, output=os.path.join(workdir, f"{tag}.so"),
                    **options)
    # A model compiled for the NPU runs in its simulator.
    compiled = load(path, device="npu-sim" if options.get("target") == "npu"
                    else "cpu")
    feed = {i.name: inputs[i.name] for i in compiled.inputs}
    return compiled.run(feed)


def _reference(reference, model, model_path, inputs):
    if callable(reference):
        return reference(model, inputs)
    if reference == "ort":
        return run_ort(model_path, inputs)
    raise MLCError("mlc compare", f"unknown reference '{reference}'")


class Comparison:
    """What :func:`compare` found: ``outputs`` (a Difference per output),
    ``ok``, and with bisect ``first_bad`` (the value, node and op where mlc
    first departs, or None) and ``probes`` (each cut tried)."""

    def __init__(self):
        self.outputs, self.probes, self.first_bad = [], [], None

    @property
    def ok(self):
        return all(d.ok for d in self.outputs)

    def report(self):
        lines = [str(d) for d in self.outputs]
        if self.probes:
            lines.append("bisect: " + ", ".join(
                f"{name} {'ok' if ok else 'differs'}"
                for name, ok in self.probes))
        if self.first_bad:
            value, node, op, diff = self.first_bad
            lines.append(f"first value that departs: '{value}', output of "
                         f"node '{node}' ({op}): {diff}")
        return "\n".join(lines)


def _cut_candidates(model):
    """The main graph's node outputs in order, as (value, node, op)."""
    out = []
    for index, node in enumerate(model.graph.node):
        for value in node.output:
            if value:
                out.append((value, node.name or f"#{index}", node.op_type))
    return out


def _cut_at(model, value):
    """`model` with `value` as its only output (typed by ONNX's shape
    inference when it can)."""
    import onnx
    from onnx import helper
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    del cut.graph.output[:]
    info = {v.name: v for v in list(cut.graph.value_info)}
    if value in info:
        cut.graph.output.append(info[value])
    else:
        cut.graph.output.append(helper.make_empty_tensor_value_info(value))
    return cut


def compare(model, inputs=None, reference="ort", tolerance=1e-4, bisect=False,
            **options):
    """Compiles `model` (a path) with mlc, runs it and the reference on
    `inputs` ({name: array}; default: the reference folder's input_<k>.pb,
    else :func:`random_inputs`) and compares every output. `options` go to
    :func:`mlc.compile` (dims for random inputs come from ``dim``). With
    `bisect`, when an output differs, searches the graph's values in node
    order for the first that departs (assuming a value computed from a
    wrong one is wrong too) and names it, its node and op."""
    import onnx
    model_path = os.fspath(model)
    proto = onnx.load(model_path)
    try:
        typed = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # a model shape inference cannot handle
        typed = proto
    names = [i.name for i in _graph_inputs(proto)]
    if inputs is None and isinstance(reference, str) and os.path.isdir(reference):
        inputs = _stored_inputs(reference, names) or None
    if inputs is None:
        inputs = random_inputs(proto, _dims_option(options))
    result = Comparison()
    with tempfile.TemporaryDirectory(prefix="mlc-compare-") as work:
        got = _run_mlc(model_path, inputs, work, "model", options)
        output_names = [o.name for o in proto.graph.output]
        if isinstance(reference, str) and os.path.isdir(reference):
            ref = _read_stored(reference, output_names)
            missing = [n for n in output_names if n not in ref]
            if missing:
                raise MLCError("mlc compare",
                               f"{reference} has no stored output for "
                               f"{missing}")
            if bisect:
                raise MLCError("mlc compare",
                               "bisect needs a reference that can compute "
                               "intermediate values (ort or a callable), not "
                               "stored outputs")
        else:
            ref = _reference(reference, proto, model_path, inputs)
        for name in output_names:
            result.outputs.append(Difference(name, got[name], ref[name],
                                             tolerance))
        if result.ok or not bisect:
            return result

        candidates = _cut_candidates(typed)
        graph_outputs = set(output_names)
        verdicts = {}

        def probe(i):
            if i in verdicts:
                return verdicts[i]
            value, node, op = candidates[i]
            cut = _cut_at(typed, value)
            path = os.path.join(work, f"cut{i}.onnx")
            onnx.save(cut, path)
            try:
                mine = _run_mlc(path, inputs, work, f"cut{i}", options)[value]
            except MLCError as e:
                # A cut mlc cannot compile says nothing about numbers.
                verdicts[i] = (True, None, str(e))
                result.probes.append((value, True))
                return verdicts[i]
            theirs = _reference(reference, cut, path, inputs)[value]
            diff = Difference(value, mine, theirs, tolerance)
            verdicts[i] = (diff.ok, diff, None)
            result.probes.append((value, diff.ok))
            return verdicts[i]

        # The last candidate that is a graph output and differs bounds the
        # search; the first departing value is in [0, hi].
        hi = max((i for i, c in enumerate(candidates)
                  if c[0] in graph_outputs and
                  not next(d for d in result.outputs if d.name == c[0]).ok),
                 default=len(candidates) - 1)
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            if probe(mid)[0]:
                lo = mid + 1
            else:
                hi = mid
        ok, diff, _ = probe(lo)
        if not ok:
            value, node, op = candidates[lo]
            result.first_bad = (value, node, op, diff)
        return result
