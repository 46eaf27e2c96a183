#!/usr/bin/env bash
# `edgerun bench` and `edgerun synth`: JSON report keys and sanity, the op profile, the Chrome
# trace (one slice per node per run), CSV, usage errors, and the synthetic networks (float and
# int8) running end to end. A few seconds.   usage: cli_bench_test.sh EDGERUN
set -u
EDGERUN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

check() {  # check DESCRIPTION -- COMMAND...: the command must succeed
  local what=$1
  shift 2
  if "$@" >"$TMP/check.out" 2>&1; then
    echo "PASS $what"
  else
    echo "FAIL $what"; sed 's/^/  | /' "$TMP/check.out" | head -8
    failures=$((failures + 1))
  fi
}

expect_rc() {  # expect_rc WANT DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $what: exit $rc, expected $want"; sed 's/^/  | /' "$TMP/stderr" | head -5
    failures=$((failures + 1))
  else
    echo "PASS $what"
  fi
}

FAST=(--runs 5 --warmup 1 --min-secs 0)
# The system interpreter starts fastest (a pyenv shim costs a second per call).
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
expect_rc 0 "synth tiny_cnn" -- "$EDGERUN" synth tiny_cnn -o "$TMP/tiny.tflite"

# --json: one object with the keys scripts rely on, and numbers that make sense.
# The builtin kernels (--delegate none) so that every tensor lives in the arena; XNNPACK below.
expect_rc 0 "bench --json" -- "$EDGERUN" bench "$TMP/tiny.tflite" --json --delegate none "${FAST[@]}"
check "bench --json keys and values" -- "$PY" - "$TMP/stdout" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lat = j["latency_ms"]
for k in ("min", "median", "mean", "p90", "p99", "std"):
    assert isinstance(lat[k], (int, float)) and lat[k] >= 0, (k, lat[k])
assert 0 < lat["min"] <= lat["median"] <= lat["p90"] <= lat["p99"] <= lat["max"], lat
assert lat["min"] <= lat["mean"] <= lat["max"], lat
assert j["runs"] == 5 and j["warmup"]["runs"] == 1, (j["runs"], j["warmup"])
assert j["threads"] == 1 and j["delegate"] == "none", (j["threads"], j["delegate"])
assert j["init_ms"] > 0 and j["load_ms"] > 0 and j["first_inference_ms"] > 0, j
# tiny_cnn: conv 8x8x8 <- 3x3x3, fc 10 <- 128: 2 * (512 * 27 + 10 * 128) operations.
assert j["ops_per_run"] == 2 * (512 * 27 + 1280), j["ops_per_run"]
assert j["weight_bytes"] == 4 * (8 * 27 + 8 + 1280 + 10), j["weight_bytes"]
# Activations: at least the conv output (8x8x8 floats) must live in the arena.
assert j["arena_bytes"] >= 8 * 8 * 8 * 4, j["arena_bytes"]
assert 1 << 20 < j["peak_rss_bytes"] < 1 << 31, j["peak_rss_bytes"]
assert "profile" not in j
PY

# Threads reach the report; --min-secs keeps running past --runs.
expect_rc 0 "bench --threads 2 --min-secs" -- "$EDGERUN" bench "$TMP/tiny.tflite" --json --threads 2 --runs 1 --warmup 0 --min-secs 0.05
check "threads and min-secs" -- "$PY" -c '
import json, os, sys; j = json.load(open(sys.argv[1]))
# The threads started: those asked for, at most the CPUs the process may run on.
assert j["threads"] == min(2, len(os.sched_getaffinity(0))) and j["threads_requested"] == 2, j
assert j["runs"] > 1 and j["steady_secs"] >= 0.05, (j["runs"], j["steady_secs"])' "$TMP/stdout"

# --min-secs on a fast model stops at 100000 runs, so the samples do not fill memory; an
# explicit --runs above that is honoured.
expect_rc 0 "bench --min-secs cap" -- "$EDGERUN" bench "$TMP/tiny.tflite" --json --runs 1 --warmup 0 --min-secs 600
check "min-secs stops at 100000 runs" -- "$PY" -c '
import json, sys; j = json.load(open(sys.argv[1]))
assert j["runs"] == 100000 and j["steady_secs"] < 600, (j["runs"], j["steady_secs"])' "$TMP/stdout"

# --profile: every op type of the model, in the text tables and in the JSON.
expect_rc 0 "bench --profile" -- "$EDGERUN" bench "$TMP/tiny.tflite" --profile --delegate none "${FAST[@]}"
for op in CONV_2D MAX_POOL_2D FULLY_CONNECTED SOFTMAX; do
  grep -q "$op" "$TMP/stdout" || { echo "FAIL --profile does not mention $op"; failures=$((failures + 1)); }
done
grep -q "by op type" "$TMP/stdout" && grep -q "by node" "$TMP/stdout" \
  || { echo "FAIL --profile lacks its tables"; failures=$((failures + 1)); }
expect_rc 0 "bench --profile --json" -- "$EDGERUN" bench "$TMP/tiny.tflite" --profile --json --delegate none --threads 2 "${FAST[@]}"
check "profile JSON" -- "$PY" -c '
import json, sys; p = json.load(open(sys.argv[1]))["profile"]
types = {t["type"]: t for t in p["op_types"]}
assert set(types) == {"CONV_2D", "MAX_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}, types
assert all(t["count"] == 5 and t["nodes"] == 1 for t in types.values()), types
assert sorted(n["node"] for n in p["nodes"]) == [0, 1, 2, 3], p["nodes"]
assert p["nodes"] == sorted(p["nodes"], key=lambda n: -n["total_ms"]), "not sorted by time"
assert 0 < sum(t["percent"] for t in p["op_types"]) <= 100.5
assert types["CONV_2D"]["ops"] == 5 * 2 * 512 * 27, types["CONV_2D"]["ops"]
# Each node of this tiny model is a few microseconds of work: not worth a second thread.
assert all(n["threads"] == 1 for n in p["nodes"]), p["nodes"]' "$TMP/stdout"

# --trace: Chrome trace events, one complete slice per node per timed run, with thread ids.
expect_rc 0 "bench --trace --csv" -- "$EDGERUN" bench "$TMP/tiny.tflite" --trace "$TMP/trace.json" --csv "$TMP/prof.csv" \
  --delegate none "${FAST[@]}"
check "trace is valid JSON with a slice per node per run" -- "$PY" -c '
import json, sys, collections
events = json.load(open(sys.argv[1]))["traceEvents"]
slices = [e for e in events if e.get("cat") == "node"]
assert len(slices) == 4 * 5, len(slices)
per_node = collections.Counter((e["args"]["node"], e["args"]["run"]) for e in slices)
assert set(per_node.values()) == {1} and len(per_node) == 20, per_node
for e in slices:
    assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0 and isinstance(e["tid"], int) and e["pid"] == 1, e
names = {e["name"] for e in slices}
assert names == {"CONV_2D", "MAX_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}, names
assert any(e.get("ph") == "M" and e["name"] == "thread_name" for e in events)
assert len([e for e in events if e.get("cat") == "run"]) == 5
# Slices of one run lie inside that run and in node order.
runs = sorted((e for e in events if e.get("cat") == "run"), key=lambda e: e["ts"])
for r in runs:
    inside = sorted((e for e in slices if e["args"]["run"] == r["args"]["run"]), key=lambda e: e["ts"])
    assert [e["args"]["node"] for e in inside] == [0, 1, 2, 3]
    assert inside[0]["ts"] >= r["ts"] - 0.01 and inside[-1]["ts"] + inside[-1]["dur"] <= r["ts"] + r["dur"] + 0.01' "$TMP/trace.json"
check "csv has a row per node" -- "$PY" -c '
import csv, sys; rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4 and {r["op_type"] for r in rows} == {"CONV_2D", "MAX_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"}, rows
assert all(int(r["count"]) == 5 for r in rows)' "$TMP/prof.csv"

# With XNNPACK (the default when built with it) a partition is one profile entry with its nodes
# and their work.
if "$EDGERUN" inspect "$TMP/tiny.tflite" --delegate xnnpack >/dev/null 2>&1; then
  expect_rc 0 "bench --profile --json, XNNPACK" -- "$EDGERUN" bench "$TMP/tiny.tflite" --profile --json "${FAST[@]}"
  check "XNNPACK partition in the profile" -- "$PY" -c '
import json, sys; j = json.load(open(sys.argv[1])); p = j["profile"]
assert j["delegate"].lower() == "xnnpack", j["delegate"]
parts = [n for n in p["nodes"] if n["type"] == "XNNPACK"]
assert parts and all(n["count"] == 5 for n in parts), p["nodes"]
assert sum(t["ops"] for t in p["op_types"]) == 5 * j["ops_per_run"], (p["op_types"], j["ops_per_run"])' "$TMP/stdout"
fi

# Usage and errors.
expect_rc 2 "bench without a model" -- "$EDGERUN" bench
expect_rc 2 "bench --runs 0" -- "$EDGERUN" bench "$TMP/tiny.tflite" --runs 0
expect_rc 2 "bench --delegate bogus" -- "$EDGERUN" bench "$TMP/tiny.tflite" --delegate bogus
expect_rc 2 "bench --min-secs x" -- "$EDGERUN" bench "$TMP/tiny.tflite" --min-secs x
expect_rc 0 "bench --help" -- "$EDGERUN" bench --help
expect_rc 1 "bench on a missing file" -- "$EDGERUN" bench "$TMP/none.tflite"
head -c 100 /dev/zero > "$TMP/short.bin"
expect_rc 1 "bench with an input of the wrong size" -- "$EDGERUN" bench "$TMP/tiny.tflite" --input "$TMP/short.bin"
expect_rc 0 "bench --delegate none" -- "$EDGERUN" bench "$TMP/tiny.tflite" --delegate none --json "${FAST[@]}"
expect_rc 0 "bench --no-winograd" -- "$EDGERUN" bench "$TMP/tiny.tflite" --no-winograd --delegate none "${FAST[@]}"
expect_rc 0 "run --no-winograd" -- "$EDGERUN" run "$TMP/tiny.tflite" --no-winograd
"$EDGERUN" bench "$TMP/tiny.tflite" --delegate xnnpack "${FAST[@]}" >/dev/null 2>"$TMP/stderr"
rc=$?
if [ "$rc" -ne 0 ] && ! { [ "$rc" -eq 1 ] && grep -q "not available" "$TMP/stderr"; }; then
  echo "FAIL --delegate xnnpack: exit $rc"; failures=$((failures + 1))
fi
expect_rc 0 "bench --resize" -- "$EDGERUN" bench "$TMP/tiny.tflite" --resize image:2,8,8,3 --json "${FAST[@]}"
check "resized batch doubles the work" -- "$PY" -c '
import json, sys; j = json.load(open(sys.argv[1])); assert j["ops_per_run"] == 4 * (512 * 27 + 1280), j["ops_per_run"]' "$TMP/stdout"

# Synthetic networks (small images keep this fast): float32 gives probabilities; the int8 twin
# (same weights, input scale 1/128) gives the same probabilities within a few 1/256 steps.
"$PY" - "$TMP" <<'PY'
import random, struct, sys
r = random.Random(3)
x = [r.uniform(-1, 1) for _ in range(64 * 64 * 3)]
open(sys.argv[1] + "/in_f.bin", "wb").write(struct.pack("<%df" % len(x), *x))
open(sys.argv[1] + "/in_q.bin", "wb").write(struct.pack("<%db" % len(x), *[max(-128, min(127, round(v * 128))) for v in x]))
PY
twins_agree() {  # twins_agree FLOAT_OUT INT8_OUT
  "$PY" - "$1" "$2" <<'PY'
import struct, sys
f = struct.unpack("<1000f", open(sys.argv[1], "rb").read())
q = [(v + 128) / 256 for v in struct.unpack("<1000b", open(sys.argv[2], "rb").read())]
assert abs(sum(f) - 1) < 1e-3 and min(f) >= 0, sum(f)
worst = max(abs(a - b) for a, b in zip(f, q))
assert worst <= 0.02, worst
PY
}
expect_rc 0 "synth mobilenet_v1" -- "$EDGERUN" synth mobilenet_v1 --size 64 -o "$TMP/mnv1.tflite"
expect_rc 0 "run mobilenet_v1" -- "$EDGERUN" run "$TMP/mnv1.tflite" --input "$TMP/in_f.bin"
for net in mobilenet_v2 resnet18; do
  expect_rc 0 "synth $net" -- "$EDGERUN" synth "$net" --size 64 -o "$TMP/${net}_f.tflite"
  expect_rc 0 "synth $net --int8" -- "$EDGERUN" synth "$net" --size 64 --int8 -o "$TMP/${net}_q.tflite"
  expect_rc 0 "run $net" -- "$EDGERUN" run "$TMP/${net}_f.tflite" --input "$TMP/in_f.bin" --output-dir "$TMP/${net}_f"
  expect_rc 0 "run $net int8" -- "$EDGERUN" run "$TMP/${net}_q.tflite" --input "$TMP/in_q.bin" --output-dir "$TMP/${net}_q"
  check "$net: float probabilities, int8 twin agrees" -- twins_agree "$TMP/${net}_f/output_0.bin" "$TMP/${net}_q/output_0.bin"
done
# The standard architecture at 224: MobileNet v2 has 3.5 M parameters and 0.6 GOP per image.
expect_rc 0 "synth mobilenet_v2 224" -- "$EDGERUN" synth mobilenet_v2 -o "$TMP/mnv2.tflite"
expect_rc 0 "inspect mobilenet_v2" -- "$EDGERUN" inspect "$TMP/mnv2.tflite" --json
check "mobilenet_v2 size and ops" -- "$PY" -c '
import json, sys, collections
j = json.load(open(sys.argv[1]))
params = j["weight_bytes"] / 4
assert 3.4e6 < params < 3.6e6, params
ops = collections.Counter()
for o in j["ops"]:
    ops[o["op"].split()[0]] += o["count"]
# 1 stem + 16 expansions + 17 projections + 1 last conv; 17 depthwise; 10 residual adds.
assert ops == {"CONV_2D": 35, "DEPTHWISE_CONV_2D": 17, "ADD": 10, "AVERAGE_POOL_2D": 1, "RESHAPE": 1,
               "FULLY_CONNECTED": 1, "SOFTMAX": 1}, ops
' "$TMP/stdout"
expect_rc 2 "synth --size 50" -- "$EDGERUN" synth mobilenet_v2 --size 50 -o "$TMP/x.tflite"
expect_rc 2 "synth unknown network" -- "$EDGERUN" synth nonet -o "$TMP/x.tflite"

echo "cli bench: $failures failures"
[ "$failures" -eq 0 ]
