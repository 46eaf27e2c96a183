#!/usr/bin/env bash
# Runs each fuzz target for SECONDS seconds (make fuzz FUZZ_SECONDS=N).
#   usage: fuzz/run.sh BUILD_DIR SECONDS SHARED_DIR [TARGET...]
# Corpora grow in $FUZZ_WORK (default fuzz/work, git-ignored), seeded with the conformance models
# up to 256 KB (copied there at run time, never committed), a model from the builder, the
# invalid-model corpus and the saved regression inputs. A crash, leak or timeout leaves its input
# in $FUZZ_WORK/crashes/TARGET/ and makes the script fail; turn it into a regression file (see
# docs/robustness.md). Runs niced (FUZZ_NICE, default 19): fuzzing is never the urgent job.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$1
SECONDS_EACH=$2
SHARED=$3
shift 3
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(fuzz_model fuzz_invoke fuzz_graph)
WORK=${FUZZ_WORK:-fuzz/work}
NICE=${FUZZ_NICE:-19}
# Seconds one input may take. The ASan build at -O1 runs kernels ~30x slower than the release
# build, and a niced fuzzer on a busy machine slower still: an int16 BATCH_MATMUL of 168M
# multiply-adds (88 ms in release) took 11 s there. 30 s still catches a real hang.
TIMEOUT=${FUZZ_TIMEOUT:-30}
# FUZZ_SEED fixes libFuzzer's random seed (CI sets it, so that a run can be repeated).
SEED_ARGS=()
[ -n "${FUZZ_SEED:-}" ] && SEED_ARGS=(-seed="$FUZZ_SEED")

seed_models() {  # seed_models DIR: models worth mutating
  local dir=$1
  if [ -d "$SHARED/conformance" ]; then
    for model in "$SHARED"/conformance/*/model.tflite; do
      [ "$(stat -c %s "$model")" -le 262144 ] || continue
      local name
      name=$(basename "$(dirname "$model")")
      [ -f "$dir/seed-$name" ] || cp "$model" "$dir/seed-$name"
    done
  fi
  [ -f "$dir/seed-tiny_cnn" ] || "$BUILD/edgerun" synth tiny_cnn -o "$dir/seed-tiny_cnn" >/dev/null
  for model in tests/corpus/invalid/*.tflite; do
    [ -f "$model" ] && cp -n "$model" "$dir/"
  done
  return 0
}

failed=0
for target in "${TARGETS[@]}"; do
  corpus=$WORK/corpus/$target
  crashes=$WORK/crashes/$target
  mkdir -p "$corpus" "$crashes" "$WORK/logs" "tests/corpus/fuzz/$target"
  max_len=262144
  if [ "$target" = fuzz_graph ]; then
    max_len=4096
  else
    seed_models "$corpus"
  fi
  log=$WORK/logs/$target.log
  nice -n "$NICE" "$BUILD/$target" -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" "${SEED_ARGS[@]}" -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len=$max_len -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$corpus" "tests/corpus/fuzz/$target" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "fuzz $target: ok, ${runs:-?} runs in ${SECONDS_EACH}s, $cov, corpus $(ls "$corpus" | wc -l) inputs"
  else
    failed=1
    echo "fuzz $target: FAILED (exit $rc), see $log; inputs in $crashes/:"
    grep -E 'ERROR: |runtime error|SUMMARY' "$log" | head -5 | sed 's/^/  | /'
    ls -t "$crashes" | head -3 | sed 's/^/  | /'
  fi
done
exit $failed
