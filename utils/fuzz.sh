#!/usr/bin/env bash
#===- utils/fuzz.sh - Build and run the libFuzzer harnesses ---------------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===----------------------------------------------------------------------===#
#
#   utils/fuzz.sh [BUILD_DIR]      (make fuzz FUZZ_SECONDS=N)
#
# Builds mlc with AddressSanitizer, UndefinedBehaviorSanitizer and
# libFuzzer's coverage in BUILD_DIR (default build-fuzz), with the harnesses
# of fuzz/; seeds their corpora (the malformed-model corpus, the checked-in
# malformed models, every ONNX node-test model and tensor, metadata of
# compiled models); runs each harness for FUZZ_SECONDS (default 60) and
# prints its executions; FUZZ_HARNESSES (default: all six) picks some, and
# FUZZ_SEEDS_DIR (default BUILD_DIR/seeds) lets two runs share a build.
# Corpora grow in BUILD_DIR/corpus/<harness>, logs go to BUILD_DIR/logs; a
# crash leaves its input in BUILD_DIR/findings and fails the script. The
# same build's mlc-compile also compiles the malformed-model corpus under
# the sanitizers (utils/check_malformed.py), and its mlc-compile and mlc-run
# take FUZZ_MODELS (default 200) random valid models compared with ONNX
# Runtime (utils/fuzz_models.py; FUZZ_MODELS=0 skips them).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-$ROOT/build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
NODE=/usr/share/libonnx-testdata/data/node
bash "$ROOT/utils/install-deps.sh" --asan
FLAGS="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMLC_BUILD_TESTS=OFF -DMLC_BUILD_FUZZERS=ON \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_C_FLAGS="$FLAGS" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" > /dev/null
HARNESSES=(mlc-fuzz-import mlc-fuzz-graph mlc-fuzz-compile mlc-fuzz-signature
  mlc-fuzz-tensor-file mlc-fuzz-checked-run)
cmake --build "$BUILD_DIR" --target "${HARNESSES[@]}" mlc-compile mlc-run
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1

# Seeds.
SEEDS=${FUZZ_SEEDS_DIR:-$BUILD_DIR/seeds}
rm -rf "$SEEDS" && mkdir -p "$SEEDS"/{models,small-models,tensors,signatures,none}
/usr/bin/python3 "$ROOT/utils/malformed_models.py" "$SEEDS/malformed" > /dev/null
for m in "$SEEDS"/malformed/*/model.onnx; do
  cp "$m" "$SEEDS/models/$(basename "$(dirname "$m")").onnx"
done
cp "$ROOT"/test/Frontend/ONNX/Inputs/malformed/*.onnx "$SEEDS/models/"
if [ -d "$NODE" ]; then
  for t in "$NODE"/*/; do
    name=$(basename "$t")
    cp "$t/model.onnx" "$SEEDS/models/$name.onnx" 2>/dev/null || true
    # The whole compiler is slow per input: it starts from node tests only.
    cp "$t/model.onnx" "$SEEDS/small-models/$name.onnx" 2>/dev/null || true
    cp "$t"/test_data_set_0/input_0.pb "$SEEDS/tensors/$name.pb" 2>/dev/null || true
  done
fi
/usr/bin/python3 - "$SEEDS/tensors" <<'PY'
import sys, numpy as np
out = sys.argv[1]
for i, a in enumerate([np.zeros((2, 3), np.float32), np.arange(5, dtype=np.int64),
                       np.ones((1, 1, 2, 2), np.float16), np.array(3.5, np.float64),
                       np.zeros((0, 4), np.int32), np.array([True, False])]):
    np.save("%s/seed%d.npy" % (out, i), a)
PY
# Metadata of a few compiled models.
for m in identity_graph out_of_order external_ok; do
  "$ROOT/build/bin/mlc-compile" "$SEEDS/malformed/$m/model.onnx" \
    -o "$SEEDS/$m.so" > /dev/null 2>&1 || \
    "$BUILD_DIR/bin/mlc-compile" "$SEEDS/malformed/$m/model.onnx" \
    -o "$SEEDS/$m.so" > /dev/null 2>&1 || continue
  strings -n 8 "$SEEDS/$m.so" | grep '^{"' > "$SEEDS/signatures/$m.json" || true
done

# Each run's logs are its own: runs may overlap.
RUN_ID=$(date +%Y%m%d-%H%M%S)-$$
run() {
  local harness=$1 seeds=$2 max_len=${3:-1048576}
  local log="$BUILD_DIR/logs/$harness.$RUN_ID.log"
  case " ${FUZZ_HARNESSES:-${HARNESSES[*]}} " in
    *" $harness "*) ;;
    *) return 0 ;;
  esac
  local corpus="$BUILD_DIR/corpus/$harness"
  mkdir -p "$corpus" "$BUILD_DIR/findings" "$BUILD_DIR/logs"
  "$BUILD_DIR/bin/$harness" "$corpus" "$seeds" \
    -max_total_time="$SECONDS_EACH" -timeout=60 -rss_limit_mb=6144 \
    -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$BUILD_DIR/findings/$harness-" \
    > "$log" 2>&1 || {
      echo "fuzz: $harness found a problem (see $log and $BUILD_DIR/findings)"
      tail -40 "$log"
      return 1
    }
  echo "fuzz: $harness: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${SECONDS_EACH}s, corpus $(ls "$corpus" | wc -l)"
}
status=0
run mlc-fuzz-import "$SEEDS/models" || status=1
run mlc-fuzz-graph "$SEEDS/models" || status=1
run mlc-fuzz-compile "$SEEDS/small-models" 65536 || status=1
run mlc-fuzz-signature "$SEEDS/signatures" || status=1
run mlc-fuzz-tensor-file "$SEEDS/tensors" || status=1
run mlc-fuzz-checked-run "$SEEDS/none" 4096 || status=1
/usr/bin/python3 "$ROOT/utils/check_malformed.py" "$BUILD_DIR/bin/mlc-compile" \
  "$SEEDS/malformed" --timeout 600 || status=1
# Valid random models through the sanitized compiler and runtime, compared
# with ONNX Runtime (utils/fuzz_models.py): FUZZ_MODELS of them (default
# 200) from FUZZ_MODELS_SEED (default: the run's date), findings kept in
# BUILD_DIR/findings/models.
if [ "${FUZZ_MODELS:-200}" -gt 0 ]; then
  /usr/bin/python3 "$ROOT/utils/fuzz_models.py" \
    --mlc-compile "$BUILD_DIR/bin/mlc-compile" --mlc-run "$BUILD_DIR/bin/mlc-run" \
    --seed "${FUZZ_MODELS_SEED:-$(date +%Y%m%d)}" --count "${FUZZ_MODELS:-200}" \
    --timeout 600 --findings "$BUILD_DIR/findings/models" \
    --summary-json "$BUILD_DIR/logs/models.$RUN_ID.json" --quiet || status=1
fi
exit $status
