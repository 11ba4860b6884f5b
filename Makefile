# The two entry points of the README, plus helpers for developers.
#   make run    install what is missing, build, run `ctxkit demo`
#   make test   build and run every test, also under ASan+UBSan
#   make install  build and install into PREFIX (default /usr/local)
.PHONY: run test setup build build-cli build-asan test-release test-asan bench install format tidy clean

JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

run: setup build-cli
	./build/release/ctxkit demo

test: setup test-release test-asan

setup:
	@bash scripts/setup.sh

build:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# Only the ctxkit binary (what `make run` needs), not tests and benchmarks.
build-cli:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target ctxkit_bin

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
	@cmake --build --preset release -j $(JOBS) --target ctxkit_bin
	cmake --install build/release --prefix $(PREFIX)

bench: setup build
	bash bench/run.sh

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

tidy: build
	clang-tidy -p build/release $$(git ls-files 'src/*.cc')

clean:
	rm -rf build
