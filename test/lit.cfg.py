# ===- lit.cfg.py - lit configuration of mlc's FileCheck tests ----------=== #
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===--------------------------------------------------------------------=== #

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "mlc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Embedding", "Inputs"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mlc_tools_dir, append_path=False)
# mlc-compile links shared libraries with the system's C compiler driver.
llvm_config.with_environment("PATH", os.environ.get("PATH", "/usr/bin:/bin"),
                             append_path=True)

llvm_config.add_tool_substitutions(["not", "count", "split-file"],
                                   [config.llvm_tools_dir])
tools = ["mlc-opt", "mlc-compile", "mlc-run", "mlc-npu-sim"]
llvm_config.add_tool_substitutions(tools, [config.mlc_tools_dir])
config.substitutions.append(("%python", config.python_executable))
# The CPU code without --mcpu is for: the build's default, else the host's.
config.substitutions.append(
    ("%mlc_default_cpu", getattr(config, "mlc_default_cpu", "") or "native"))
config.substitutions.append(
    ("%onnx_node", "/usr/share/libonnx-testdata/data/node"))
# The C interfaces' headers and shared libraries (libmlc_compiler.so,
# libmlc_runtime.so).
config.substitutions.append(
    ("%mlc_src", os.path.dirname(config.test_source_root)))
config.substitutions.append(
    ("%mlc_libs", os.path.join(config.mlc_obj_root, "lib")))

# Features of the machine the tests run on: `host-lacks-avx512fp16` when
# the CPU cannot run AVX512-FP16 code (most x86-64 CPUs), to test that a
# model compiled for more than the host has is refused when loaded.
import platform
if platform.machine() == "x86_64":
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split(":", 1)[1].split()
                          for line in cpuinfo if line.startswith("flags")), [])
        if "avx512_fp16" not in flags:
            config.available_features.add("host-lacks-avx512fp16")
    except OSError:
        pass

# `tsan` when the ThreadSanitizer test driver was built (unittests/).
if os.path.exists(os.path.join(config.mlc_tools_dir, "mlc-concurrent-runs")):
    config.available_features.add("tsan")
    llvm_config.add_tool_substitutions(["mlc-concurrent-runs"],
                                       [config.mlc_tools_dir])

# `ptxas` when CUDA's PTX assembler is installed (it is never needed to build
# or run mlc; GPU tests that check PTX with it need it).
ptxas = os.path.join(os.environ.get("MLC_CUDA_PATH", "/usr/local/cuda"),
                     "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
