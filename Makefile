# edgerun: the front door. `make demo` and `make test` set everything up on a fresh Debian 12.
BUILD ?= build
JOBS ?= $(shell nproc)
SHARED ?= $(abspath ../shared)
CMAKE_FLAGS ?=
# bash for pipefail: a failed build must fail `make`, not hide behind the output filter.
SHELL := /bin/bash

.PHONY: all deps build demo test test-unit conformance corpus docs clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DEDGERUN_SHARED_DIR=$(SHARED) $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@set -o pipefail; cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory | { grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)|^Consolidate|^Scanning|^Generating' || true; }
	@test -x $(BUILD)/edgerun

demo: build
	@scripts/demo.sh $(BUILD)/edgerun $(SHARED)

test: build
	@cd $(BUILD) && ctest --output-on-failure

# The conformance corpus through the command line, the way the evaluators run it.
corpus: build
	@$(SHARED)/tools/eval/run_corpus.sh $(SHARED)/conformance '$(BUILD)/edgerun run'
	@$(SHARED)/tools/eval/run_corpus.sh $(SHARED)/conformance-invalid '$(BUILD)/edgerun run'

conformance: build
	@$(BUILD)/tests/conformance_test $(SHARED)/conformance --known tests/conformance_known_deviations.json

docs: build
	@$(BUILD)/edgerun ops --markdown > docs/ops.md

clean:
	rm -rf $(BUILD)

# ---- bench: edgerun side by side with LiteRT.js and ONNX Runtime (bench/README.md). Not part of
# `make test`; writes bench/results.md. Options: make bench BENCH_ARGS='--models mobilenet_v2 --rounds 5'
BENCH_ARGS ?=
.PHONY: bench
bench: build
	@scripts/install-deps.sh --bench
	@cd bench && { [ -f node_modules/@litertjs/core/package.json ] && [ -f node_modules/onnxruntime-node/package.json ] \
	  || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; }
	@g++ -O2 -std=c++20 -pthread -o $(BUILD)/fma_peak bench/fma_peak.cc
	@python3 bench/run_bench.py --edgerun $(BUILD)/edgerun --fma-peak $(BUILD)/fma_peak --shared $(SHARED) \
	  --work $(BUILD)/bench --out bench/results.md $(BENCH_ARGS)

# Every conformance case against LiteRT.js at 1 thread (bench/corpus_sweep.py): writes bench/corpus.md.
.PHONY: bench-corpus
bench-corpus: build
	@scripts/install-deps.sh --bench
	@cd bench && { [ -f node_modules/@litertjs/core/package.json ] || npm ci --ignore-scripts --no-audit --no-fund --loglevel=error; }
	@python3 bench/corpus_sweep.py --edgerun $(BUILD)/edgerun --cases $(SHARED)/conformance --out bench/corpus.md

# ---- hardening: sanitizer builds, fuzzing, leak checks (docs/robustness.md) ----
# test-asan and fuzz share one clang build (ASan + UBSan + libFuzzer instrumentation); test-tsan
# is a g++ ThreadSanitizer build. Both leave the Python module out: a sanitizer runtime cannot be
# loaded into an uninstrumented python3 (TSan: "cannot allocate memory in static TLS block").
# Each has its own build folder. A sanitizer report aborts the process (a signal), so no test can
# mistake it for an ordinary error exit.
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 60
# -O1 with line tables: the usual sanitizer trade-off (fast to build, readable stacks).
SANITIZER_OPT ?= -O1 -g1 -DNDEBUG
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:abort_on_error=1
export TSAN_OPTIONS ?= halt_on_error=1:second_deadlock_stack=1

.PHONY: build-asan build-tsan test-asan test-tsan fuzz leakcheck

$(ASAN_BUILD)/CMakeCache.txt:
	@scripts/install-deps.sh --sanitizers
	@CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGERUN_SANITIZE=address -DEDGERUN_BUILD_PYTHON=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZER_OPT)" -DEDGERUN_FUZZ=ON -DEDGERUN_SHARED_DIR=$(SHARED) $(CMAKE_FLAGS) >/dev/null

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	@set -o pipefail; cmake --build $(ASAN_BUILD) -j $(JOBS) -- --no-print-directory | { grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)|^Consolidate|^Scanning|^Generating' || true; }
	@test -x $(ASAN_BUILD)/edgerun && test -x $(ASAN_BUILD)/fuzz_graph

$(TSAN_BUILD)/CMakeCache.txt:
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGERUN_SANITIZE=thread -DEDGERUN_BUILD_PYTHON=OFF \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZER_OPT)" \
	  -DEDGERUN_SHARED_DIR=$(SHARED) $(CMAKE_FLAGS) >/dev/null

build-tsan: deps $(TSAN_BUILD)/CMakeCache.txt
	@set -o pipefail; cmake --build $(TSAN_BUILD) -j $(JOBS) -- --no-print-directory | { grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)|^Consolidate|^Scanning|^Generating' || true; }
	@test -x $(TSAN_BUILD)/tests/edgerun_tests

# The whole test suite (unit, conformance, cli, fuzz replays) under AddressSanitizer +
# UndefinedBehaviorSanitizer + LeakSanitizer; any report fails the test that made it.
test-asan: build-asan
	@cd $(ASAN_BUILD) && ctest --output-on-failure

# The whole test suite under ThreadSanitizer (the concurrency test shares one Model between threads).
test-tsan: build-tsan
	@cd $(TSAN_BUILD) && ctest --output-on-failure

# Each fuzz target for FUZZ_SECONDS seconds, seeded from the conformance models and the builder.
fuzz: build-asan
	@fuzz/run.sh $(ASAN_BUILD) $(FUZZ_SECONDS) $(SHARED)

# The command line on every conformance model under LeakSanitizer (the suite itself is checked
# by test-asan).
leakcheck: build-asan
	@tests/leakcheck.sh $(ASAN_BUILD)/edgerun $(SHARED)/conformance
