// ===- ort_run_many.js - Run many models with ONNX Runtime in one process -=== //
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ===--------------------------------------------------------------------=== //
//
//   node ort_run_many.js MANIFEST.json     (a JSON list of jobs)
//   node ort_run_many.js -                 (one JSON job per line on stdin)
//
// Runs each job's model once with onnxruntime-node (CPU, one intra-op
// thread, sequential execution) so that a reference for many small models
// costs one Node.js start instead of one per model. A job is
//
//   {"model": "m.onnx", "outdir": "dir", "opt": "disabled",
//    "inputs": [{"name": "x", "dtype": "float32", "dims": [1, 3],
//                "file": "x.bin"}]}
//
// with inputs as raw little-endian bytes (bool as one byte) and `opt` the
// graph optimization level ('disabled', 'basic', 'extended' or 'all';
// default 'disabled', so that the reference computes each node as the ONNX
// specification says). Output k is written raw to OUTDIR/ort_output_<k>.bin.
// For every job, in order, one JSON line is printed:
//
//   {"ok": true, "outputs": [{"name", "type", "dims", "file"}]}
//   {"ok": false, "error": "..."}
//
// In stdin mode each answer is flushed before the next line is read, so a
// caller can keep one process for a whole run.
//
// ===--------------------------------------------------------------------=== //

'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
  int32: Int32Array, int16: Int16Array, uint16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
  // Without a Float16Array, onnxruntime-common takes float16 data as the
  // raw bits in a Uint16Array.
  float16: globalThis.Float16Array || Uint16Array,
};

async function runJob(job) {
  const session = await ort.InferenceSession.create(job.model, {
    graphOptimizationLevel: job.opt || 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  try {
    const feeds = {};
    for (const input of job.inputs) {
      const bytes = fs.readFileSync(input.file);
      const Array = ARRAYS[input.dtype];
      if (!Array)
        throw new Error(`input '${input.name}': unsupported dtype ` +
                        input.dtype);
      // Copy, so the typed array is aligned whatever the Buffer's offset.
      const copy = new Uint8Array(bytes.length);
      copy.set(bytes);
      const data = new Array(copy.buffer, 0,
                             bytes.length / Array.BYTES_PER_ELEMENT);
      const t = input.dtype === 'bool'
          ? new ort.Tensor('bool', data, input.dims)
          : new ort.Tensor(input.dtype, data, input.dims);
      feeds[input.name] = t;
    }
    const results = await session.run(feeds);
    fs.mkdirSync(job.outdir, {recursive: true});
    return session.outputNames.map((name, k) => {
      const t = results[name];
      const file = path.join(job.outdir, `ort_output_${k}.bin`);
      fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset,
                                         t.data.byteLength));
      return {name, type: t.type, dims: t.dims, file};
    });
  } finally {
    if (typeof session.release === 'function')
      await session.release();
  }
}

async function answer(job) {
  let line;
  try {
    line = JSON.stringify({ok: true, outputs: await runJob(job)});
  } catch (e) {
    line = JSON.stringify({ok: false, error: String(e && e.message || e)});
  }
  await new Promise((resolve) => process.stdout.write(line + '\n', resolve));
}

async function main() {
  const source = process.argv[2];
  if (!source) {
    console.error('usage: node ort_run_many.js MANIFEST.json | -');
    process.exit(2);
  }
  if (source !== '-') {
    for (const job of JSON.parse(fs.readFileSync(source, 'utf8')))
      await answer(job);
    return;
  }
  const lines = readline.createInterface({input: process.stdin});
  for await (const line of lines) {
    if (line.trim())
      await answer(JSON.parse(line));
  }
}

main().catch((e) => {
  console.error(`ort_run_many: ${e.message}`);
  process.exit(1);
});
