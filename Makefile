# The two entry points of the README, plus helpers for developers.
#   make run    install what is missing, build (the binary, the Python and
#               the Node packages), run `ctxkit demo`
#   make test   build and run every test, also under ASan+UBSan
#   make install  build and install into PREFIX (default /usr/local)
#   make fuzz   run every fuzz harness with libFuzzer (FUZZ_SECONDS each)
.PHONY: run test setup build build-cli build-asan test-release test-asan bench fuzz install format tidy clean

JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
# What `make run` builds: the binary (with the HTTP server it execs), the
# Python package and the Node package (build/release/js, which an app
# installs with `npm install`); `make install` installs the first two.
SHIPPED := ctxkit_bin ctxkit_python ctxkit_node

run: setup build-cli
	./build/release/ctxkit demo

test: setup test-release test-asan

setup:
	@bash scripts/setup.sh

build:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# Only the ctxkit binary and the Python package (what `make run` and the
# README's quick starts need: PYTHONPATH=build/release/python), not tests
# and benchmarks.
build-cli:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target $(SHIPPED)

build-asan:
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test-release: build
	ctest --preset release -j $(JOBS)

test-asan: build-asan
	ctest --preset asan -j $(JOBS)

# The binary, public headers, libraries, CMake package and ctxkit.pc. Only
# what is installed is built (not tests and benchmarks).
install: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target $(SHIPPED)
	cmake --install build/release --prefix $(PREFIX)

bench: setup build
	bash bench/run.sh

# Coverage-guided fuzzing with clang's libFuzzer under ASan+UBSan: each
# harness in fuzz/ for FUZZ_SECONDS, starting from its seed corpus; inputs
# it finds are kept in build/fuzz/corpus/<name>. (`make test` runs the same
# harnesses briefly through fuzz/standalone_main.cc.)
FUZZ_SECONDS ?= 60
FUZZERS := ref frontmatter chat_log json_rpc http_headers
fuzz: setup
	@cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++ -DCTXKIT_SANITIZE=ON -DCTXKIT_LIBFUZZER=ON \
	  -DCTXKIT_BUILD_BENCH=OFF >/dev/null
	@cmake --build build/fuzz -j $(JOBS) --target $(addsuffix _fuzz,$(FUZZERS))
	@for h in $(FUZZERS); do \
	  mkdir -p build/fuzz/corpus/$$h && \
	  ./build/fuzz/fuzz/$${h}_fuzz -max_total_time=$(FUZZ_SECONDS) \
	    build/fuzz/corpus/$$h fuzz/corpus/$$h || exit 1; \
	done

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

tidy: build
	clang-tidy -p build/release $$(git ls-files 'src/*.cc')

clean:
	rm -rf build
