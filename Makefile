# edgerun: the front door. `make demo` and `make test` set everything up on a fresh Debian 12.
BUILD ?= build
JOBS ?= $(shell nproc)
SHARED ?= $(abspath ../shared)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-unit conformance corpus docs clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DEDGERUN_SHARED_DIR=$(SHARED) $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory | grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)|^Consolidate|^Scanning|^Generating' || true
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
