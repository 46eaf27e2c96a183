#!/usr/bin/env node
// Times a .tflite model with Google's LiteRT.js (@litertjs/core: TFLite + XNNPACK compiled to
// WebAssembly) under Node, the way `edgerun bench` times it: first invoke, warm-up runs, then N
// timed runs; prints one JSON object. Derived from ../shared/tools/oracle/run.mjs.
//
// usage: node litert_bench.mjs MODEL.tflite [--in FILE.bin ...] [--runs N] [--warmup N]
//          [--threads T] [--out-dir DIR] [--backend litert|tfjs-tflite]
// Inputs are raw little-endian tensors in subgraph input order (seeded random when absent).
// --backend tfjs-tflite runs the classic tflite::Interpreter (TFLite ~2.9, single thread),
// for models LiteRT.js rejects (LSTM variable tensors).

import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseTflite } from './tflite_fb.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

function usage(msg) {
  process.stderr.write(`litert_bench: ${msg}\nusage: node litert_bench.mjs MODEL.tflite [--in FILE.bin ...] ` +
    '[--runs N] [--warmup N] [--threads T] [--out-dir DIR] [--backend litert|tfjs-tflite]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { model: null, inputs: [], runs: 30, warmup: 3, threads: 1, outDir: null, backend: 'litert', seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => { if (i + 1 >= argv.length) usage(`${k} needs a value`); return argv[++i]; };
    if (k === '--in') a.inputs.push(val());
    else if (k === '--runs') a.runs = parseInt(val(), 10);
    else if (k === '--warmup') a.warmup = parseInt(val(), 10);
    else if (k === '--threads') a.threads = parseInt(val(), 10);
    else if (k === '--out-dir') a.outDir = val();
    else if (k === '--backend') a.backend = val();
    else if (k === '--seed') a.seed = parseInt(val(), 10);
    else if (k.startsWith('--')) usage(`unknown option ${k}`);
    else if (!a.model) a.model = k;
    else usage(`unexpected argument ${k}`);
  }
  if (!a.model) usage('no model');
  if (!(a.runs >= 1) || !(a.warmup >= 0) || !(a.threads >= 1)) usage('bad --runs/--warmup/--threads');
  if (!['litert', 'tfjs-tflite'].includes(a.backend)) usage(`bad --backend ${a.backend}`);
  if (a.backend === 'tfjs-tflite' && a.threads > 1) usage('tfjs-tflite runs on one thread only');
  return a;
}

function stats(times) {
  const s = [...times].sort((x, y) => x - y);
  const at = (p) => { const pos = p / 100 * (s.length - 1); const lo = Math.floor(pos); const hi = Math.min(lo + 1, s.length - 1); return s[lo] + (s[hi] - s[lo]) * (pos - lo); };
  const mean = s.reduce((x, y) => x + y, 0) / s.length;
  const std = Math.sqrt(s.reduce((x, y) => x + (y - mean) ** 2, 0) / s.length);
  return { min: s[0], median: at(50), mean, p90: at(90), p99: at(99), std, max: s[s.length - 1] };
}

const TYPE_BYTES = { float32: 4, int32: 4, uint8: 1, int64: 8, bool: 1, int16: 2, int8: 1, float16: 2, float64: 8, uint32: 4 };

// mulberry32, as the oracle's random inputs.
function randomBytes(dtype, n, seed) {
  let st = seed >>> 0;
  const r = () => { st = (st + 0x6d2b79f5) >>> 0; let t = st; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const buf = new ArrayBuffer(n * (TYPE_BYTES[dtype] ?? 4));
  const view = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array, int8: Int8Array, int16: Int16Array, bool: Uint8Array }[dtype];
  if (!view) return new Uint8Array(buf);
  const arr = new view(buf);
  for (let i = 0; i < arr.length; i++) {
    if (dtype === 'float32') arr[i] = r() * 2 - 1;
    else if (dtype === 'int8') arr[i] = -128 + Math.floor(r() * 256);
    else if (dtype === 'uint8') arr[i] = Math.floor(r() * 256);
    else if (dtype === 'int16') arr[i] = -32768 + Math.floor(r() * 65536);
    else if (dtype === 'bool') arr[i] = r() < 0.5 ? 0 : 1;
    else arr[i] = Math.floor(r() * 16);
  }
  return new Uint8Array(buf);
}

function loadScriptAsCjs(file) {
  const code = fs.readFileSync(file, 'utf8');
  const mod = { exports: {} };
  const fn = vm.runInThisContext('(function (exports, require, module, __filename, __dirname) {' + code + '\n})', { filename: file });
  fn(mod.exports, require, mod, file, path.dirname(file));
  return mod.exports;
}

const RUNTIME_ERRORS = [];
async function loadLiteRt(threads) {
  const variant = threads > 1 ? 'threaded' : 'plain';
  const glue = path.join(HERE, 'node_modules', '@litertjs', 'core', 'wasm',
    variant === 'threaded' ? 'litert_wasm_threaded_internal.js' : 'litert_wasm_internal.js');
  if (!fs.existsSync(glue)) throw new Error(`missing ${glue}: run 'npm ci --ignore-scripts' in ${HERE}`);
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
  globalThis.self ??= globalThis;
  globalThis.importScripts = (url) => { globalThis.ModuleFactory = loadScriptAsCjs(url); };
  if (typeof globalThis.navigator === 'undefined') globalThis.navigator = {};
  if (variant === 'threaded') {
    try { Object.defineProperty(globalThis.navigator, 'hardwareConcurrency', { value: threads, configurable: true }); } catch { /* ignore */ }
    process.env.LITERT_ORACLE_GLUE = glue;
  }
  const log = (s) => { process.stderr.write(`${s}\n`); if (/^(ERROR|FATAL)\b/.test(s)) RUNTIME_ERRORS.push(s); };
  globalThis.Module = { print: log, printErr: log,
    ...(variant === 'threaded' ? { mainScriptUrlOrBlob: path.join(HERE, 'pthread_worker.cjs') } : {}) };
  const core = await import('@litertjs/core');
  const warn = console.warn; console.warn = () => {};
  try { return { liteRt: await core.loadLiteRt(glue), variant }; } finally { console.warn = warn; }
}

function vecToArray(v) { const out = []; for (let i = 0; i < v.size(); i++) out.push(v.get(i)); v.delete(); return out; }

async function benchLiteRt(a, modelBytes, fb) {
  const t0 = performance.now();
  const { liteRt, variant } = await loadLiteRt(a.threads);
  const w = liteRt.liteRtWasm;
  const env = liteRt.getDefaultEnvironment();
  const ptr = w._malloc(modelBytes.byteLength);
  w.HEAPU8.set(modelBytes, ptr);
  const t1 = performance.now();
  const model = w.loadModel(env.liteRtEnvironment, ptr, modelBytes.byteLength);
  const sig = model.getSignature(0);
  const sigKey = sig.key();
  const inNames = vecToArray(sig.inputNames());
  const outNames = vecToArray(sig.outputNames());
  const compiled = await w.compileModel(env.liteRtEnvironment, model,
    { environment: env, accelerator: 'wasm', cpuOptions: { numThreads: a.threads }, gpuOptions: {}, webNNOptions: {} });
  const t2 = performance.now();
  if (RUNTIME_ERRORS.length) throw new Error(RUNTIME_ERRORS.join(' | '));

  // Signature position -> subgraph input position (the files are in subgraph order).
  const fbSig = fb.signature_defs.find((s) => s.key === sigKey);
  const sg = fb.subgraphs[fbSig ? fbSig.subgraph_index : 0];
  const subgraphPos = (names, side) => names.map((name, i) => {
    const t = fbSig ? fbSig[side].find((m) => m.name === name)?.tensor_index : sg[side][i];
    return sg[side].indexOf(t);
  });
  const inPos = subgraphPos(inNames, 'inputs');
  const outPos = subgraphPos(outNames, 'outputs');
  if (a.inputs.length && a.inputs.length !== inNames.length) throw new Error(`model has ${inNames.length} inputs, ${a.inputs.length} given`);
  const inputs = inNames.map((name, i) => {
    const fbT = sg.tensors[sg.inputs[inPos[i]]];
    let rtt = model.getInputTensorType(0, i);
    // A dynamic dimension (-1, e.g. a batch of shape_signature [-1, 1]) takes the flatbuffer's
    // shape, the size the interpreter allocates before any resize (as tools/oracle/run.mjs).
    const layout = rtt.layout();
    const dims = vecToArray(layout.dimensions());
    layout.delete();
    if (dims.some((d) => d < 0)) {
      const elementType = rtt.elementType().value;
      rtt.delete();
      const v = new w.VectorInt32();
      dims.forEach((d, k) => v.push_back(d >= 0 ? d : Math.max(1, fbT.shape?.[k] ?? 1)));
      const concrete = w.LiteRtLayout.create(v);
      v.delete();
      rtt = w.LiteRtRankedTensorType.create({ value: elementType }, concrete);
      concrete.delete();
    }
    const bytes = rtt.bytes();
    const data = a.inputs.length ? new Uint8Array(fs.readFileSync(a.inputs[inPos[i]]))
      : randomBytes(fbT.type, bytes / (TYPE_BYTES[fbT.type] ?? 1), a.seed * 1000003 + inPos[i]);
    if (data.byteLength !== bytes) throw new Error(`input ${inPos[i]}: ${data.byteLength} bytes, tensor needs ${bytes}`);
    const tb = w.LiteRtTensorBuffer.createManaged(env.liteRtEnvironment, w.LiteRtTensorBufferType.HOST_MEMORY, rtt, bytes);
    rtt.delete();
    const p = tb.lock(w.LiteRtTensorBufferLockMode.WRITE);
    w.HEAPU8.set(data, p);
    tb.unlock();
    return tb;
  });
  const invoke = async () => await compiled.run(0, inputs);
  const t3 = performance.now();
  const first = await invoke();
  const t4 = performance.now();
  if (RUNTIME_ERRORS.length) throw new Error(RUNTIME_ERRORS.join(' | '));
  if (a.outDir) {
    fs.mkdirSync(a.outDir, { recursive: true });
    first.forEach((tb, i) => {
      const p = tb.lock(w.LiteRtTensorBufferLockMode.READ);
      const data = w.HEAPU8.slice(p, p + tb.packedSize());
      tb.unlock();
      fs.writeFileSync(path.join(a.outDir, `output_${outPos[i]}.bin`), data);
    });
  }
  first.forEach((b) => b.delete());
  for (let i = 0; i < a.warmup; i++) (await invoke()).forEach((b) => b.delete());
  const times = [];
  for (let i = 0; i < a.runs; i++) {
    const s = performance.now();
    const o = await invoke();
    times.push(performance.now() - s);
    o.forEach((b) => b.delete());
  }
  return { runtime: `@litertjs/core@${require('@litertjs/core/package.json').version} (${variant})`,
    fully_accelerated: compiled.isFullyAccelerated(),
    load_ms: t1 - t0, init_ms: t2 - t1, first_inference_ms: t4 - t3, latency_ms: stats(times) };
}

async function benchTfjsTflite(a, modelBytes, fb) {
  const dir = path.join(HERE, 'node_modules', '@tensorflow', 'tfjs-tflite', 'wasm') + '/';
  const runGlobal = (file) => vm.runInThisContext(fs.readFileSync(file, 'utf8'), { filename: file });
  globalThis.self ??= globalThis;
  globalThis.exports ??= {};
  globalThis.require ??= require;
  globalThis.location ??= { origin: 'file://', href: `file://${dir}client.js` };
  globalThis.importScripts = (...urls) => urls.forEach((u) => runGlobal(String(u).replace(/^file:\/\//, '').replace('_threaded', '')));
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (u, o) => {
    const url = String(u?.url ?? u);
    if (url.startsWith('file://') || url.startsWith('/')) {
      return new Response(fs.readFileSync(url.replace(/^file:\/\//, '')), { headers: { 'content-type': 'application/wasm' } });
    }
    return realFetch(u, o);
  };
  const consoleLog = console.log; console.log = (...x) => process.stderr.write(x.join(' ') + '\n');
  const t0 = performance.now();
  runGlobal(dir + 'tflite_web_api_client.js');
  const tfweb = globalThis.tfweb;
  tfweb.tflite_web_api.setWasmPath(dir);
  const ab = modelBytes.buffer.slice(modelBytes.byteOffset, modelBytes.byteOffset + modelBytes.byteLength);
  const runner = await tfweb.TFLiteWebModelRunner.create(ab, { numThreads: -1 });
  const t1 = performance.now();
  console.log = consoleLog;
  const sg = fb.subgraphs[0];
  const inInfos = runner.getInputs(), outInfos = runner.getOutputs();
  const data = inInfos.map((t, k) => {
    const bytes = t.data().byteLength;
    const d = a.inputs.length ? new Uint8Array(fs.readFileSync(a.inputs[k]))
      : randomBytes(t.dataType, bytes / (TYPE_BYTES[t.dataType] ?? 1), a.seed * 1000003 + k);
    if (d.byteLength !== bytes) throw new Error(`input ${k}: ${d.byteLength} bytes, tensor needs ${bytes}`);
    return d;
  });
  // Stateful models: inputs are copied before each run (not timed).
  const setInputs = () => inInfos.forEach((t, k) => { const v = t.data(); new Uint8Array(v.buffer, v.byteOffset, v.byteLength).set(data[k]); });
  setInputs();
  const t2 = performance.now();
  if (!runner.infer()) throw new Error('tfjs-tflite: infer() failed');
  const t3 = performance.now();
  if (a.outDir) {
    fs.mkdirSync(a.outDir, { recursive: true });
    outInfos.forEach((t, k) => { const v = t.data(); fs.writeFileSync(path.join(a.outDir, `output_${sg.outputs.indexOf(t.id) >= 0 ? sg.outputs.indexOf(t.id) : k}.bin`), new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice()); });
  }
  for (let i = 0; i < a.warmup; i++) { setInputs(); runner.infer(); }
  const times = [];
  for (let i = 0; i < a.runs; i++) {
    setInputs();
    const s = performance.now();
    runner.infer();
    times.push(performance.now() - s);
  }
  return { runtime: `@tensorflow/tfjs-tflite@${require('@tensorflow/tfjs-tflite/package.json').version} (classic interpreter, 1 thread)`,
    load_ms: 0, init_ms: t1 - t0, first_inference_ms: t3 - t2, latency_ms: stats(times) };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const modelBytes = new Uint8Array(fs.readFileSync(a.model));
  const fb = parseTflite(modelBytes);
  const r = a.backend === 'litert' ? await benchLiteRt(a, modelBytes, fb) : await benchTfjsTflite(a, modelBytes, fb);
  process.stdout.write(JSON.stringify({ model: a.model, backend: a.backend, threads: a.threads, runs: a.runs,
    warmup: a.warmup, node: process.version, ...r }) + '\n');
}

main().then(() => process.exit(0), (e) => { process.stderr.write(`litert_bench: ${e?.stack ?? e}\n`); process.exit(1); });
