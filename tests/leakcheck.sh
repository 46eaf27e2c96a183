#!/usr/bin/env bash
# The command line under LeakSanitizer (an ASan build: make leakcheck): `edgerun run` and
# `edgerun inspect` on every conformance model with its inputs, and on every broken model of
# the shared and our own invalid corpus (error paths leak most easily). A leak makes LSan exit
# with 23, any other sanitizer report aborts; both fail the check.
#   usage: leakcheck.sh EDGERUN CONFORMANCE_DIR
set -u
EDGERUN=$1
CONFORMANCE=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1:exitcode=99"
export LSAN_OPTIONS="${LSAN_OPTIONS:-}:exitcode=23"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
runs=0
failures=0

check() {  # check WHAT -- COMMAND...
  local what=$1
  shift 2
  "$@" >/dev/null 2>"$TMP/stderr"
  local rc=$?
  runs=$((runs + 1))
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "FAIL $what: exit $rc"
    grep -E 'ERROR: |SUMMARY|runtime error' "$TMP/stderr" | head -5 | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
}

for dir in "$CONFORMANCE"/*/; do
  [ -f "$dir/model.tflite" ] || continue
  name=$(basename "$dir")
  args=()
  for input in "$dir"/input_*.bin; do
    [ -f "$input" ] && args+=(--input "$input")
  done
  signature=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("signature", ""))' "$dir/case.json" 2>/dev/null)
  [ -n "$signature" ] && args+=(--signature "$signature")
  check "run $name" -- "$EDGERUN" run "$dir/model.tflite" "${args[@]}" --output-dir "$TMP/out"
  check "inspect $name" -- "$EDGERUN" inspect "$dir/model.tflite" --json
done
for model in "$CONFORMANCE"/../conformance-invalid/*.tflite "$ROOT"/tests/corpus/invalid/*.tflite; do
  [ -f "$model" ] || continue
  check "run $(basename "$model")" -- "$EDGERUN" run "$model"
  check "inspect $(basename "$model")" -- "$EDGERUN" inspect "$model"
done
echo "leakcheck: $runs commands, $failures failures"
[ "$failures" -eq 0 ]
