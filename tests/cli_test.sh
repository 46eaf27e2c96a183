#!/usr/bin/env bash
# The command line: exit codes (0 ok, 1 error, 2 usage), clean errors on broken models, outputs
# written where asked.   usage: cli_test.sh EDGERUN SHARED_DIR CORPUS_DIR
set -u
EDGERUN=$1
SHARED=$2
CORPUS=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

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

expect_stderr() {  # the last command's stderr must contain the text
  if ! grep -qF -- "$1" "$TMP/stderr"; then
    echo "FAIL stderr lacks '$1':"; sed 's/^/  | /' "$TMP/stderr" | head -5
    failures=$((failures + 1))
  fi
}

expect_rc 2 "no arguments" -- "$EDGERUN"
expect_rc 2 "unknown command" -- "$EDGERUN" frobnicate
expect_rc 2 "run without a model" -- "$EDGERUN" run
expect_rc 2 "run with an unknown option" -- "$EDGERUN" run x.tflite --bogus
expect_rc 0 "help" -- "$EDGERUN" --help
expect_rc 1 "missing file" -- "$EDGERUN" run "$TMP/none.tflite"
expect_stderr "none.tflite"
printf 'not a model' > "$TMP/text.tflite"
expect_rc 1 "text file" -- "$EDGERUN" inspect "$TMP/text.tflite"
expect_stderr "not a TFLite model"

# A model from the builder, run end to end.
expect_rc 0 "synth tiny_cnn" -- "$EDGERUN" synth tiny_cnn -o "$TMP/tiny.tflite"
expect_rc 0 "inspect tiny_cnn" -- "$EDGERUN" inspect "$TMP/tiny.tflite"
expect_rc 0 "inspect --json" -- "$EDGERUN" inspect "$TMP/tiny.tflite" --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["arena_bytes"] > 0 and j["unsupported_ops"] == []' \
  "$TMP/stdout" || { echo "FAIL inspect --json content"; failures=$((failures + 1)); }
expect_rc 0 "run tiny_cnn" -- "$EDGERUN" run "$TMP/tiny.tflite" --output-dir "$TMP/out" --json
python3 - "$TMP/out/output_0.bin" <<'PY' || { echo "FAIL tiny_cnn output is not a probability vector"; failures=$((failures + 1)); }
import struct, sys
data = open(sys.argv[1], "rb").read()
assert len(data) == 40, len(data)
p = struct.unpack("<10f", data)
assert all(0 <= x <= 1 for x in p) and abs(sum(p) - 1) < 1e-5, p
PY
head -c 100 /dev/zero > "$TMP/short.bin"
expect_rc 1 "input of the wrong size" -- "$EDGERUN" run "$TMP/tiny.tflite" --input "$TMP/short.bin"
expect_stderr "needs 768 bytes"
expect_rc 0 "resize batch" -- "$EDGERUN" run "$TMP/tiny.tflite" --resize image:2,8,8,3
expect_rc 1 "resize outside the signature" -- "$EDGERUN" run "$TMP/tiny.tflite" --resize image:1,9,8,3
expect_rc 1 "unknown signature" -- "$EDGERUN" run "$TMP/tiny.tflite" --signature nope
expect_stderr "serving_default"
expect_rc 0 "signature" -- "$EDGERUN" run "$TMP/tiny.tflite" --signature serving_default --npy --output-dir "$TMP/sig"
[ -f "$TMP/sig/output_0.npy" ] || { echo "FAIL no output_0.npy"; failures=$((failures + 1)); }

# Shape arithmetic computed once by AllocateTensors shows in the plan (a converter's dilated
# convolution: SHAPE, STRIDED_SLICE, PACK, ... ahead of SPACE_TO_BATCH_ND).
DILATED="$SHARED/conformance/tfls_dilated_conv/model.tflite"
if [ -f "$DILATED" ]; then
  expect_rc 0 "inspect folded shape ops" -- "$EDGERUN" inspect "$DILATED" --delegate xnnpack
  grep -q "^  op 0 SHAPE: folded (computed once by AllocateTensors)" "$TMP/stdout" ||
    { echo "FAIL inspect does not show the folded SHAPE"; failures=$((failures + 1)); }
fi

# Delegation: the partition report, and running with and without XNNPACK.
if "$EDGERUN" inspect "$TMP/tiny.tflite" --delegate xnnpack >"$TMP/stdout" 2>"$TMP/stderr"; then
  if grep -qE "^delegation, subgraph 0: [0-9]+ of [0-9]+ ops in [0-9]+ partition" "$TMP/stdout" &&
     grep -qE "^  XNNPACK\([0-9]+ nodes?\): ops " "$TMP/stdout"; then
    echo "PASS inspect --delegate xnnpack"
  else
    echo "FAIL inspect --delegate xnnpack: no partition report"; sed 's/^/  | /' "$TMP/stdout" | tail -8
    failures=$((failures + 1))
  fi
  expect_rc 0 "inspect --delegate xnnpack --json" -- "$EDGERUN" inspect "$TMP/tiny.tflite" --delegate xnnpack --json
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["delegation"][0]; assert d["delegated_ops"] > 0 and d["steps"], d' \
    "$TMP/stdout" || { echo "FAIL inspect --delegate json content"; failures=$((failures + 1)); }
  expect_rc 0 "run --no-xnnpack" -- "$EDGERUN" run "$TMP/tiny.tflite" --no-xnnpack --output-dir "$TMP/nox"
  grep -q "^delegate: none" "$TMP/stdout" || { echo "FAIL run --no-xnnpack still delegates"; failures=$((failures + 1)); }
  expect_rc 0 "run --delegate xnnpack" -- "$EDGERUN" run "$TMP/tiny.tflite" --delegate xnnpack --output-dir "$TMP/xnn"
  grep -q "^delegate: XNNPACK" "$TMP/stdout" || { echo "FAIL run --delegate xnnpack did not delegate"; failures=$((failures + 1)); }
else
  grep -q "built without XNNPACK" "$TMP/stderr" && echo "SKIP inspect --delegate xnnpack: no XNNPACK in this build" \
    || { echo "FAIL inspect --delegate xnnpack"; sed 's/^/  | /' "$TMP/stderr" | head -5; failures=$((failures + 1)); }
fi
expect_rc 2 "run --delegate bogus" -- "$EDGERUN" run "$TMP/tiny.tflite" --delegate bogus
# Resource limits (docs/robustness.md): flags, their errors, and a watchdog.
expect_rc 1 "--max-tensor-bytes" -- "$EDGERUN" run "$TMP/tiny.tflite" --max-tensor-bytes 1K
expect_stderr "max_tensor_bytes"
expect_rc 1 "--max-memory" -- "$EDGERUN" inspect "$TMP/tiny.tflite" --max-memory 2K
expect_stderr "max_arena_bytes"
expect_rc 0 "limits that fit" -- "$EDGERUN" run "$TMP/tiny.tflite" --max-memory 64M --max-tensor-bytes 1M \
  --max-while-iterations 10 --timeout 60
expect_rc 2 "bad --max-memory" -- "$EDGERUN" run "$TMP/tiny.tflite" --max-memory lots
expect_rc 2 "bad --timeout" -- "$EDGERUN" inspect "$TMP/tiny.tflite" --timeout 0
if [ -f "$CORPUS/invalid/endless_while.tflite" ]; then
  expect_rc 1 "--timeout stops an endless loop" -- timeout -s KILL 20 "$EDGERUN" run "$CORPUS/invalid/endless_while.tflite" \
    --max-while-iterations 1000000000000 --timeout 1
  expect_stderr "stopped after 1 s (--timeout)"
fi
mkfifo "$TMP/fifo"
expect_rc 1 "a FIFO is not a model (and does not block)" -- timeout -s KILL 10 "$EDGERUN" run "$TMP/fifo"
expect_stderr "not a regular file"

# Every truncation of a valid model is refused cleanly, never with a signal.
size=$(stat -c %s "$TMP/tiny.tflite")
for cut in 0 1 7 8 16 64 $((size / 2)) $((size - 64)) $((size - 1)); do
  head -c "$cut" "$TMP/tiny.tflite" > "$TMP/cut.tflite"
  "$EDGERUN" run "$TMP/cut.tflite" >/dev/null 2>&1
  rc=$?
  if [ "$rc" -ge 128 ] || [ "$rc" -eq 0 ] && [ "$cut" -lt "$size" ] && [ "$cut" -lt $((size - 8)) ]; then
    echo "FAIL truncated to $cut bytes: exit $rc"; failures=$((failures + 1))
  fi
done

# Broken models of the shared corpus: exit 1, never a signal. (Our own regression corpus,
# $CORPUS/invalid, is checked with its expected messages by corpus_test.sh.)
for dir in "$SHARED/conformance-invalid"; do
  [ -d "$dir" ] || { echo "SKIP $dir not found"; continue; }
  for model in "$dir"/*.tflite; do
    [ -f "$model" ] || continue
    for cmd in run inspect; do
      inputs=()
      base="${model%.tflite}"
      [ "$cmd" = run ] && [ -f "$base.input_0.bin" ] && inputs=(--input "$base.input_0.bin")
      expect_rc 1 "$cmd $(basename "$model")" -- "$EDGERUN" "$cmd" "$model" "${inputs[@]}"
      [ -s "$TMP/stderr" ] || { echo "FAIL no message for $(basename "$model")"; failures=$((failures + 1)); }
    done
  done
done

if [ -f "$SHARED/conformance/java_add/model.tflite" ]; then
  c="$SHARED/conformance/java_add"
  expect_rc 0 "run java_add" -- "$EDGERUN" run "$c/model.tflite" --input "$c/input_0.bin" --output-dir "$TMP/ja"
  cmp -s "$TMP/ja/output_0.bin" "$c/expected_0.bin" || python3 "$SHARED/tools/eval/compare.py" "$c" "$TMP/ja" \
    || { echo "FAIL java_add output"; failures=$((failures + 1)); }
fi

echo "cli: $failures failures"
[ "$failures" -eq 0 ]
