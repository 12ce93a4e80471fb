#!/usr/bin/python3
# ===- malformed_models.py - A corpus of broken and hostile ONNX models -=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   utils/malformed_models.py OUTDIR
#
# Writes one small model per class of defect a file from the internet can
# have (truncation, bad tensor data, overflowing dims, size bombs, cycles,
# bad attributes, deep nesting, paths escaping the model's folder, ...) into
# OUTDIR, and OUTDIR/expectations.json: for each model, whether mlc-compile
# must refuse it with an error whose text contains `match`, or compile it.
# utils/check_malformed.py runs mlc-compile on them; so do the fuzzing
# seeds and utils/asan-check.sh.
#
# ===--------------------------------------------------------------------=== #

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

F = T.FLOAT
CASES = {}


def case(name, expect, match=""):
    """Registers a generator: `expect` is "error" (mlc-compile exits 1 and
    prints `match`) or "ok" (it compiles)."""
    def register(fn):
        CASES[name] = (fn, expect, match)
        return fn
    return register


def vi(name, shape, elem=F):
    return h.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    graph = h.make_graph(nodes, name, inputs, outputs,
                         initializer=list(inits))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)],
                        producer_name="malformed_models")


def relu_model():
    return model([h.make_node("Relu", ["x"], ["y"], name="r")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])])


def ints(name, values):
    return nh.from_array(np.array(values, dtype=np.int64), name)


# --- Bytes ----------------------------------------------------------------

@case("truncated", "error", "is not a valid ONNX model")
def _(path):
    data = relu_model().SerializeToString()
    open(path, "wb").write(data[: len(data) // 2])


@case("garbage", "error", "is not a valid ONNX model")
def _(path):
    open(path, "wb").write(bytes(range(256)) * 4)


@case("empty_file", "error", "")
def _(path):
    open(path, "wb").close()


@case("no_graph", "error", "")
def _(path):
    m = h.make_model(h.make_graph([], "g", [], []),
                     opset_imports=[h.make_opsetid("", 13)])
    m.ClearField("graph")
    onnx.save(m, path)


# --- Model header ---------------------------------------------------------

@case("no_opset", "error", "opset")
def _(path):
    m = relu_model()
    del m.opset_import[:]
    onnx.save(m, path)


@case("opset_too_new", "error", "opset 99 is not supported")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                    [vi("y", [2])], opset=99), path)


@case("unknown_op", "error", "unsupported op type")
def _(path):
    onnx.save(model([h.make_node("NoSuchOp", ["x"], ["y"])], [vi("x", [2])],
                    [vi("y", [2])]), path)


@case("unknown_domain", "error", "domain 'com.example' is not supported")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"],
                                 domain="com.example")],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("empty_op_type", "error", "unsupported op type")
def _(path):
    onnx.save(model([h.make_node("", ["x"], ["y"])], [vi("x", [2])],
                    [vi("y", [2])]), path)


# --- Graph structure -------------------------------------------------------

@case("no_outputs", "error", "the graph has no outputs")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], []),
              path)


@case("protobuf_nesting_bomb", "error", "is not a valid ONNX model")
def _(path):
    body = nested_if(200)
    node = h.make_node("If", ["c"], ["y"], then_branch=body,
                       else_branch=nested_if(0))
    onnx.save(model([node], [vi("c", [], T.BOOL), vi("x", [2])],
                    [vi("y", [2])]), path)


@case("identity_graph", "ok")
def _(path):
    onnx.save(model([h.make_node("Identity", ["x"], ["y"])], [vi("x", [2])],
                    [vi("y", [2])]), path)


@case("out_of_order", "ok")
def _(path):
    onnx.save(model([h.make_node("Relu", ["t"], ["y"], name="late"),
                     h.make_node("Neg", ["x"], ["t"], name="early")],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("cycle", "error", "the nodes form a cycle")
def _(path):
    onnx.save(model([h.make_node("Relu", ["t"], ["u"], name="a"),
                     h.make_node("Add", ["x", "u"], ["t"], name="b"),
                     h.make_node("Neg", ["t"], ["y"], name="c")],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("self_loop", "error", "the nodes form a cycle")
def _(path):
    onnx.save(model([h.make_node("Add", ["x", "t"], ["t"], name="a"),
                     h.make_node("Neg", ["t"], ["y"], name="b")],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("undefined_input", "error", "reads 'nowhere'")
def _(path):
    onnx.save(model([h.make_node("Add", ["x", "nowhere"], ["y"])],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("undefined_output", "error", "graph output 'z' is not produced")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                    [vi("z", [2])]), path)


@case("defined_twice", "error", "value 'y' is defined twice")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"]),
                     h.make_node("Neg", ["x"], ["y"])],
                    [vi("x", [2])], [vi("y", [2])]), path)


@case("redefines_input", "error", "value 'x' is defined twice")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["x"])], [vi("x", [2])],
                    [vi("x", [2])]), path)


@case("duplicate_input", "error", "graph input 'x' is declared twice")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])],
                    [vi("x", [2]), vi("x", [2])], [vi("y", [2])]), path)


@case("duplicate_initializer", "error", "initializer 'w' is given twice")
def _(path):
    w = nh.from_array(np.ones(2, np.float32), "w")
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [2])],
                    [vi("y", [2])], inits=[w, w]), path)


@case("declared_shape", "error", "is declared with shape 1x4")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])],
                    [vi("y", [1, 4])]), path)


@case("declared_rank", "error", "is declared with shape")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2, 3])],
                    [vi("y", [6])]), path)


@case("declared_type", "error", "is declared FLOAT16")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [2])],
                    [vi("y", [2], T.FLOAT16)]), path)


@case("input_without_type", "error", "has no type")
def _(path):
    m = relu_model()
    m.graph.input[0].ClearField("type")
    onnx.save(m, path)


@case("map_input", "error", "maps and sparse tensors are not supported")
def _(path):
    type_proto = onnx.TypeProto()
    type_proto.map_type.key_type = T.INT64
    type_proto.map_type.value_type.CopyFrom(h.make_tensor_type_proto(F, [2]))
    x = h.make_value_info("x", type_proto)
    onnx.save(model([h.make_node("Identity", ["x"], ["y"])], [x],
                    [vi("y", [2])]), path)


@case("too_many_outputs", "error", "is not supported; only the first")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y", "extra"])],
                    [vi("x", [2])], [vi("y", [2])]), path)


def nested_if(depth):
    """An If whose then-branch is another If, `depth` deep."""
    leaf = h.make_graph([h.make_node("Identity", ["x"], ["o0"])], "leaf",
                        [], [vi("o0", [2])])
    inner = leaf
    for level in range(1, depth + 1):
        out = "o%d" % level
        node = h.make_node("If", ["c"], [out], then_branch=inner,
                           else_branch=leaf)
        inner = h.make_graph([node], "level%d" % level, [], [vi(out, [2])])
    return inner


@case("deep_nesting", "error", "nests subgraphs more than 16 deep")
def _(path):
    body = nested_if(20)
    node = h.make_node("If", ["c"], ["y"], then_branch=body,
                       else_branch=nested_if(0))
    onnx.save(model([node], [vi("c", [], T.BOOL), vi("x", [2])],
                    [vi("y", [2])]), path)


@case("subgraph_undefined_outer", "error", "reads 'nowhere' in a subgraph")
def _(path):
    branch = h.make_graph([h.make_node("Add", ["x", "nowhere"], ["o"])],
                          "b", [], [vi("o", [2])])
    node = h.make_node("If", ["c"], ["y"], then_branch=branch,
                       else_branch=branch)
    onnx.save(model([node], [vi("c", [], T.BOOL), vi("x", [2])],
                    [vi("y", [2])]), path)


# --- Tensor data ------------------------------------------------------------

@case("raw_data_size", "error", "initializer 'w'")
def _(path):
    w = nh.from_array(np.ones(4, np.float32), "w")
    w.raw_data = w.raw_data[:6]
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])],
                    [vi("y", [4])], inits=[w]), path)


@case("float_data_count", "error", "initializer 'w'")
def _(path):
    w = T()
    w.name, w.data_type = "w", F
    w.dims.append(4)
    w.float_data.extend([1.0, 2.0])
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])],
                    [vi("y", [4])], inits=[w]), path)


@case("initializer_dims_overflow", "error", "initializer 'w'")
def _(path):
    w = T()
    w.name, w.data_type = "w", F
    w.dims.extend([2**40, 2**40])
    w.float_data.append(1.0)
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1])],
                    [vi("y", None)], inits=[w]), path)


@case("initializer_without_data", "error", "holds 0 values but its shape needs 4")
def _(path):
    w = T()
    w.name, w.data_type = "w", F
    w.dims.append(4)
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])],
                    [vi("y", [4])], inits=[w]), path)


@case("initializer_bomb", "error", "over the limit")
def _(path):
    w = T()
    w.name, w.data_type = "w", F
    w.dims.extend([2**20, 2**20])
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1])],
                    [vi("y", None)], inits=[w]), path)


@case("initializer_negative_dim", "error", "initializer 'w'")
def _(path):
    w = T()
    w.name, w.data_type = "w", F
    w.dims.append(-3)
    w.float_data.append(1.0)
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1])],
                    [vi("y", None)], inits=[w]), path)


@case("initializer_bad_type", "error", "initializer 'w'")
def _(path):
    w = h.make_tensor("w", F, [1], [1.0])
    w.data_type = 1000
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1])],
                    [vi("y", [1])], inits=[w]), path)


@case("negative_input_dim", "error", "has a negative dim")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])], [vi("x", [-2])],
                    [vi("y", None)]), path)


def external(path, location, offset=0, length=None, size=16):
    """A model whose initializer 'w' lives at `location`."""
    w = h.make_tensor("w", F, [4], [0.0] * 4)
    w.ClearField("float_data")
    w.data_location = T.EXTERNAL
    entries = {"location": location, "offset": str(offset)}
    if length is not None:
        entries["length"] = str(length)
    for key, value in entries.items():
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    folder = os.path.dirname(path)
    with open(os.path.join(folder, "weights.bin"), "wb") as f:
        f.write(np.arange(size // 4, dtype=np.float32).tobytes())
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])],
                    [vi("y", [4])], inits=[w]), path)


@case("external_ok", "ok")
def _(path):
    external(path, "weights.bin")


@case("external_dotdot", "error", "leaves the model's folder")
def _(path):
    external(path, "../weights.bin")


@case("external_absolute", "error", "")
def _(path):
    external(path, "/etc/passwd")


@case("external_past_end", "error", "")
def _(path):
    external(path, "weights.bin", offset=8)


@case("external_huge_offset", "error", "")
def _(path):
    external(path, "weights.bin", offset=2**62)


@case("external_length_mismatch", "error", "")
def _(path):
    external(path, "weights.bin", length=12)


@case("external_missing_file", "error", "")
def _(path):
    w = h.make_tensor("w", F, [4], [0.0] * 4)
    w.ClearField("float_data")
    w.data_location = T.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", "nonexistent.bin"
    onnx.save(model([h.make_node("Add", ["x", "w"], ["y"])], [vi("x", [4])],
                    [vi("y", [4])], inits=[w]), path)


# --- Size bombs ---------------------------------------------------------------

@case("huge_input", "error", "over the limit")
def _(path):
    onnx.save(model([h.make_node("Relu", ["x"], ["y"])],
                    [vi("x", [2**31, 2**31])], [vi("y", None)]), path)


@case("tile_overflow", "error", "overflows a 64-bit size")
def _(path):
    onnx.save(model([h.make_node("Tile", ["x", "r"], ["y"])],
                    [vi("x", [2, 2])], [vi("y", None)],
                    inits=[ints("r", [2**62, 4])]), path)


@case("tile_bomb", "error", "over the limit")
def _(path):
    onnx.save(model([h.make_node("Tile", ["x", "r"], ["y"])],
                    [vi("x", [1, 1])], [vi("y", None)],
                    inits=[ints("r", [2**62, 2**62])]), path)


@case("constant_of_shape_bomb", "error", "over the limit")
def _(path):
    value = h.make_tensor("v", F, [1], [1.0])
    onnx.save(model([h.make_node("ConstantOfShape", ["s"], ["c"],
                                 value=value),
                     h.make_node("ReduceSum", ["c"], ["y"], keepdims=0)],
                    [], [vi("y", None)], inits=[ints("s", [2**20, 2**20])]),
              path)


@case("expand_bomb", "error", "over the limit")
def _(path):
    onnx.save(model([h.make_node("Expand", ["x", "s"], ["y"])],
                    [vi("x", [1])], [vi("y", None)],
                    inits=[ints("s", [2**40])]), path)


@case("resize_bomb", "error", "")
def _(path):
    scales = nh.from_array(np.array([1, 1, 1e30, 1e30], np.float32), "s")
    onnx.save(model([h.make_node("Resize", ["x", "", "s"], ["y"])],
                    [vi("x", [1, 1, 2, 2])], [vi("y", None)],
                    inits=[scales]), path)


# --- Bad attributes and shapes --------------------------------------------

@case("reshape_bad_dim", "error", "")
def _(path):
    onnx.save(model([h.make_node("Reshape", ["x", "s"], ["y"])],
                    [vi("x", [2, 3])], [vi("y", None)],
                    inits=[ints("s", [-5, 3])]), path)


@case("reshape_two_unknown", "error", "")
def _(path):
    onnx.save(model([h.make_node("Reshape", ["x", "s"], ["y"])],
                    [vi("x", [2, 3])], [vi("y", None)],
                    inits=[ints("s", [-1, -1])]), path)


@case("reshape_count", "error", "")
def _(path):
    onnx.save(model([h.make_node("Reshape", ["x", "s"], ["y"])],
                    [vi("x", [2, 3])], [vi("y", None)],
                    inits=[ints("s", [4, 2])]), path)


@case("transpose_repeated_axis", "error", "")
def _(path):
    onnx.save(model([h.make_node("Transpose", ["x"], ["y"], perm=[0, 0])],
                    [vi("x", [2, 3])], [vi("y", None)]), path)


@case("concat_axis_out_of_range", "error", "")
def _(path):
    onnx.save(model([h.make_node("Concat", ["x", "x"], ["y"], axis=7)],
                    [vi("x", [2, 3])], [vi("y", None)]), path)


@case("attribute_wrong_type", "error", "attribute 'axis' is FLOAT, expected INT")
def _(path):
    node = h.make_node("Concat", ["x", "x"], ["y"])
    node.attribute.append(h.make_attribute("axis", 1.5))
    onnx.save(model([node], [vi("x", [2, 3])], [vi("y", None)]), path)


@case("missing_attribute", "error", "")
def _(path):
    onnx.save(model([h.make_node("Concat", ["x", "x"], ["y"])],
                    [vi("x", [2, 3])], [vi("y", None)]), path)


@case("conv_kernel_too_large", "error", "")
def _(path):
    w = nh.from_array(np.ones((1, 1, 5, 5), np.float32), "w")
    onnx.save(model([h.make_node("Conv", ["x", "w"], ["y"])],
                    [vi("x", [1, 1, 3, 3])], [vi("y", None)], inits=[w]),
              path)


@case("conv_bad_group", "error", "")
def _(path):
    w = nh.from_array(np.ones((4, 1, 1, 1), np.float32), "w")
    onnx.save(model([h.make_node("Conv", ["x", "w"], ["y"], group=3)],
                    [vi("x", [1, 4, 3, 3])], [vi("y", None)], inits=[w]),
              path)


@case("matmul_mismatch", "error", "")
def _(path):
    onnx.save(model([h.make_node("MatMul", ["a", "b"], ["y"])],
                    [vi("a", [2, 3]), vi("b", [4, 5])], [vi("y", None)]),
              path)


@case("slice_zero_step", "error", "")
def _(path):
    onnx.save(model([h.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
                    [vi("x", [4])], [vi("y", None)],
                    inits=[ints("s", [0]), ints("e", [4]), ints("a", [0]),
                           ints("p", [0])]), path)


@case("split_bad_sizes", "error", "")
def _(path):
    onnx.save(model([h.make_node("Split", ["x", "s"], ["a", "b"])],
                    [vi("x", [4])], [vi("a", None), vi("b", None)],
                    inits=[ints("s", [3, 3])]), path)


@case("pad_negative_overflow", "error", "")
def _(path):
    onnx.save(model([h.make_node("Pad", ["x", "p"], ["y"])],
                    [vi("x", [4])], [vi("y", None)],
                    inits=[ints("p", [-3, -3])]), path)


@case("range_zero_delta", "error", "")
def _(path):
    zero = nh.from_array(np.array(0, np.int64), "d")
    onnx.save(model([h.make_node("Range", ["s", "l", "d"], ["y"])], [],
                    [vi("y", None, T.INT64)],
                    inits=[nh.from_array(np.array(0, np.int64), "s"),
                           nh.from_array(np.array(10, np.int64), "l"),
                           zero]), path)


@case("gather_index_out_of_range", "error", "index 7 is out of range")
def _(path):
    onnx.save(model([h.make_node("Gather", ["x", "i"], ["y"])],
                    [vi("x", [4])], [vi("y", None)],
                    inits=[ints("i", [7])]), path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    expectations = {}
    for name, (make, expect, match) in sorted(CASES.items()):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        make(os.path.join(folder, "model.onnx"))
        expectations[name] = {"expect": expect, "match": match}
    with open(os.path.join(out, "expectations.json"), "w") as f:
        json.dump(expectations, f, indent=1, sort_keys=True)
    print("malformed_models: %d models in %s" % (len(CASES), out))


if __name__ == "__main__":
    main()
