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
	@$(BUILD)/tests/conformance_test $(SHARED)/conformance

docs: build
	@$(BUILD)/edgerun ops --markdown > docs/ops.md

clean:
	rm -rf $(BUILD)
