# Convenience front end to the CMake build (GNU make).
#
#   make run           install missing tools, build, install into ./install, run the demos
#   make test          install missing tools, build, run the whole test suite
#   make build         configure (first time only) and build
#   make install       build, then install into ./install
#   make clean         remove build/ and install/
#   make format        clang-format every C and C++ source in place
#   make format-check  fail if any source is not clang-formatted
#
# Knobs: BUILD_DIR, INSTALL_DIR, JOBS, CMAKE_ARGS (extra -D options for the
# first configure, e.g. CMAKE_ARGS=-DGEXX_WERROR=OFF), CTEST_JOBS, CTEST_TIMEOUT.

BUILD_DIR ?= build
INSTALL_DIR ?= $(CURDIR)/install
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
CTEST_JOBS ?= 2
# Seconds allowed to a test that does not set its own TIMEOUT property.
CTEST_TIMEOUT ?= 300

# Steps run one after another; ninja parallelises the build itself.
.NOTPARALLEL:

.PHONY: all deps configure build install run test clean format format-check

all: build

deps:
	bash scripts/install-deps.sh

# Configure once; afterwards ninja re-runs CMake by itself when an input
# changes. The CMakeLists files are listed so an edit to one also
# reconfigures a build tree that ninja cannot regenerate on its own.
CMAKE_INPUTS := $(wildcard CMakeLists.txt */CMakeLists.txt */*/CMakeLists.txt cmake/*.cmake)

$(BUILD_DIR)/CMakeCache.txt: $(CMAKE_INPUTS)
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_INSTALL_PREFIX=$(INSTALL_DIR) $(CMAKE_ARGS)
	@touch $@

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

install: build
	cmake --install $(BUILD_DIR) --prefix $(INSTALL_DIR)

run: deps install
	$(INSTALL_DIR)/bin/gasnetrun -n 4 $(BUILD_DIR)/examples/ring
	$(INSTALL_DIR)/bin/gasnetrun -n 2 $(BUILD_DIR)/examples/hello-gex

test: deps build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(CTEST_JOBS) --timeout $(CTEST_TIMEOUT)

clean:
	rm -rf $(BUILD_DIR) $(INSTALL_DIR)

FORMAT_FILES = $(shell find src tools tests examples bench -type f \
                 \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) \
                 2>/dev/null | sort) $(wildcard include/*.h)

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)
