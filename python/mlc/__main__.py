# ===- __main__.py - python3 -m mlc compile|run|generate|check-support ----=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #
"""The package from a shell:

  python3 -m mlc compile MODEL.onnx -o MODEL.so [--dim batch=1] [--NAME=VALUE]
  python3 -m mlc run MODEL.so [-i NAME=FILE.npy | FILE.npy ...] [-o DIR]
  python3 -m mlc generate DECODER.so --prompt 1,2,3 [--max-new-tokens 32]
                          [--temperature T --top-k K --top-p P --seed S]
  python3 -m mlc check-support MODEL.onnx
  python3 -m mlc compare MODEL.onnx [--reference ort|DIR] [--bisect]
                         [-i NAME=FILE.npy ...] [--tolerance T] [--NAME=VALUE]
  python3 -m mlc version

compile takes mlc-compile's flags (``--NAME=VALUE`` or ``--NAME VALUE``);
run reads .npy inputs (zeros when none are given), prints each output's
name, shape, dtype and first values, and with ``-o DIR`` saves them as
DIR/NAME.npy. generate runs a compiled decoder's generation loop
(Model.generate) and prints the new tokens and the timings. compare runs
the model with mlc and with ONNX Runtime (or stored outputs) on the same
inputs and, with --bisect, names the first node whose value departs
(mlc.compare); it exits 1 when outputs differ.
"""

import argparse
import os
import sys

import numpy as np

from . import MLCError, check_support, compile, load, version


def _split_options(rest):
    """--NAME=VALUE / --NAME VALUE / --FLAG pairs from `rest`."""
    options, i = [], 0
    while i < len(rest):
        arg = rest[i]
        if not arg.startswith("--"):
            raise SystemExit(f"mlc compile: unexpected argument '{arg}'")
        name = arg[2:]
        if "=" in name:
            name, value = name.split("=", 1)
        elif i + 1 < len(rest) and not rest[i + 1].startswith("--"):
            value, i = rest[i + 1], i + 1
        else:
            value = "true"
        options.append((name, value))
        i += 1
    return options


def _compile(args, rest):
    grouped = {}
    for name, value in _split_options(rest):
        grouped.setdefault(name.replace("-", "_"), []).append(value)
    options = {k: (v if k in ("shape", "dim") else v[-1])
               for k, v in grouped.items()}
    target = options.pop("target", "cpu")
    output = compile(args.model, target=target, output=args.output, **options)
    print(output)
    return 0


def _read_inputs(specs, names):
    inputs = {}
    for position, spec in enumerate(specs):
        name, _, path = spec.rpartition("=")
        if not name:
            if position >= len(names):
                raise MLCError("mlc", f"the model takes {len(names)} inputs")
            name = names[position]
        inputs[name] = np.load(path)
    return inputs


def _compare(args, rest):
    import onnx
    from . import comparison
    options = {}
    for name, value in _split_options(rest):
        key = name.replace("-", "_")
        if key in ("shape", "dim"):
            options.setdefault(key, []).append(value)
        else:
            options[key] = value
    proto = onnx.load(args.model)
    initializers = {t.name for t in proto.graph.initializer}
    names = [i.name for i in proto.graph.input if i.name not in initializers]
    inputs = _read_inputs(args.inputs, names) or None
    if inputs is not None:
        random = comparison.random_inputs(proto, comparison._dims_option(options))
        random.update(inputs)
        inputs = random
    result = comparison.compare(args.model, inputs=inputs,
                             reference=args.reference,
                             tolerance=args.tolerance, bisect=args.bisect,
                             **options)
    print(result.report())
    return 0 if result.ok else 1


def _run(args):
    model = load(args.library, weights=args.weights)
    inputs = _read_inputs(args.inputs, [i.name for i in model.inputs])
    for info in model.inputs:
        inputs.setdefault(info.name, np.zeros(info.shape, info.dtype))
    outputs = model.run(inputs)
    if args.output_dir:
        os.makedirs(args.output_dir, exist_ok=True)
    for name, array in outputs.items():
        first = np.array2string(array.reshape(-1)[:6], separator=", ")
        print(f"{name}: {array.dtype} {list(array.shape)} {first}")
        if args.output_dir:
            safe = "".join(c if c.isalnum() or c in "-_." else "_"
                           for c in name)
            np.save(os.path.join(args.output_dir, safe + ".npy"), array)
    return 0


def _generate(args):
    model = load(args.library, weights=args.weights)
    try:
        prompt = [int(t) for t in args.prompt.split(",")]
    except ValueError:
        raise MLCError("mlc generate", "--prompt takes comma-separated token "
                       f"ids, not '{args.prompt}'")
    tokens = model.generate(prompt, max_new_tokens=args.max_new_tokens,
                            temperature=args.temperature, top_k=args.top_k,
                            top_p=args.top_p, seed=args.seed,
                            eos_token_id=args.eos_token)
    print("tokens:", " ".join(str(t) for t in tokens))
    print(model.last_generate_stats)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m mlc",
        description="Compile ONNX models with mlc and run them.")
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser(
        "compile", help="compile a model (mlc-compile's flags after it)")
    c.add_argument("model")
    c.add_argument("-o", "--output", default=None,
                   help="output file; its extension picks the artifact "
                        "(.so, .o, .s; default: a model.so in a temporary "
                        "folder, printed)")
    r = commands.add_parser("run", help="run a compiled model library")
    r.add_argument("library")
    r.add_argument("-i", "--input", dest="inputs", action="append",
                   default=[], metavar="[NAME=]FILE.npy")
    r.add_argument("-o", "--output-dir", default=None)
    r.add_argument("--weights", default=None,
                   help="weights file of a --weights=external library")
    g = commands.add_parser("generate",
                            help="generate tokens with a compiled decoder")
    g.add_argument("library")
    g.add_argument("--prompt", required=True,
                   help="the prompt's token ids, comma-separated")
    g.add_argument("--max-new-tokens", type=int, default=32)
    g.add_argument("--temperature", type=float, default=0.0,
                   help="0 (default): the most likely token")
    g.add_argument("--top-k", type=int, default=0)
    g.add_argument("--top-p", type=float, default=1.0)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--eos-token", type=int, default=None)
    g.add_argument("--weights", default=None,
                   help="weights file of a --weights=external library")
    s = commands.add_parser("check-support",
                            help="list the model's ops and which are "
                                 "unsupported")
    s.add_argument("model")
    p = commands.add_parser(
        "compare", help="compare mlc's outputs with ONNX Runtime's or stored "
                        "ones; --bisect finds the first wrong node")
    p.add_argument("model")
    p.add_argument("--reference", default="ort",
                   help="'ort' (onnxruntime-node from npm) or a folder of "
                        "output_<k>.pb / NAME.npy (default: ort)")
    p.add_argument("-i", "--input", dest="inputs", action="append",
                   default=[], metavar="[NAME=]FILE.npy",
                   help="inputs (default: the folder's input_<k>.pb, else "
                        "seeded random values)")
    p.add_argument("--tolerance", type=float, default=1e-4,
                   help="max |mlc - ref| / max(1, max |ref|) (default 1e-4)")
    p.add_argument("--bisect", action="store_true",
                   help="when an output differs, find the first value that "
                        "does")
    commands.add_parser("version", help="print mlc's version")
    args, rest = parser.parse_known_args(argv)
    if rest and args.command not in ("compile", "compare"):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.command == "compile":
            return _compile(args, rest)
        if args.command == "run":
            return _run(args)
        if args.command == "generate":
            return _generate(args)
        if args.command == "compare":
            return _compare(args, rest)
        if args.command == "check-support":
            supported, report = check_support(args.model)
            sys.stdout.write(report)
            return 0 if supported else 1
        print(version())
        return 0
    except MLCError as e:
        sys.stderr.write(f"{e.tool}: {e.diagnostics.rstrip()}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
