#!/usr/bin/env node
// Times an .onnx model with ONNX Runtime's native CPU library (onnxruntime-node), the way
// `edgerun bench` times a model: first run, warm-up runs, N timed runs; prints one JSON object.
//
// usage: node ort_bench.mjs MODEL.onnx [--in FILE.bin] [--nhwc] [--runs N] [--warmup N]
//          [--threads T] [--out FILE.bin]
// --in: raw float32 input; with --nhwc it is in NHWC order (as the .tflite twin takes it) and is
// transposed to the model's NCHW input.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

function parseArgs(argv) {
  const a = { model: null, input: null, nhwc: false, runs: 30, warmup: 3, threads: 1, out: null };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => argv[++i];
    if (k === '--in') a.input = val();
    else if (k === '--nhwc') a.nhwc = true;
    else if (k === '--runs') a.runs = parseInt(val(), 10);
    else if (k === '--warmup') a.warmup = parseInt(val(), 10);
    else if (k === '--threads') a.threads = parseInt(val(), 10);
    else if (k === '--out') a.out = val();
    else if (!a.model) a.model = k;
    else { process.stderr.write(`ort_bench: unexpected argument ${k}\n`); process.exit(2); }
  }
  if (!a.model) { process.stderr.write('usage: node ort_bench.mjs MODEL.onnx [--in FILE.bin] [--nhwc] [--runs N] [--warmup N] [--threads T] [--out FILE]\n'); process.exit(2); }
  return a;
}

function stats(times) {
  const s = [...times].sort((x, y) => x - y);
  const at = (p) => { const pos = p / 100 * (s.length - 1); const lo = Math.floor(pos); const hi = Math.min(lo + 1, s.length - 1); return s[lo] + (s[hi] - s[lo]) * (pos - lo); };
  const mean = s.reduce((x, y) => x + y, 0) / s.length;
  const std = Math.sqrt(s.reduce((x, y) => x + (y - mean) ** 2, 0) / s.length);
  return { min: s[0], median: at(50), mean, p90: at(90), p99: at(99), std, max: s[s.length - 1] };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', executionProviders: ['cpu'] });
  const t1 = performance.now();
  const inputName = session.inputNames[0];
  const meta = session.inputMetadata?.[0];
  const dims = meta?.shape ?? [1, 3, 224, 224];
  const [n, c, h, w] = dims;
  const count = n * c * h * w;
  let data = new Float32Array(count);
  if (a.input) {
    const raw = fs.readFileSync(a.input);
    const src = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    if (src.length !== count) throw new Error(`input has ${src.length} floats, the model needs ${count}`);
    if (a.nhwc) {
      for (let b = 0; b < n; b++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let k = 0; k < c; k++) {
        data[((b * c + k) * h + y) * w + x] = src[((b * h + y) * w + x) * c + k];
      }
    } else data = src;
  } else {
    for (let i = 0; i < count; i++) data[i] = Math.sin(i) ;
  }
  const feeds = { [inputName]: new ort.Tensor('float32', data, dims) };
  const t2 = performance.now();
  const first = await session.run(feeds);
  const t3 = performance.now();
  if (a.out) {
    const o = first[session.outputNames[0]].data;
    fs.writeFileSync(a.out, Buffer.from(o.buffer, o.byteOffset, o.byteLength));
  }
  for (let i = 0; i < a.warmup; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < a.runs; i++) {
    const s = performance.now();
    await session.run(feeds);
    times.push(performance.now() - s);
  }
  process.stdout.write(JSON.stringify({ model: a.model, runtime: `onnxruntime-node@${require('onnxruntime-node/package.json').version}`,
    threads: a.threads, runs: a.runs, warmup: a.warmup, init_ms: t1 - t0, first_inference_ms: t3 - t2,
    latency_ms: stats(times) }) + '\n');
}

main().then(() => process.exit(0), (e) => { process.stderr.write(`ort_bench: ${e?.stack ?? e}\n`); process.exit(1); });
