# The two set-up commands of the README:
#   make demo   installs what is missing, builds, and analyses an example
#   make test   installs what is missing, builds (plain and ASan+UBSan+libFuzzer), runs every test
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += --no-print-directory
DEMO ?= examples/attention_causal.air
DEMO_DEVICE ?= devices/h100-sxm.json

.PHONY: all deps deps-test build build-asan demo test clean
all: build

deps:
	@sh scripts/deps.sh

deps-test:
	@sh scripts/deps.sh test

# Build output goes to build*/build.log and is shown only when the build fails.
build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build -j $(JOBS) >build/build.log 2>&1 || { tail -n 60 build/build.log; exit 1; }
	@echo "built build/solar"

build-asan: deps-test
	@cmake -S . -B build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	  -DSOLAR_SANITIZE=ON -DSOLAR_FUZZ=ON >/dev/null
	@cmake --build build-asan -j $(JOBS) >build-asan/build.log 2>&1 || { tail -n 60 build-asan/build.log; exit 1; }
	@echo "built build-asan (ASan+UBSan, libFuzzer)"

demo: build
	./build/solar check examples/*.air
	./build/solar analyze $(DEMO) --device $(DEMO_DEVICE)

test: deps-test build build-asan
	cd build && ctest --output-on-failure -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf build build-asan
