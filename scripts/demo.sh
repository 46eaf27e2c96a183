#!/usr/bin/env bash
# make demo: run a real classifier from ../shared/conformance when it is there, else a small
# network written by edgerun's own model builder; print what ran and the top results.
set -euo pipefail
EDGERUN=$1
SHARED=$2

case_dir=""
# The first of these classifiers that this build can run.
for name in coral_mobilenet_v2_1.0_224_quant tfls_mobilenet_v1_0.25_224_float mlperf_vww_96_float; do
  model="$SHARED/conformance/$name/model.tflite"
  if [ -f "$model" ] && "$EDGERUN" inspect "$model" >/dev/null 2>&1; then case_dir="$SHARED/conformance/$name"; break; fi
done

if [ -n "$case_dir" ]; then
  echo "== edgerun demo: $(basename "$case_dir") (a real model written by Google's converter)"
  echo
  "$EDGERUN" inspect "$case_dir/model.tflite" | grep -E '^(model|  input|  output|weights|arena)'
  echo
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  "$EDGERUN" run "$case_dir/model.tflite" --input "$case_dir/input_0.bin" --top-k 5 --output-dir "$out"
  python3 - "$case_dir" "$out" <<'PY'
import json, struct, sys
case = json.load(open(sys.argv[1] + "/case.json"))
label = case.get("expected_top1_label")
if label:
    out = case["outputs"][0]
    raw = open(sys.argv[2] + "/output_0.bin", "rb").read()
    fmt = {"float32": "f", "uint8": "B", "int8": "b"}[out["dtype"]]
    values = struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw)
    top = max(range(len(values)), key=lambda i: values[i])
    verdict = "the same as" if top == case["expected_top1"] else "DIFFERENT from"
    print("top-1 class %d: %s (input: %s); %s Google's runtime" % (top, label if top == case["expected_top1"] else "?",
          case.get("input_source", "").split(";")[0][:60], verdict))
PY
else
  echo "== edgerun demo: ../shared/conformance not found; using a network from edgerun's model builder"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$EDGERUN" synth tiny_cnn -o "$tmp/tiny_cnn.tflite"
  "$EDGERUN" inspect "$tmp/tiny_cnn.tflite"
  echo
  "$EDGERUN" run "$tmp/tiny_cnn.tflite" --top-k 3
fi
