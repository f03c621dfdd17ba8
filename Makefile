# The two set-up commands of the README:
#   make demo   installs what is missing, builds, and analyses an example
#   make test   installs what is missing, builds (plain and ASan+UBSan+libFuzzer), runs every test;
#               also compiles a Release + FORTIFY build (build-release), warnings as errors
#   make venv   the Python environment of `solar translate` (build/venv, pinned PyPI packages)
#   make install   PREFIX (default /usr/local) and DESTDIR: bin/solar, share/solar/{devices,
#                  validate,translate,examples}, share/man/man1/solar.1
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += --no-print-directory
DEMO ?= examples/attention_causal.air
DEMO_DEVICE ?= h100-sxm

VENV ?= build/venv
PIP_FLAGS ?=

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-test build build-asan build-release demo test clean venv install
all: build

deps:
	@sh scripts/deps.sh

deps-test:
	@sh scripts/deps.sh test

# Build output goes to build*/build.log and is shown only when the build fails.
build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOLAR_WERROR=ON >/dev/null
	@cmake --build build -j $(JOBS) >build/build.log 2>&1 || { tail -n 60 build/build.log; exit 1; }
	@echo "built build/solar"

build-asan: deps-test
	@cmake -S . -B build-asan -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
	  -DSOLAR_SANITIZE=ON -DSOLAR_FUZZ=ON -DSOLAR_WERROR=ON >/dev/null
	@cmake --build build-asan -j $(JOBS) >build-asan/build.log 2>&1 || { tail -n 60 build-asan/build.log; exit 1; }
	@echo "built build-asan (ASan+UBSan, libFuzzer)"

# What a packager builds: Release (-O3) with glibc's FORTIFY checks and the stack protector,
# warnings as errors, so CI sees the warnings only the optimiser finds (a restrict overlap, a
# truncation, an ignored warn_unused_result) before a user's compiler does.  Compiled only,
# not tested: the plain and ASan builds run the suite.
RELEASE_CFLAGS ?= -D_FORTIFY_SOURCE=3 -fstack-protector-strong
build-release: deps
	@cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DSOLAR_WERROR=ON \
	  -DCMAKE_C_FLAGS="$(RELEASE_CFLAGS)" >/dev/null
	@cmake --build build-release -j $(JOBS) >build-release/build.log 2>&1 || { tail -n 60 build-release/build.log; exit 1; }
	@echo "built build-release (Release, $(RELEASE_CFLAGS))"

# `solar translate` runs PyTorch: a virtual environment with the pinned packages of
# translate/requirements.txt, built once (a second run does nothing until the list changes).
# The marker .installed is written last, and only when the installed packages import: an
# interrupted or failed install leaves none and is redone (pip resumes); one that does not
# import after a redo is removed and built from scratch.  A venv whose python is gone loses
# its marker.  PIP_FLAGS passes options to pip, e.g. PIP_FLAGS='--find-links /tmp/whl'.
VENV_CHECK = import torch, numpy, sympy, jax; assert tuple(map(int, torch.__version__.split(".")[:2])) >= (2, 5)
# The install peaks at about 12 GB on the disk of build/ (wheels and their unpacked copies;
# 7.6 GB stays, measured 2026-12-01), so it first checks the free space: a full disk would
# otherwise fail minutes in, in pip's words.  No wheel cache is kept (--no-cache-dir): the
# venv itself is the cache.
VENV_NEED_GB ?= 12
VENV_PIP = $(VENV)/bin/python -m pip install -q --no-cache-dir --disable-pip-version-check $(PIP_FLAGS) -r translate/requirements.txt
VENV_SPACE = free=$$(df -Pk $(dir $(VENV)) | awk 'NR==2 {print int($$4 / 1000000)}'); \
  if [ "$${free:-0}" -lt $(VENV_NEED_GB) ]; then \
    echo "venv: $(dir $(VENV)) has $${free:-?} GB free; installing the pinned torch and jax there needs about $(VENV_NEED_GB) GB (7.6 GB stays): free some space, or set VENV=DIR/venv elsewhere (VENV_NEED_GB=N to override the check)" >&2; \
    exit 1; fi
venv:
	@test -x $(VENV)/bin/python || rm -f $(VENV)/.installed
	@$(MAKE) -s $(VENV)/.installed

$(VENV)/.installed: translate/requirements.txt
	@rm -f $@
	@mkdir -p $(dir $(VENV))
	@$(VENV_SPACE)
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@echo "venv: installing translate/requirements.txt into $(VENV) (torch pulls ~3 GB once)"
	@$(VENV_PIP)
	@$(VENV)/bin/python -c '$(VENV_CHECK)' 2>/dev/null || { \
	  echo "venv: $(VENV) does not import torch, numpy, sympy and jax: rebuilding it"; \
	  rm -rf $(VENV) && python3 -m venv $(VENV) && $(VENV_PIP) && \
	  $(VENV)/bin/python -c '$(VENV_CHECK)'; }
	@$(VENV)/bin/python -c 'import torch; print("torch", torch.__version__)' >$@.tmp && mv $@.tmp $@

demo: build
	./build/solar check examples/*.air
	./build/solar analyze $(DEMO) --device $(DEMO_DEVICE)

test: deps-test build build-asan build-release venv
	cd build && ctest --output-on-failure -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# The prefix is compiled in (the devices folder searched by name) and the binary also finds
# share/solar beside itself, so a DESTDIR-staged or moved tree works too (docs/devices.md).
install: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$(PREFIX)" >/dev/null
	@cmake --build build -j $(JOBS) >build/build.log 2>&1 || { tail -n 60 build/build.log; exit 1; }
	@DESTDIR="$(DESTDIR)" cmake --install build >build/install.log || { cat build/install.log; exit 1; }
	@echo "installed $(DESTDIR)$(PREFIX)/bin/solar (man solar; solar device list)"

clean:
	rm -rf build build-asan build-release
