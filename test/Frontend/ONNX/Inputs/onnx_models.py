#!/usr/bin/python3
# ===- onnx_models.py - Small ONNX models for the importer tests ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
#
#   onnx_models.py OUT.onnx NAME    writes model NAME (see MODELS)
#   onnx_models.py --malformed DIR  writes the malformed corpus into DIR
#
# Run with Debian's /usr/bin/python3 (python3-onnx, python3-numpy).
#
# ===--------------------------------------------------------------------=== #

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, "test", inputs, outputs,
                              initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] + list(extra_opsets)
    m = helper.make_model(graph, producer_name="mlc-tests",
                          opset_imports=opsets)
    m.ir_version = 8
    return m


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or outs[0], **attrs)


# --- Elementwise -----------------------------------------------------------

def add_broadcast():
    return model([node("Add", ["a", "b"], ["y"])],
                 [vi("a", F, [3, 1]), vi("b", F, [4])], [vi("y", F, None)])


def variadic():
    return model([node("Sum", ["a", "b", "c"], ["s"]),
                  node("Mean", ["a", "b"], ["m"]),
                  node("Max", ["a", "b", "c"], ["x"])],
                 [vi(n, F, [2, 3]) for n in "abc"],
                 [vi("s", F, None), vi("m", F, None), vi("x", F, None)])


def clip10():
    return model([node("Clip", ["x"], ["y"], min=-1.0, max=1.0)],
                 [vi("x", F, [4])], [vi("y", F, None)], opset=10)


def clip13():
    return model([node("Clip", ["x", "", "hi"], ["y"])],
                 [vi("x", F, [4])], [vi("y", F, None)],
                 inits=[const("hi", np.float32(6.0))])


def activations():
    return model([node("LeakyRelu", ["x"], ["a"], alpha=0.2),
                  node("HardSigmoid", ["a"], ["b"]),
                  node("Gelu", ["b"], ["c"], approximate="tanh"),
                  node("Cast", ["c"], ["d"], to=TensorProto.FLOAT16),
                  node("Dropout", ["x"], ["e"])],
                 [vi("x", F, ["batch", 8])],
                 [vi("d", TensorProto.FLOAT16, None), vi("e", F, None)],
                 opset=20)


def compare_where():
    return model([node("Less", ["a", "b"], ["c"]),
                  node("Where", ["c", "a", "b"], ["y"])],
                 [vi("a", F, [2, 1]), vi("b", F, [3])], [vi("y", F, None)])


# --- Neural-network ops ----------------------------------------------------

def conv_pool():
    w = np.random.RandomState(0).randn(8, 3, 3, 3).astype(np.float32)
    return model([node("Conv", ["x", "w"], ["c"], strides=[2, 2],
                       auto_pad="SAME_UPPER"),
                  node("Relu", ["c"], ["r"]),
                  node("MaxPool", ["r"], ["p"], kernel_shape=[3, 3],
                       strides=[2, 2], ceil_mode=1),
                  node("GlobalAveragePool", ["p"], ["g"]),
                  node("Flatten", ["g"], ["f"])],
                 [vi("x", F, ["N", 3, 32, 32])], [vi("f", F, None)],
                 inits=[const("w", w)])


def gemm_softmax11():
    return model([node("Gemm", ["x", "w", "b"], ["y"], transB=1, alpha=0.5),
                  node("Softmax", ["y"], ["s"])],
                 [vi("x", F, [2, 4])], [vi("s", F, None)],
                 inits=[const("w", np.ones((5, 4), np.float32)),
                        const("b", np.zeros(5, np.float32))], opset=11)


def softmax11_axis1():
    return model([node("Softmax", ["x"], ["s"], axis=1)],
                 [vi("x", F, [2, 3, 4])], [vi("s", F, None)], opset=11)


def layer_norm():
    return model([node("LayerNormalization", ["x", "g", "b"], ["y"],
                       epsilon=1e-6)],
                 [vi("x", F, [2, 7, 16])], [vi("y", F, None)],
                 inits=[const("g", np.ones(16, np.float32)),
                        const("b", np.zeros(16, np.float32))], opset=17)


# --- Reductions ------------------------------------------------------------

def reduce11():
    return model([node("ReduceSum", ["x"], ["s"], axes=[1], keepdims=0),
                  node("ArgMax", ["x"], ["a"], axis=-1)],
                 [vi("x", F, [2, 3, 4])], [vi("s", F, None), vi("a", I64, None)],
                 opset=11)


def reduce18():
    return model([node("ReduceMean", ["x", "axes"], ["m"]),
                  node("ReduceMax", ["x"], ["n"], keepdims=0)],
                 [vi("x", F, [2, 3, 4])], [vi("m", F, None), vi("n", F, None)],
                 inits=[const("axes", np.array([-1], np.int64))], opset=18)


def resize18_axes():
    """Opset-18 Resize with scales and sizes for the spatial axes only."""
    return model([node("Resize", ["x", "", "scales"], ["up"], axes=[2, 3],
                       mode="nearest",
                       coordinate_transformation_mode="asymmetric",
                       nearest_mode="floor"),
                  node("Resize", ["x", "", "", "sizes"], ["down"],
                       axes=[-1, -2], mode="linear")],
                 [vi("x", F, [1, 2, 4, 6])], [vi("up", F, None),
                                              vi("down", F, None)],
                 inits=[const("scales", np.array([2, 3], np.float32)),
                        const("sizes", np.array([3, 2], np.int64))],
                 opset=18)


def resize18_antialias():
    """Opset-18 antialiased Resize: ONNX's published examples (4x4 -> 2x2
    by scales 0.6, edge-padded taps; 4x4 -> 3x3 by sizes) and PyTorch's
    antialiased interpolation (taps outside the image excluded: a 23x17
    image to 5x4 and to 30x9, down- and upsampled at once)."""
    return model([node("Resize", ["x", "", "s06"], ["lin_s"], mode="linear",
                       antialias=1),
                  node("Resize", ["x", "", "s06"], ["cub_s"], mode="cubic",
                       antialias=1),
                  node("Resize", ["x", "", "", "z33"], ["lin_z"],
                       mode="linear", antialias=1),
                  node("Resize", ["x", "", "", "z33"], ["cub_z"],
                       mode="cubic", antialias=1),
                  node("Resize", ["img", "", "", "z54"], ["lin_ex"],
                       mode="linear", antialias=1, exclude_outside=1),
                  node("Resize", ["img", "", "", "z309"], ["cub_ex"],
                       mode="cubic", antialias=1, exclude_outside=1,
                       cubic_coeff_a=-0.5)],
                 [vi("x", F, [1, 1, 4, 4]), vi("img", F, [2, 3, 23, 17])],
                 [vi(n, F, None) for n in
                  ["lin_s", "cub_s", "lin_z", "cub_z", "lin_ex", "cub_ex"]],
                 inits=[const("s06", np.array([1, 1, 0.6, 0.6], np.float32)),
                        const("z33", np.array([1, 1, 3, 3], np.int64)),
                        const("z54", np.array([2, 3, 5, 4], np.int64)),
                        const("z309", np.array([2, 3, 30, 9], np.int64))],
                 opset=18)


def resize18_keep_aspect():
    """keep_aspect_ratio_policy on a 12x8 image asked for 3x6: not_larger
    scales both axes by 0.25 (3x2), not_smaller by 0.75 (9x6)."""
    sizes = const("sizes", np.array([3, 6], np.int64))
    return model([node("Resize", ["x", "", "", "sizes"], [policy],
                       axes=[2, 3], mode="linear",
                       keep_aspect_ratio_policy=policy)
                  for policy in ["not_larger", "not_smaller"]],
                 [vi("x", F, [1, 2, 12, 8])],
                 [vi("not_larger", F, None), vi("not_smaller", F, None)],
                 inits=[sizes], opset=18)


def resize18_bad_antialias():
    sizes = const("sizes", np.array([1, 1, 2, 2], np.int64))
    return model([node("Resize", ["x", "", "", "sizes"], ["y"], name="y",
                       antialias=1)],
                 [vi("x", F, [1, 1, 4, 4])], [vi("y", F, None)],
                 inits=[sizes], opset=18)


def resize18_bad_policy():
    sizes = const("sizes", np.array([1, 1, 2, 2], np.int64))
    return model([node("Resize", ["x", "", "", "sizes"], ["z"], name="z",
                       keep_aspect_ratio_policy="stretchy")],
                 [vi("x", F, [1, 1, 4, 4])], [vi("z", F, None)],
                 inits=[sizes], opset=18)


def resize18_bad_axes():
    return model([node("Resize", ["x", "", "scales"], ["y"], axes=[2, 2])],
                 [vi("x", F, [1, 2, 4, 6])], [vi("y", F, None)],
                 inits=[const("scales", np.array([2, 3], np.float32))],
                 opset=18)


def pad_modes19():
    """Pad in every mode (wrap is opset 19), with a negative (cropping) pad."""
    pads = const("pads", np.array([0, 1, 2, 0, 2, -1], np.int64))
    return model([node("Pad", ["x", "pads"], ["c"], mode="constant"),
                  node("Pad", ["x", "pads"], ["e"], mode="edge"),
                  node("Pad", ["x", "pads"], ["r"], mode="reflect"),
                  node("Pad", ["x", "pads"], ["w"], mode="wrap")],
                 [vi("x", F, [2, 3, 4])],
                 [vi(n, F, None) for n in "cerw"], inits=[pads], opset=19)


# --- Data movement ---------------------------------------------------------

def reshape_transpose():
    return model([node("Reshape", ["x", "shape"], ["r"]),
                  node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3])],
                 [vi("x", F, ["batch", 128, 768])], [vi("t", F, None)],
                 inits=[const("shape", np.array([0, 0, 12, 64], np.int64))])


def squeeze_excitation():
    """A squeeze-and-excitation block: x scaled per channel by
    sigmoid(conv(relu(conv(mean(x))))), into a 1x1 convolution with bias
    and, through a second product, a padded 3x3 convolution."""
    rng = np.random.default_rng(1)
    def w(name, *shape):
        return const(name, rng.standard_normal(shape).astype(np.float32))
    return model([node("GlobalAveragePool", ["x"], ["g"]),
                  node("Conv", ["g", "w1", "b1"], ["h"]),
                  node("Relu", ["h"], ["r"]),
                  node("Conv", ["r", "w2", "b2"], ["e"]),
                  node("Sigmoid", ["e"], ["s"]),
                  node("Mul", ["x", "s"], ["xs"]),
                  node("Conv", ["xs", "w3", "b3"], ["y"]),
                  node("Mul", ["s", "x"], ["sx"]),
                  node("Conv", ["sx", "w4"], ["z"], pads=[1, 1, 1, 1])],
                 [vi("x", F, [1, 16, 12, 12])],
                 [vi("y", F, [1, 8, 12, 12]), vi("z", F, [1, 8, 12, 12])],
                 inits=[w("w1", 4, 16, 1, 1), w("b1", 4), w("w2", 16, 4, 1, 1),
                        w("b2", 16), w("w3", 8, 16, 1, 1), w("b3", 8),
                        w("w4", 8, 16, 3, 3)])


def squeeze11():
    return model([node("Unsqueeze", ["x"], ["u"], axes=[0, 3]),
                  node("Squeeze", ["u"], ["s"], axes=[0])],
                 [vi("x", F, [2, 3])], [vi("s", F, None)], opset=11)


def squeeze13():
    return model([node("Unsqueeze", ["x", "axes"], ["u"]),
                  node("Squeeze", ["u", "axes0"], ["s"])],
                 [vi("x", F, [2, 3])], [vi("s", F, None)],
                 inits=[const("axes", np.array([0, 3], np.int64)),
                        const("axes0", np.array([0], np.int64))])


def computed_axes():
    """Axes and split sizes fed as graph inputs: known at run time only."""
    return model([node("Unsqueeze", ["x", "ax"], ["u"]),
                  node("Squeeze", ["u", "ax"], ["s"]),
                  node("ReduceSum", ["x", "ax"], ["r"]),
                  node("Split", ["x", "sizes"], ["a", "b"], axis=1)],
                 [vi("x", F, [2, 3]), vi("ax", I64, [1]),
                  vi("sizes", I64, [2])],
                 [vi("s", F, None), vi("r", F, None), vi("a", F, None),
                  vi("b", F, None)])


def folded_axes():
    """Axes computed from the input's shape: constant once shapes fold."""
    return model([node("Shape", ["x"], ["shape"]),
                  node("Shape", ["shape"], ["rank"]),
                  node("Sub", ["rank", "one"], ["last"]),
                  node("ReduceSum", ["x", "last"], ["r"], keepdims=0),
                  node("Unsqueeze", ["r", "last"], ["u"]),
                  node("Add", ["last", "one"], ["two"]),
                  node("Concat", ["last", "two"], ["sizes"], axis=0),
                  node("Split", ["x", "sizes"], ["a", "b"], axis=1)],
                 [vi("x", F, [2, 3])],
                 [vi("u", F, None), vi("a", F, None), vi("b", F, None)],
                 inits=[const("one", np.array([1], np.int64))])


def windows17():
    """Window functions of a constant size, scaled by an input."""
    return model([node("HannWindow", ["n"], ["hann"]),
                  node("HammingWindow", ["n"], ["hamming"], periodic=0),
                  node("BlackmanWindow", ["n"], ["blackman"]),
                  node("Mul", ["hann", "s"], ["a"]),
                  node("Mul", ["hamming", "s"], ["b"]),
                  node("Mul", ["blackman", "s"], ["c"])],
                 [vi("s", F, [1])],
                 [vi("a", F, None), vi("b", F, None), vi("c", F, None)],
                 inits=[const("n", np.array(10, np.int32))], opset=17)


def max_unpool():
    """MaxUnpool with a constant output_shape larger than the inferred one."""
    return model([node("MaxUnpool", ["x", "i", "shape"], ["y"],
                       kernel_shape=[2, 2], strides=[2, 2])],
                 [vi("x", F, [1, 1, 2, 2]), vi("i", I64, [1, 1, 2, 2])],
                 [vi("y", F, None)],
                 inits=[const("shape", np.array([1, 1, 5, 5], np.int64))],
                 opset=11)


def selections():
    """Compress, Unique and NonMaxSuppression: sizes decided by values."""
    return model([node("Compress", ["x", "keep"], ["c"], axis=1),
                  node("Unique", ["x"], ["u", "first", "inverse", "counts"],
                       axis=0),
                  node("NonMaxSuppression", ["boxes", "scores", "most", "iou"],
                       ["selected"], center_point_box=1)],
                 [vi("x", F, [3, 4]), vi("keep", TensorProto.BOOL, [4]),
                  vi("boxes", F, [1, 6, 4]), vi("scores", F, [1, 2, 6])],
                 [vi("c", F, None), vi("u", F, None), vi("inverse", I64, None),
                  vi("selected", I64, None)],
                 inits=[const("most", np.array([3], np.int64)),
                        const("iou", np.array([0.5], np.float32))], opset=11)


def repeated_outputs():
    """Outputs naming the same tensor: `r` and Identity(r), `x` twice."""
    return model([node("Relu", ["x"], ["r"]),
                  node("Identity", ["r"], ["s"]),
                  node("Identity", ["x"], ["a"]),
                  node("Identity", ["x"], ["b"])],
                 [vi("x", F, [4])],
                 [vi("r", F, None), vi("s", F, None), vi("a", F, None),
                  vi("b", F, None)])


def sequences():
    """Sequences known at compile time: split, insert, erase, read, join."""
    return model([node("SplitToSequence", ["x", "three"], ["parts"], axis=1),
                  node("SequenceAt", ["parts", "minus_one"], ["last"]),
                  node("Relu", ["last"], ["relu"]),
                  node("SequenceInsert", ["parts", "relu", "zero"], ["more"]),
                  node("SequenceErase", ["more"], ["fewer"]),
                  node("SequenceLength", ["fewer"], ["n"]),
                  node("ConcatFromSequence", ["fewer"], ["stacked"], axis=0,
                       new_axis=1),
                  node("SequenceConstruct", ["x", "x"], ["pair"]),
                  node("ConcatFromSequence", ["pair"], ["joined"], axis=-1),
                  node("Optional", ["x"], ["maybe"]),
                  node("OptionalGetElement", ["maybe"], ["got"]),
                  node("OptionalHasElement", ["maybe"], ["has"]),
                  node("SequenceMap", ["parts", "scale"], ["scaled"],
                       body=helper.make_graph(
                           [node("Mul", ["e", "k"], ["m"])], "scale_each",
                           [vi("e", F, [4, None]), vi("k", F, [1])],
                           [vi("m", F, None)])),
                  node("ConcatFromSequence", ["scaled"], ["rejoined"], axis=1)],
                 [vi("x", F, [4, 6])],
                 [vi("stacked", F, None), vi("n", I64, None),
                  vi("joined", F, None), vi("got", F, None),
                  vi("has", TensorProto.BOOL, None), vi("rejoined", F, None)],
                 inits=[const("three", np.array(3, np.int64)),
                        const("minus_one", np.array(-1, np.int64)),
                        const("zero", np.array(0, np.int64)),
                        const("scale", np.array([2], np.float32))], opset=17)


def sequence_into_add():
    """A sequence where a tensor is needed."""
    seq = helper.make_tensor_sequence_value_info("s", F, [2, 3])
    return model([node("SequenceAt", ["s", "i"], ["y"]),
                  node("Add", ["s", "y"], ["bad"])],
                 [seq, vi("i", I64, [])], [vi("y", F, None), vi("bad", F, None)])


def tfidf_modes():
    """TfIdfVectorizer's IDF and TFIDF modes (ONNX's tests cover only TF)."""
    common = dict(min_gram_length=1, max_gram_length=2, max_skip_count=1,
                  ngram_counts=[0, 3], ngram_indexes=[4, 0, 2, 1, 5],
                  pool_int64s=[1, 2, 3, 1, 2, 3, 1],
                  weights=[0.5, 2.0, 3.0, 0.25, 4.0])
    return model([node("TfIdfVectorizer", ["x"], ["tfidf"], mode="TFIDF",
                       **common),
                  node("TfIdfVectorizer", ["x"], ["idf"], mode="IDF",
                       **common)],
                 [vi("x", I64, [2, 8])], [vi("tfidf", F, None),
                                          vi("idf", F, None)], opset=9)


def empty_slice():
    """A Slice whose start is past the end: a [3, 0] result."""
    return model([node("Slice", ["x", "s", "e", "a"], ["y"]),
                  node("Relu", ["x"], ["r"])],
                 [vi("x", F, [3, 4])], [vi("y", F, None), vi("r", F, None)],
                 inits=[const("s", np.array([5], np.int64)),
                        const("e", np.array([9], np.int64)),
                        const("a", np.array([1], np.int64))])


def strings():
    """String tensors: an input, a constant, StringNormalizer, casts."""
    words = helper.make_tensor("words", TensorProto.STRING, [2],
                               [b"1.5", b"-2"])
    return model([node("StringNormalizer", ["text"], ["normal"],
                       case_change_action="LOWER", stopwords=["the"]),
                  node("Cast", ["words"], ["numbers"], to=F),
                  node("Cast", ["numbers"], ["again"], to=TensorProto.STRING)],
                 [vi("text", TensorProto.STRING, [1, 3])],
                 [vi("normal", TensorProto.STRING, None),
                  vi("again", TensorProto.STRING, None)],
                 inits=[words], opset=13)


def string_into_add():
    """A string tensor where numbers are needed."""
    return model([node("Add", ["text", "text"], ["y"])],
                 [vi("text", TensorProto.STRING, [3])],
                 [vi("y", TensorProto.STRING, None)])


def static_loop():
    """A Loop with a constant trip count: x <- 2x + i, each x also stacked."""
    body = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"]),
         node("Cast", ["i"], ["fi"], to=F),
         node("Mul", ["x_in", "two"], ["doubled"]),
         node("Add", ["doubled", "fi"], ["x_out"]),
         node("Identity", ["x_out"], ["x_scan"])],
        "body",
        [vi("i", I64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("x_in", F, [2, 3])],
        [vi("cond_out", TensorProto.BOOL, []), vi("x_out", F, [2, 3]),
         vi("x_scan", F, [2, 3])],
        initializer=[const("two", np.array(2, np.float32))])
    return model([node("Loop", ["trips", "yes", "x"], ["last", "all"],
                       body=body)],
                 [vi("x", F, [2, 3])], [vi("last", F, None), vi("all", F, None)],
                 inits=[const("trips", np.array(4, np.int64)),
                        const("yes", np.array(True))])


def reverse_scan():
    """A Scan over axis 1, backwards, with its output stacked on axis 1."""
    body = helper.make_graph(
        [node("Add", ["acc", "column"], ["acc_out"]),
         node("Mul", ["acc_out", "column"], ["product"])],
        "body", [vi("acc", F, [2]), vi("column", F, [2])],
        [vi("acc_out", F, [2]), vi("product", F, [2])])
    return model([node("Scan", ["init", "x"], ["total", "products"], body=body,
                       num_scan_inputs=1, scan_input_axes=[1],
                       scan_input_directions=[1], scan_output_axes=[1])],
                 [vi("init", F, [2]), vi("x", F, [2, 5])],
                 [vi("total", F, None), vi("products", F, None)], opset=11)


def growing_loop():
    """A Loop whose carried value doubles in length every iteration."""
    body = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"]),
         node("Concat", ["x_in", "x_in"], ["x_out"], axis=0)],
        "body",
        [vi("i", I64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("x_in", F, None)],
        [vi("cond_out", TensorProto.BOOL, []), vi("x_out", F, None)])
    return model([node("Loop", ["trips", "", "x"], ["y"], body=body)],
                 [vi("x", F, [1])], [vi("y", F, None)],
                 inits=[const("trips", np.array(3, np.int64))])


def slice9():
    return model([node("Slice", ["x"], ["y"], starts=[1], ends=[1000],
                       axes=[1])],
                 [vi("x", F, [4, 10])], [vi("y", F, None)], opset=9)


def slice13():
    return model([node("Slice", ["x", "s", "e", "a", "st"], ["y"])],
                 [vi("x", F, [4, 10])], [vi("y", F, None)],
                 inits=[const("s", np.array([-1], np.int64)),
                        const("e", np.array([-11], np.int64)),
                        const("a", np.array([1], np.int64)),
                        const("st", np.array([-3], np.int64))])


def pad10():
    return model([node("Pad", ["x"], ["y"], pads=[0, 1, 0, 2], value=1.5)],
                 [vi("x", F, [2, 3])], [vi("y", F, None)], opset=10)


def pad13():
    return model([node("Pad", ["x", "pads"], ["y"], mode="reflect")],
                 [vi("x", F, [2, 3])], [vi("y", F, None)],
                 inits=[const("pads", np.array([0, 1, 0, 1], np.int64))])


def constants():
    return model([node("Constant", [], ["c"], value_floats=[1.0, 2.0]),
                  node("Constant", [], ["i"], value_int=7),
                  node("Constant", [], ["t"],
                       value=const("t", np.arange(100, dtype=np.float32))),
                  node("Add", ["x", "c"], ["y"])],
                 [vi("x", F, [2])],
                 [vi("y", F, None), vi("i", I64, None), vi("t", F, None)],
                 opset=13)


def split_equal():
    return model([node("Split", ["x"], ["a", "b"], axis=-1)],
                 [vi("x", F, [4, 12])], [vi("a", F, None), vi("b", F, None)],
                 opset=11)


def split_gather_concat():
    return model([node("Split", ["x", "sizes"], ["a", "b", "c"], axis=1),
                  node("Gather", ["a", "idx"], ["g"], axis=0),
                  node("Concat", ["b", "c"], ["y"], axis=1)],
                 [vi("x", F, [4, 12])],
                 [vi("g", F, None), vi("y", F, None)],
                 inits=[const("sizes", np.array([2, 4, 6], np.int64)),
                        const("idx", np.array([[0, 3]], np.int64))])


def shape_expand():
    return model([node("Shape", ["x"], ["s"], start=1),
                  node("Expand", ["y", "s"], ["e"])],
                 [vi("x", F, [2, 3, 4]), vi("y", F, [1, 4])],
                 [vi("e", F, None)], opset=15)


def if_outer_scope():
    # Both branches read 'x' from the enclosing graph; they disagree on
    # the output's second dim, so the If result has it dynamic.
    then_g = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [],
                               [vi("t", F, [2, 3])])
    else_g = helper.make_graph(
        [node("Concat", ["x", "x"], ["e"], axis=1)], "else", [],
        [vi("e", F, [2, 6])])
    return model([node("If", ["c"], ["y"], name="branch",
                       then_branch=then_g, else_branch=else_g)],
                 [vi("c", TensorProto.BOOL, []), vi("x", F, [2, 3])],
                 [vi("y", F, None)])


def if_runtime():
    """An If decided at run time whose branches compute (a matmul with a
    constant and a GELU-like chain on one side, a log of abs on the other)
    from the enclosing graph's x, and a node after it."""
    w = const("w", np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8))
    then_g = helper.make_graph(
        [node("Exp", ["x"], ["ex"]), node("MatMul", ["ex", "w"], ["mm"]),
         node("Tanh", ["mm"], ["t"])], "then", [], [vi("t", F, [4, 8])])
    else_g = helper.make_graph(
        [node("Abs", ["x"], ["ab"]), node("Add", ["ab", "one"], ["ab1"]),
         node("Log", ["ab1"], ["e"])], "else", [], [vi("e", F, [4, 8])])
    return model([node("If", ["c"], ["y"], name="branch",
                       then_branch=then_g, else_branch=else_g),
                  node("Mul", ["y", "x"], ["z"])],
                 [vi("c", TensorProto.BOOL, [1]), vi("x", F, [4, 8])],
                 [vi("z", F, None)],
                 inits=[w, const("one", np.array(1, np.float32))])


def loop_scan():
    # Sums x over 'n' iterations and stacks each partial sum.
    body = helper.make_graph(
        [node("Add", ["acc_in", "x"], ["acc_out"]),
         node("Identity", ["cond_in"], ["cond_out"]),
         node("Identity", ["acc_out"], ["partial"])],
        "body",
        [vi("i", I64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("acc_in", F, [3])],
        [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", F, [3]),
         vi("partial", F, [3])])
    return model([node("Loop", ["n", "", "init"], ["sum", "partials"],
                       name="loop", body=body)],
                 [vi("n", I64, []), vi("x", F, [3]), vi("init", F, [3])],
                 [vi("sum", F, None), vi("partials", F, None)])


def if_unsupported_inside():
    then_g = helper.make_graph([node("StringSplit", ["x"], ["t"])],
                               "then", [],
                               [vi("t", F, None)])
    else_g = helper.make_graph([node("Relu", ["x"], ["e"])], "else", [],
                               [vi("e", F, None)])
    return model([node("If", ["c"], ["y"], then_branch=then_g,
                       else_branch=else_g)],
                 [vi("c", TensorProto.BOOL, []), vi("x", F, [4])],
                 [vi("y", F, None)])


def lstm_bidirectional():
    r = np.random.RandomState(0)
    return model([node("LSTM", ["x", "w", "r", "b"], ["y", "", "y_c"],
                       name="lstm", hidden_size=3, direction="bidirectional")],
                 [vi("x", F, ["seq", 2, 4])],
                 [vi("y", F, None), vi("y_c", F, None)],
                 inits=[const("w", r.randn(2, 12, 4).astype(np.float32)),
                        const("r", r.randn(2, 12, 3).astype(np.float32)),
                        const("b", r.randn(2, 24).astype(np.float32))])


def einsum_attention():
    return model([node("Einsum", ["q", "k"], ["s"],
                       equation="bhid, bhjd -> bhij")],
                 [vi("q", F, [1, 12, 128, 64]), vi("k", F, [1, 12, 128, 64])],
                 [vi("s", F, None)], opset=12)


def ops_used_by_model_zoo():
    # The unsupported-op report lists every op type once, with counts.
    return model([node("StringSplit", ["x"], ["n"]),
                  node("Relu", ["x"], ["r"]),
                  node("StringSplit", ["x"], ["m"]),
                  node("Custom", ["x"], ["c"], domain="com.example"),
                  node("RegexFullMatch", ["x"], ["u"])],
                 [vi("x", F, [4])],
                 [vi("n", I64, None), vi("r", F, None)],
                 extra_opsets=[helper.make_opsetid("com.example", 1)])


MODELS = {f.__name__: f for f in [
    add_broadcast, variadic, clip10, clip13, activations, compare_where,
    conv_pool, gemm_softmax11, softmax11_axis1, layer_norm, reduce11,
    reduce18, pad_modes19, resize18_axes, resize18_antialias, resize18_keep_aspect,
    resize18_bad_antialias, resize18_bad_policy, resize18_bad_axes, reshape_transpose, squeeze11, squeeze13, computed_axes, folded_axes,
    windows17, max_unpool, selections, repeated_outputs,
    sequences, sequence_into_add, tfidf_modes, empty_slice, strings,
    string_into_add, static_loop, reverse_scan, growing_loop, slice9, slice13,
    pad10, pad13, constants, split_equal, split_gather_concat, shape_expand,
    if_outer_scope, if_runtime, loop_scan, if_unsupported_inside, lstm_bidirectional,
    einsum_attention, ops_used_by_model_zoo, squeeze_excitation]}


# --- Malformed corpus ------------------------------------------------------

def write_malformed(out):
    os.makedirs(out, exist_ok=True)
    ok = model([node("Relu", ["x"], ["y"])], [vi("x", F, [2])],
               [vi("y", F, None)]).SerializeToString()

    def save(name, m):
        data = m if isinstance(m, bytes) else m.SerializeToString()
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    save("truncated.onnx", ok[: len(ok) // 2])
    save("garbage.onnx", b"\x08\x07this is not a protobuf\xff\xff\xff\xff")
    save("empty.onnx", b"")
    # raw_data shorter than dims x element size.
    t = const("w", np.ones(4, np.float32))
    t.raw_data = t.raw_data[:10]
    save("raw_data_size.onnx",
         model([node("Add", ["x", "w"], ["y"])], [vi("x", F, [4])],
               [vi("y", F, None)], inits=[t]))
    # A negative dim in an initializer.
    t = TensorProto(name="w", data_type=F, dims=[-2, 2])
    save("negative_dim.onnx",
         model([node("Add", ["x", "w"], ["y"])], [vi("x", F, [4])],
               [vi("y", F, None)], inits=[t]))
    # Dims whose product overflows int64.
    t = TensorProto(name="w", data_type=F, dims=[2**40, 2**40])
    save("overflow_dims.onnx",
         model([node("Add", ["x", "w"], ["y"])], [vi("x", F, [4])],
               [vi("y", F, None)], inits=[t]))
    # Two nodes feeding each other.
    save("cycle.onnx",
         model([node("Relu", ["b"], ["a"]), node("Relu", ["a"], ["b"])],
               [vi("x", F, [2])], [vi("b", F, None)]))
    save("missing_input.onnx",
         model([node("Add", ["x", "nowhere"], ["y"])], [vi("x", F, [2])],
               [vi("y", F, None)]))
    save("missing_output.onnx",
         model([node("Relu", ["x"], ["y"])], [vi("x", F, [2])],
               [vi("z", F, None)]))
    save("opset_too_new.onnx",
         model([node("Relu", ["x"], ["y"])], [vi("x", F, [2])],
               [vi("y", F, None)], opset=99))
    save("bad_conv.onnx",
         model([node("Conv", ["x", "w"], ["y"], name="conv1")],
               [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)],
               inits=[const("w", np.ones((4, 2, 3, 3), np.float32))]))
    save("bad_attr.onnx",
         model([node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                     auto_pad="SIDEWAYS")],
               [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)]))
    # A string initializer with fewer strings than its dims need.
    t = TensorProto(name="w", data_type=TensorProto.STRING, dims=[3],
                    string_data=[b"a", b"b"])
    save("string_count.onnx",
         model([node("Identity", ["w"], ["y"])], [vi("x", F, [2])],
               [vi("y", TensorProto.STRING, None)], inits=[t]))
    # A sequence of sequences as a graph input.
    nested = helper.make_value_info(
        "s", helper.make_sequence_type_proto(helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))))
    save("nested_sequence.onnx",
         model([node("Identity", ["s"], ["y"])], [nested],
               [vi("y", F, None)]))

    def external(name, location, offset=0, length=16):
        t = TensorProto(name="w", data_type=F, dims=[4])
        t.data_location = TensorProto.EXTERNAL
        for k, v in [("location", location), ("offset", str(offset)),
                     ("length", str(length))]:
            e = t.external_data.add()
            e.key, e.value = k, v
        save(name, model([node("Add", ["x", "w"], ["y"])], [vi("x", F, [4])],
                         [vi("y", F, None)], inits=[t]))

    with open(os.path.join(out, "weights.bin"), "wb") as f:
        f.write(np.arange(8, dtype=np.float32).tobytes())
    external("external_ok.onnx", "weights.bin", offset=16)
    external("external_absolute.onnx", "/etc/passwd")
    external("external_dotdot.onnx", "../weights.bin")
    external("external_out_of_range.onnx", "weights.bin", offset=24)
    external("external_length.onnx", "weights.bin", length=12)
    external("external_symlink.onnx", "escape.bin")
    link = os.path.join(out, "escape.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("/etc/hostname", link)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--malformed":
        write_malformed(sys.argv[2])
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in MODELS:
        print(f"usage: {sys.argv[0]} OUT.onnx NAME | --malformed DIR\n"
              f"models: {', '.join(MODELS)}")
        return 2
    onnx.save(MODELS[sys.argv[2]](), sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
