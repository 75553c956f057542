# Convenience front end to the CMake build (GNU make).
#
#   make run           install missing build tools, build, install into ./install, run the demos
#   make test          install missing build and test tools, build, run the whole test suite
#   make deps          install missing build tools only; make deps-test: and the tests' tools
#   make test-tsan     build the threaded tests with ThreadSanitizer (in build-tsan) and run them
#   make build         configure (first time only) and build
#   make install       build, then install into ./install
#   make clean         remove build/ and install/
#   make dist          write gexx-<version>.tar.gz: a GASNet-style source release
#                      (top folder gexx-<version>/, ./configure; docs/clients.md)
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

.PHONY: all deps deps-test configure build install run test test-tsan clean bench-anchor format format-check dist

all: build

# What building and the demos need (make run); the tests' extra packages
# (sshd for the multi-host test, gdb, ...) come with deps-test (make test).
# Neither enables a system service.
deps:
	bash scripts/install-deps.sh build

deps-test:
	bash scripts/install-deps.sh test

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

# After the whole suite: no file of a finished job of this run is left in
# /dev/shm (scripts/shm_leftovers.py), whatever the tests killed and when.
test: deps-test build
	@start=$$(date +%s); status=0; \
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(CTEST_JOBS) --timeout $(CTEST_TIMEOUT) || status=$$?; \
	python3 scripts/shm_leftovers.py --since $$start || status=1; \
	exit $$status

# ThreadSanitizer: a separate build of only what the threaded job cases run.
# Shared-memory traffic between ranks is invisible to it; the threads of each
# rank are checked. A report ends the rank (halt_on_error), so the case fails.
TSAN_DIR ?= build-tsan
TSAN_TARGETS = gasnetrun threadstress threadstress_seq amcheck_par collcheck_par atomiccheck
TSAN_CASES = threads_4x8|threads_rcv_2x4|rcv_compute_3|rcv_compute_seq_3|am_par_3|am_flood_par_4|coll_par_4|atomics_4|atomics_am_4
TSAN_OPTIONS_ALL = halt_on_error=1 second_deadlock_stack=1

# -O1 (ThreadSanitizer's advice): 63 s to build against 78 at -O2 here, and
# the cases run no slower.
TSAN_FLAGS = -O1 -g -DNDEBUG
$(TSAN_DIR)/CMakeCache.txt: $(CMAKE_INPUTS)
	cmake -S . -B $(TSAN_DIR) -G Ninja -DGEXX_SANITIZE=thread \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(TSAN_FLAGS)" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(TSAN_FLAGS)" \
	  $(CMAKE_ARGS)
	@touch $@

test-tsan: deps-test $(TSAN_DIR)/CMakeCache.txt
	cmake --build $(TSAN_DIR) -j $(JOBS) --target $(TSAN_TARGETS)
	TSAN_OPTIONS="$(TSAN_OPTIONS_ALL)" GEXX_THREADSTRESS_OPS=400 \
	  ctest --test-dir $(TSAN_DIR) --output-on-failure -j $(CTEST_JOBS) --timeout $(CTEST_TIMEOUT) \
	  -R '^job\.($(TSAN_CASES))$$'

# Issue 23's side-by-side table: GASNet's testsmall/testlarge/testam/
# testbarrier against gexx's install and the anchor (GASNet-EX 2020.10),
# alternated runs, medians (bench/side_by_side.py; docs/performance.md): smp,
# then the network (the anchor's udp conduit against gexx's udp, then ofi).
ANCHOR ?= /tmp/gexx-anchor/install
BENCH_RUNS ?= 5
bench-anchor: install
	@if [ ! -f $(ANCHOR)/include/smp-conduit/smp-seq.mak ]; then \
	  echo "bench-anchor: skipped: no anchor install at $(ANCHOR) (build it with ../shared/anchors/build-gasnet-ex.sh, or pass ANCHOR=prefix)"; \
	else \
	  python3 bench/side_by_side.py --gexx $(INSTALL_DIR) --anchor $(ANCHOR) --runs $(BENCH_RUNS) && \
	  if [ ! -f $(ANCHOR)/include/udp-conduit/udp-seq.mak ]; then \
	    echo "bench-anchor: network half skipped (no udp conduit in the anchor)"; \
	  else \
	    for c in udp ofi; do \
	      if [ -f $(INSTALL_DIR)/include/$$c-conduit/$$c-seq.mak ]; then \
	        python3 bench/side_by_side.py --gexx $(INSTALL_DIR) --anchor $(ANCHOR) --runs $(BENCH_RUNS) --net --conduit $$c || exit 1; \
	      else echo "bench-anchor: gexx has no $$c conduit: its network half skipped"; fi; \
	    done; \
	  fi; \
	fi

clean:
	rm -rf $(BUILD_DIR) $(INSTALL_DIR)

FORMAT_FILES = $(shell find src tools tests examples bench -type f \
                 \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) \
                 2>/dev/null | sort) \
               $(filter-out $(GENERATED_HEADERS),$(wildcard include/*.h))
# Written by scripts/gen_am_forms.py: long macro lines, never formatted by hand.
GENERATED_HEADERS = include/gexx_am_ex.h include/gexx_am_g1.h include/gasnet_handler.h

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

# A source release laid out as GASNet's: the tracked (and new, not ignored)
# files of this tree under gexx-<version>/, plus the top-level marker files
# client configure scripts look for (cmake/dist/). DIST_DIR: where it goes.
VERSION := $(shell sed -n 's/^project.gexx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
DIST_NAME = gexx-$(VERSION)
DIST_DIR ?= $(CURDIR)
DIST_STAGE = $(BUILD_DIR)/dist-stage

dist:
	rm -rf $(DIST_STAGE) && mkdir -p $(DIST_STAGE)/$(DIST_NAME)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  git ls-files -co --exclude-standard; \
	else \
	  find . -type f ! -path './build*' ! -path './install/*' ! -name '$(DIST_NAME).tar.gz' | sed 's|^\./||'; \
	fi | while read -r f; do [ -f "$$f" ] && printf '%s\n' "$$f"; done | \
	  grep -v '^gexx-[0-9.]*\.tar\.gz$$' | tar -cf - -T - | tar -xf - -C $(DIST_STAGE)/$(DIST_NAME)
	cp cmake/dist/gasnet.h cmake/dist/gasnetex.h cmake/dist/gasnet_config.h.in \
	  $(DIST_STAGE)/$(DIST_NAME)/
	mkdir -p $(DIST_DIR) && tar -czf $(DIST_DIR)/$(DIST_NAME).tar.gz -C $(DIST_STAGE) $(DIST_NAME)
	rm -rf $(DIST_STAGE)
	@echo "wrote $(DIST_DIR)/$(DIST_NAME).tar.gz"
