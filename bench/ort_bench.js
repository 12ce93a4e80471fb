// ===- ort_bench.js - Time a model with ONNX Runtime (CPU) ---------------=== //
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
//   node ort_bench.js MODEL.onnx THREADS ITERATIONS WARMUP OUTDIR \
//        NAME:DTYPE:DIMS:FILE ...
//
// Runs MODEL with onnxruntime-node (graphOptimizationLevel 'all', or
// ORT_OPT_LEVEL: 'disabled', 'basic', 'extended'; THREADS
// intra-op threads, sequential execution) on raw little-endian inputs, times
// ITERATIONS runs after WARMUP untimed ones, writes output k as raw bytes to
// OUTDIR/ort_output_<k>.bin and prints one JSON line: median_ms, p90_ms,
// peak_rss_mb and the outputs' names, types and dims. With ORT_PROFILE=PREFIX
// in the environment, ONNX Runtime's profiler records every run into
// PREFIX_<date>.json, for bench/kernel_profile.py.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
  int32: Int32Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
  // float16 as its bits (Node 20 has no Float16Array).
  float16: Uint16Array,
};

async function main() {
  const [model, threads, iterations, warmup, outdir, ...specs] =
      process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: process.env.ORT_OPT_LEVEL || 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableProfiling: Boolean(process.env.ORT_PROFILE),
    profileFilePrefix: process.env.ORT_PROFILE || 'onnxruntime_profile',
  });
  const feeds = {};
  for (const spec of specs) {
    // NAME may hold colons (tf2onnx's `input:0`): the last three fields are
    // split off from the right.
    const fields = spec.split(':');
    const [dtype, dims, file] = fields.slice(-3);
    const name = fields.slice(0, -3).join(':');
    const bytes = fs.readFileSync(file);
    const Array = ARRAYS[dtype];
    const data = new Array(bytes.buffer, bytes.byteOffset,
                           bytes.length / Array.BYTES_PER_ELEMENT);
    feeds[name] = new ort.Tensor(dtype, data,
                                 dims === '' ? [] : dims.split('x').map(Number));
  }
  let peak = process.memoryUsage().rss;
  let results;
  for (let i = 0; i < Number(warmup); ++i)
    results = await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(iterations); ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  times.sort((a, b) => a - b);
  const median = times.length % 2
      ? times[(times.length - 1) / 2]
      : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
  const p90 = times[Math.min(times.length - 1,
                             Math.round(0.9 * (times.length - 1)))];
  const outputs = session.outputNames.map((name, k) => {
    const t = results[name];
    fs.writeFileSync(path.join(outdir, `ort_output_${k}.bin`),
                     Buffer.from(t.data.buffer, t.data.byteOffset,
                                 t.data.byteLength));
    return {name, type: t.type, dims: t.dims};
  });
  if (process.env.ORT_PROFILE)
    session.endProfiling();
  console.log(JSON.stringify({median_ms: median, p90_ms: p90,
                              peak_rss_mb: peak / (1 << 20), outputs}));
}

main().catch((e) => {
  console.error(`ort_bench: ${e.message}`);
  process.exit(1);
});
