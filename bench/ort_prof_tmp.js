'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');
async function main() {
  const [model, threads, iterations, file, dims, prefix] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all', intraOpNumThreads: Number(threads), interOpNumThreads: 1,
    executionMode: 'sequential', enableProfiling: true, profileFilePrefix: prefix });
  const bytes = fs.readFileSync(file);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const feeds = {}; feeds[session.inputNames[0]] = new ort.Tensor('float32', data, dims.split('x').map(Number));
  for (let i = 0; i < Number(iterations); ++i) await session.run(feeds);
  session.endProfiling();
}
main();
