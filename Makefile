# tilec: `make demo` and `make test` set up, build, and then compile the
# examples / run every test. See README.md.

BUILD ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
  CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
endif

.PHONY: all setup configure build test check demo clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD)

# lit tests (IR, passes, PTX per chip, ptxas acceptance, driver errors).
check: build
	cmake --build $(BUILD) --target check-tilec

test: check

demo: build
	@BUILD=$(abspath $(BUILD)) scripts/demo.sh

clean:
	rm -rf $(BUILD) out
