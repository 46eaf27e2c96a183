// Copied from ../shared/tools/oracle (the reference runner) for bench/litert_bench.mjs.
// Entry point for LiteRT.js (emscripten pthreads) worker threads under Node.
// The packaged glue .js lives in a "type": "module" package, so Node would
// load it as ESM in a Worker; we evaluate it as a CommonJS script instead.
'use strict';
const fs = require('node:fs');
const vm = require('node:vm');
const path = require('node:path');
const { workerData } = require('node:worker_threads');
const glue = process.env.LITERT_ORACLE_GLUE;
if (!glue) throw new Error('LITERT_ORACLE_GLUE not set');
const code = fs.readFileSync(glue, 'utf8');
const fn = vm.runInThisContext(
  '(function (exports, require, module, __filename, __dirname) {' + code + '\n})',
  { filename: glue });
fn(module.exports, require, module, glue, path.dirname(glue));
void workerData;
