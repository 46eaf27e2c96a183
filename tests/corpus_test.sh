#!/usr/bin/env bash
# Every file of the invalid-model corpus through the command line: `edgerun run` must exit 1
# with the expected message (never a signal, never past 10 s); for files that must fail at load,
# `edgerun inspect` too. expected.txt (written by Hostile.DISABLED_WriteCorpus) and
# expected-fuzz.txt (models from fuzzer findings, kept by hand) list "FILE PHASE MESSAGE-SUBSTRING"
# (phase: load or run).
#   usage: corpus_test.sh EDGERUN CORPUS_DIR
set -u
EDGERUN=$1
CORPUS=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checked=0

check() {  # check WHAT EXPECTED -- COMMAND...
  local what=$1 expected=$2
  shift 3
  timeout -s KILL 10 "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  checked=$((checked + 1))
  if [ "$rc" -ne 1 ]; then
    echo "FAIL $what: exit $rc, expected 1$([ "$rc" -ge 128 ] && echo " (signal or timeout)")"
    sed 's/^/  | /' "$TMP/stderr" | head -5
    failures=$((failures + 1))
  elif ! grep -qF -- "$expected" "$TMP/stderr"; then
    echo "FAIL $what: message lacks '$expected':"
    sed 's/^/  | /' "$TMP/stderr" | head -3
    failures=$((failures + 1))
  fi
}

[ -f "$CORPUS/expected.txt" ] || { echo "FAIL no $CORPUS/expected.txt"; exit 1; }
listed=0
while read -r file phase expected; do
  case "$file" in ''|'#'*) continue ;; esac
  listed=$((listed + 1))
  model="$CORPUS/$file"
  [ -f "$model" ] || { echo "FAIL $file is listed but missing"; failures=$((failures + 1)); continue; }
  check "run $file" "$expected" -- "$EDGERUN" run "$model"
  [ "$phase" = load ] && check "inspect $file" "$expected" -- "$EDGERUN" inspect "$model"
done < <(cat "$CORPUS"/expected*.txt)

# Every model file must be listed (a fuzzer crash saved here without its message is a mistake).
for model in "$CORPUS"/*.tflite; do
  cat "$CORPUS"/expected*.txt | grep -q "^$(basename "$model") " || { echo "FAIL $(basename "$model") is not in expected.txt"; failures=$((failures + 1)); }
done

echo "corpus: $listed files, $checked commands, $failures failures"
[ "$failures" -eq 0 ]
