# Writes a small transformer layer whose token count is a symbolic dim
# (`seq`, with a symbolic batch `batch`), as PyTorch exports BERT: an
# embedding Gather, attention with the head split read from Shape at run
# time, Softmax, a LayerNorm from ReduceMean, Pow and Sqrt, and a pooled
# first token; its inputs at two sizes and NumPy's results, into argv[1].
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

out = sys.argv[1]
rng = np.random.RandomState(0)
V, E, H = 50, 8, 2
D = E // H
emb = rng.randn(V, E).astype(np.float32)
wq, wk, wv = (rng.randn(E, E).astype(np.float32) * 0.3 for _ in range(3))


def const(name, value):
    return nh.from_array(np.asarray(value), name)


nodes = [
    h.make_node("Gather", ["emb", "ids"], ["x"]),
    h.make_node("Shape", ["x"], ["shape"]),
    h.make_node("Gather", ["shape", "zero"], ["b"], axis=0),
    h.make_node("Gather", ["shape", "one"], ["s"], axis=0),
    h.make_node("Unsqueeze", ["b", "axis0"], ["b1"]),
    h.make_node("Unsqueeze", ["s", "axis0"], ["s1"]),
    h.make_node("Concat", ["b1", "s1", "heads", "depth"], ["split"], axis=0),
]
for name, w in (("q", "wq"), ("k", "wk"), ("v", "wv")):
    nodes += [h.make_node("MatMul", ["x", w], [name + "2"]),
              h.make_node("Reshape", [name + "2", "split"], [name + "4"]),
              h.make_node("Transpose", [name + "4"], [name],
                          perm=[0, 2, 1, 3])]
nodes += [
    h.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
    h.make_node("MatMul", ["q", "kt"], ["scores"]),
    h.make_node("Div", ["scores", "scale"], ["scaled"]),
    h.make_node("Softmax", ["scaled"], ["p"], axis=-1),
    h.make_node("MatMul", ["p", "v"], ["ctx4"]),
    h.make_node("Transpose", ["ctx4"], ["ctx_t"], perm=[0, 2, 1, 3]),
    h.make_node("Concat", ["b1", "s1", "width"], ["merge"], axis=0),
    h.make_node("Reshape", ["ctx_t", "merge"], ["ctx"]),
    h.make_node("Add", ["ctx", "x"], ["res"]),
    h.make_node("ReduceMean", ["res"], ["mu"], axes=[-1]),
    h.make_node("Sub", ["res", "mu"], ["dev"]),
    h.make_node("Pow", ["dev", "two"], ["sq"]),
    h.make_node("ReduceMean", ["sq"], ["var"], axes=[-1]),
    h.make_node("Add", ["var", "eps"], ["var_eps"]),
    h.make_node("Sqrt", ["var_eps"], ["sd"]),
    h.make_node("Div", ["dev", "sd"], ["y"]),
    h.make_node("Gather", ["y", "zero"], ["pooled"], axis=1),
]
graph = h.make_graph(
    nodes, "symbolic_seq",
    [h.make_tensor_value_info("ids", T.INT64, ["batch", "seq"])],
    [h.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", E]),
     h.make_tensor_value_info("pooled", T.FLOAT, ["batch", E])],
    [const("emb", emb), const("wq", wq), const("wk", wk), const("wv", wv),
     const("zero", np.array(0, np.int64)), const("one", np.array(1, np.int64)),
     const("axis0", np.array([0], np.int64)),
     const("heads", np.array([H], np.int64)),
     const("depth", np.array([D], np.int64)),
     const("width", np.array([E], np.int64)),
     const("scale", np.array(np.sqrt(D), np.float32)),
     const("two", np.array(2, np.float32)),
     const("eps", np.array(1e-5, np.float32))])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))


def reference(ids):
    x = emb[ids]
    b, s, _ = x.shape
    heads = [(x @ w).reshape(b, s, H, D).transpose(0, 2, 1, 3)
             for w in (wq, wk, wv)]
    scores = heads[0] @ heads[1].transpose(0, 1, 3, 2) / np.float32(np.sqrt(D))
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    res = (p @ heads[2]).transpose(0, 2, 1, 3).reshape(b, s, E) + x
    dev = res - res.mean(-1, keepdims=True)
    y = dev / np.sqrt((dev ** 2).mean(-1, keepdims=True) + 1e-5)
    return y, y[:, 0]


for b, s in ((1, 5), (3, 40)):
    ids = rng.randint(0, V, (b, s)).astype(np.int64)
    np.save(os.path.join(out, f"ids_{b}x{s}.npy"), ids)
    y, pooled = reference(ids)
    np.save(os.path.join(out, f"y_{b}x{s}.ref.npy"), y)
    np.save(os.path.join(out, f"pooled_{b}x{s}.ref.npy"), pooled)
