# tilec: `make demo` and `make test` set up, build, and then compile the
# examples / run every test. See README.md.

BUILD ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
  CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
endif

.PHONY: all setup configure build test check pytest pip-check python-artifacts gpu-artifacts demo fuzz-smoke fuzz sanitize clean docs plots

all: build

setup:
	@scripts/build/setup.sh

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD)

# lit tests (IR, passes, PTX per chip, ptxas acceptance, driver errors).
check: build
	cmake --build $(BUILD) --target check-tilec

# CPU-side tests of the Python package (compile, cache, metadata, argument
# checks) against the libtilec-c.so just built.
PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
pytest: build
	TILEC_LIBRARY=$(abspath $(BUILD))/lib/libtilec-c.so TILEC_RUNTIME_LIBRARY=$(abspath $(BUILD))/lib/libtilec-runtime.so $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

# The package as users get it (python/README.md): pip installs ./python into
# a fresh venv offline (Debian's setuptools and wheel through
# --system-site-packages), then scripts/dev/pip_check.py compiles a kernel from
# outside the checkout with TILEC_LIBRARY, and checks the error without it.
# The sources are copied first so that setuptools' build/ and egg-info stay
# out of python/ (and a stale build/ never leaks into the wheel).
PIP_CHECK := $(abspath $(BUILD))/pip-check
pip-check: build
	rm -rf $(PIP_CHECK)
	mkdir -p $(PIP_CHECK)/src
	cp -R python/pyproject.toml python/README.md python/tilec $(PIP_CHECK)/src/
	$(PYTHON) -m venv --system-site-packages $(PIP_CHECK)/venv
	$(PIP_CHECK)/venv/bin/python -m pip install --quiet --no-build-isolation --no-index $(PIP_CHECK)/src
	cd / && env -u PYTHONPATH TILEC_CACHE_DIR=$(PIP_CHECK)/cache \
	    TILEC_LIBRARY=$(abspath $(BUILD))/lib/libtilec-c.so $(PIP_CHECK)/venv/bin/python - < $(CURDIR)/scripts/dev/pip_check.py

# The four suites run side by side once the build is done: pytest and
# pip-check run on one core each, so one after the other behind lit they would
# leave the other cores idle (pytest alone is about 3 minutes). Each suite's
# output is printed whole when it finishes; any failure fails `make test`.
test: build
	$(MAKE) --no-print-directory -j4 --output-sync=target check pytest pip-check fuzz-smoke

# Mutation fuzzing of tilec and tilec-opt (scripts/dev/fuzz.py; docs/testing.md, "Fuzzing").
# fuzz-smoke (part of make test): seed 1, 500 mutants, about a minute;
# fuzz: one CPU-hour per tool. Buckets go under $(BUILD).
fuzz-smoke: build
	$(PYTHON) -m scripts.dev.fuzz --smoke --tilec $(BUILD)/bin/tilec --tilec-opt $(BUILD)/bin/tilec-opt --out $(BUILD)/fuzz-smoke

fuzz: build
	$(PYTHON) -m scripts.dev.fuzz --cpu-seconds 3600 --reduce-seconds 120 --tilec $(BUILD)/bin/tilec --tilec-opt $(BUILD)/bin/tilec-opt --out $(BUILD)/fuzz

# The lit suite on an ASan + UBSan build of tilec (its own build folder; a
# sanitizer report fails the test). About twice the time of `make check`.
SANITIZE_BUILD ?= build-sanitize
sanitize: setup
	cmake -G Ninja -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD) --target check-tilec

# GEMM kernels for scripts/gpu/python_check.py on the GPU machine (no compiler there).
# The reference of every op, type, attribute (the typed configs with every
# parameter) and pass, generated from ODS (add_mlir_doc) into docs/reference/;
# test/Docs/reference.test fails while the copy there is out of date.
DOCS = Dialects/TileOps.md Dialects/TileTypes.md Dialects/TileAttrs.md TilePasses.md \
       TilecConversionPasses.md LinalgToTilePasses.md \
       TileToHostRuntimePasses.md
docs: configure
	cmake --build $(BUILD) --target mlir-doc
	mkdir -p docs/reference
	for f in $(DOCS); do cp $(BUILD)/docs/$$f docs/reference/$$(basename $$f); done

# The plots of docs/performance.md, drawn from records in bench/results/ by
# scripts/dev/plots.py into docs/plots/. matplotlib comes from Debian's
# python3-matplotlib (scripts/build/setup.sh --plots installs it when missing);
# nothing else needs it, so it stays out of make test.
plots:
	@$(PYTHON) -c 'import matplotlib' 2>/dev/null || scripts/build/setup.sh --plots
	$(PYTHON) -m scripts.dev.plots --results bench/results --out docs/plots

python-artifacts: build
	TILEC_LIBRARY=$(abspath $(BUILD))/lib/libtilec-c.so $(PYTHON) -m scripts.build.build_python_artifacts --out .gpu/python

# The artifact bundle of a GPU machine (which has no compiler): every kernel
# the GPU checks and benchmarks run, in .gpu/bundle (<= 64 MiB, no PTX), built
# by scripts/build/build_gpu_artifacts.sh (PARTS="gemm att" for some parts);
# scripts/gpu/run_all.sh runs every check from it there (scripts/README.md).
gpu-artifacts: build
	BUILD=$(abspath $(BUILD)) scripts/build/build_gpu_artifacts.sh

demo: build
	@BUILD=$(abspath $(BUILD)) scripts/dev/demo.sh

clean:
	rm -rf $(BUILD) out
