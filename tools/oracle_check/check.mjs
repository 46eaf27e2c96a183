#!/usr/bin/env node
// Runs Google's runtime on every case folder written by gen_cases and compares its outputs with
// edgerun's (edgerun_default_K.bin: Int8Arithmetic::kLiteRtDefault, edgerun_reference_K.bin:
// kTfliteReference). One line per case: exact fraction and largest difference of each mode.
//
// usage: node check.mjs ORACLE_DIR CASES_DIR [--backend litert|tfjs-tflite] [--filter S] [--quiet]
//   ORACLE_DIR: a writable copy of shared/tools/oracle with `npm ci` done (see README.md).
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
if (args.length < 2) {
  process.stderr.write('usage: node check.mjs ORACLE_DIR CASES_DIR [--backend litert|tfjs-tflite] [--filter S] [--quiet]\n');
  process.exit(2);
}
const [oracleDir, casesDir] = args.map((a) => path.resolve(a));
const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d; };
const backend = opt('--backend', 'litert');
const filter = opt('--filter', '');
const quiet = args.includes('--quiet');
// tfjs-tflite prints through console.log, which it is silenced around; results go to stdout.
const print = (line) => process.stdout.write(`${line}\n`);
const require = createRequire(path.join(oracleDir, 'run.mjs'));

const DTYPES = { 1: ['float32', Float32Array], 3: ['uint8', Uint8Array], 9: ['int8', Int8Array], 2: ['int32', Int32Array],
  7: ['int16', Int16Array] };
const TFJS_DTYPES = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, int32: Int32Array, int16: Int16Array };

function loadCjs(file) {
  const mod = { exports: {} };
  const fn = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(file, 'utf8')}\n})`,
    { filename: file });
  fn(mod.exports, require, mod, file, path.dirname(file));
  return mod.exports;
}

// ---- LiteRT.js (@litertjs/core): returns run(modelBytes, inputs[]) -> [{dtype, bytes}]
async function liteRtRunner() {
  const glue = path.join(oracleDir, 'node_modules/@litertjs/core/wasm/litert_wasm_internal.js');
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
  globalThis.self ??= globalThis;
  globalThis.importScripts = (url) => { globalThis.ModuleFactory = loadCjs(url); };
  globalThis.navigator ??= {};
  const errors = [];
  const log = (s) => { if (/^(ERROR|FATAL)\b/.test(s)) errors.push(s); };
  globalThis.Module = { print: log, printErr: log };
  const core = await import(require.resolve('@litertjs/core'));
  const warn = console.warn; console.warn = () => {};
  const liteRt = await core.loadLiteRt(glue);
  console.warn = warn;
  const w = liteRt.liteRtWasm;
  const env = liteRt.getDefaultEnvironment();
  const vec = (v) => { const o = []; for (let i = 0; i < v.size(); i++) o.push(v.get(i)); v.delete(); return o; };
  return async (bytes, inputs) => {
    const ptr = w._malloc(bytes.byteLength);
    w.HEAPU8.set(bytes, ptr);
    const model = w.loadModel(env.liteRtEnvironment, ptr, bytes.byteLength);
    const compiled = await w.compileModel(env.liteRtEnvironment, model,
      { environment: env, accelerator: 'wasm', cpuOptions: { numThreads: 1 }, gpuOptions: {}, webNNOptions: {} });
    if (errors.length) throw new Error(errors.splice(0).join(' | '));
    // Single-op models from gen_cases have no signature: positions follow the subgraph.
    const bufs = inputs.map((data, k) => {
      const rtt = model.getInputTensorType(0, k);
      const tb = w.LiteRtTensorBuffer.createManaged(env.liteRtEnvironment, w.LiteRtTensorBufferType.HOST_MEMORY, rtt,
        rtt.bytes());
      rtt.delete();
      const p = tb.lock(w.LiteRtTensorBufferLockMode.WRITE);
      w.HEAPU8.set(data, p);
      tb.unlock();
      return tb;
    });
    const outs = await compiled.run(0, bufs);
    if (errors.length) throw new Error(errors.splice(0).join(' | '));
    const result = outs.map((tb) => {
      const tt = tb.tensorType();
      const et = tt.elementType().value;
      tt.delete();
      const p = tb.lock(w.LiteRtTensorBufferLockMode.READ);
      const data = w.HEAPU8.slice(p, p + tb.packedSize());
      tb.unlock();
      tb.delete();
      return { dtype: DTYPES[et]?.[0] ?? `type${et}`, bytes: data };
    });
    bufs.forEach((b) => b.delete());
    compiled.delete?.();
    model.delete?.();
    w._free(ptr);
    return result;
  };
}

// ---- tfjs-tflite (classic TFLite ~2.9 + XNNPACK)
async function tfjsRunner() {
  const dir = path.join(oracleDir, 'node_modules/@tensorflow/tfjs-tflite/wasm') + '/';
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
  const consoleLog = console.log; console.log = () => {};
  runGlobal(dir + 'tflite_web_api_client.js');
  globalThis.tfweb.tflite_web_api.setWasmPath(dir);
  return async (bytes, inputs) => {
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const runner = await globalThis.tfweb.TFLiteWebModelRunner.create(ab, { numThreads: -1 });
    console.log = consoleLog;
    const ins = runner.getInputs();
    ins.forEach((t, k) => { const v = t.data(); new Uint8Array(v.buffer, v.byteOffset, v.byteLength).set(inputs[k]); });
    if (!runner.infer()) throw new Error('infer() failed');
    const outs = runner.getOutputs().map((t) => {
      const v = t.data();
      return { dtype: t.dataType, bytes: new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice() };
    });
    runner.cleanUp?.();
    console.log = () => {};
    return outs;
  };
}

function view(dtype, bytes) {
  const T = TFJS_DTYPES[dtype];
  const copy = new Uint8Array(bytes);
  return new T(copy.buffer, 0, copy.byteLength / T.BYTES_PER_ELEMENT);
}

// Exact fraction and largest difference (in stored units; in ulps-free absolute value for floats).
function compare(dtype, oracle, mine) {
  if (!mine) return { missing: true };
  const a = view(dtype, oracle), b = view(dtype, mine);
  if (a.length !== b.length) return { size: `${b.length} != ${a.length}` };
  let same = 0, maxDiff = 0, first = -1;
  for (let i = 0; i < a.length; i++) {
    const equal = a[i] === b[i] || (Number.isNaN(a[i]) && Number.isNaN(b[i]));
    if (equal) same++;
    else if (first < 0) first = i;
    const d = Math.abs(a[i] - b[i]);
    if (d > maxDiff) maxDiff = d;
  }
  return { exact: same / a.length, maxDiff, first, oracleAt: first >= 0 ? a[first] : undefined,
    mineAt: first >= 0 ? b[first] : undefined };
}

const fmt = (r) => {
  if (!r) return 'n/a';
  if (r.missing) return 'missing';
  if (r.size) return `size ${r.size}`;
  const pct = (100 * r.exact).toFixed(r.exact === 1 ? 0 : 3);
  return r.exact === 1 ? 'exact' : `${pct}% max ${+r.maxDiff.toPrecision(3)} (#${r.first}: ${r.mineAt} vs ${r.oracleAt})`;
};

const run = backend === 'tfjs-tflite' ? await tfjsRunner() : await liteRtRunner();
const dirs = fs.readdirSync(casesDir).filter((d) => d.includes(filter) && fs.existsSync(path.join(casesDir, d, 'model.tflite'))).sort();
const totals = { default: 0, reference: 0, n: 0, failed: 0 };
for (const d of dirs) {
  const dir = path.join(casesDir, d);
  const inputs = fs.readdirSync(dir).filter((f) => /^input_\d+\.bin$/.test(f)).sort()
    .map((f) => new Uint8Array(fs.readFileSync(path.join(dir, f))));
  let outs;
  try {
    outs = await run(new Uint8Array(fs.readFileSync(path.join(dir, 'model.tflite'))), inputs);
  } catch (e) {
    totals.failed++;
    print(`${d}: oracle failed: ${String(e.message ?? e).slice(0, 200)}`);
    continue;
  }
  const line = [];
  let allDefault = true, allReference = true;
  outs.forEach((o, k) => {
    fs.writeFileSync(path.join(dir, `oracle_${backend}_${k}.bin`), o.bytes);
    const read = (m) => { const f = path.join(dir, `edgerun_${m}_${k}.bin`); return fs.existsSync(f) ? fs.readFileSync(f) : null; };
    const rd = compare(o.dtype, o.bytes, read('default'));
    const rr = compare(o.dtype, o.bytes, read('reference'));
    allDefault &&= rd.exact === 1;
    allReference &&= rr.exact === 1;
    line.push(`default ${fmt(rd)} | reference ${fmt(rr)}`);
  });
  totals.n++;
  if (allDefault) totals.default++;
  if (allReference) totals.reference++;
  if (!quiet || !allDefault) print(`${d}: ${line.join(' ; ')}`);
}
print(`${totals.n} cases (${backend}): default mode exact in ${totals.default}, reference mode exact in ` +
  `${totals.reference}, oracle failed on ${totals.failed}`);
