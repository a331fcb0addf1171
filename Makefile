# libnetcore — build, demo and tests. See README.md.
#   make demo   build libnetcore.so and run the C demo against the loopback mock API
#   make test   every test suite: Swift core, C API (Swift), C header/ABI/examples, Python
#   make bench  benchmarks vs raw libcurl and peers (bench/README.md); make bench-wan over a shaped WAN link
#   make docs   the HTML reference of the C API from the header (doxygen): build/docs/html
#   make format / make lint   swift format (.swift-format) and clang-format (.clang-format)
#   make conformance  the library against httpbin, nginx and tinyproxy, beside requests, httpx and curl
#   make fault  the fault-injection suite, every case (docs/RELIABILITY.md; its fast part is in make test)
#   make test-asan / test-tsan / test-ubsan / valgrind / alloc-fail / fuzz / race-1m / soak   reliability tools
#               (docs/RELIABILITY.md; none is part of make test but a 20,000-a-phase soak)
#   make chaos  2,000 requests over a lossy, slow, partitioned link in a namespace (short form in make test)
#   make fuzz-known  the inputs that once crashed a fuzz target, under ASan (part of make test)
#   make fuzz-campaign FUZZ_HOURS=N [FUZZ_JOBS=2]   every fuzz target, corpus kept in build/fuzz-corpus
#   make install [PREFIX=] [DESTDIR=]   library, header, netcore.pc, CMake package; make uninstall
SHELL := /bin/bash
.DEFAULT_GOAL := lib

BUILD    := build
LIBDIR   := $(BUILD)/lib
SONAME   := libnetcore.so.0
CC       ?= cc
CFLAGS   ?= -O2 -g
EXAMPLE_CFLAGS := -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude
EXAMPLE_LIBS   := -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lnetcore -ljansson
EXAMPLES := $(patsubst examples/c/%.c,$(BUILD)/bin/%,$(wildcard examples/c/*.c))

# What `make format` rewrites and `make lint` checks (not part of `make test`).
SWIFT_FORMAT_DIRS := Sources Tests bench/swift/Sources examples/swift
C_FORMAT_FILES := $(wildcard Sources/CCurlShim/*.c Sources/CCurlShim/include/*.h Sources/CJansson/*.h Sources/CNetVariadic/*.c Sources/CNetVariadic/include/*.h \
	include/*.h examples/c/*.c Tests/C/*.c Tests/chaos/*.c Tests/fault/*.c Tests/fuzz/*.c Tests/fuzz/*.h bench/c/*.c bench/c/*.h)

# NO_CONCURRENCY: the C product's modules (NetCoreBase, CNetAPI) are compiled without
# the implicit `import _Concurrency`, so the compiler proves they use none and
# libswift_Concurrency.a, libdispatch.a and libBlocksRuntime.a stay out of the
# library (docs/size.md). A flag of this build, never of Package.swift: SwiftPM
# refuses unsafe flags in a package that others depend on.
NO_CONCURRENCY := -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import
SWIFT_RELEASE_FLAGS := -c release --product netcore -Xswiftc -static-stdlib $(NO_CONCURRENCY) \
	-Xlinker --version-script=$(CURDIR)/include/netcore.map -Xlinker -soname=$(SONAME) \
	-Xcc -gdwarf-4

.PHONY: install uninstall test-install deps lib examples demo test test-swift test-c test-python test-tsan test-asan test-ubsan valgrind bench \
	bench-appmix fault fault-h2 alloc-fail fuzz fuzz-lib fuzz-campaign fuzz-known race-1m soak \
	format lint format-deps clean

deps:
	@scripts/install-deps.sh

# The distributable library: Swift stdlib linked statically, only nc_* exported.
lib: deps
	@# SwiftPM does not see the version script: a changed one must still relink.
	@if [ include/netcore.map -nt .build/release/libnetcore.so ]; then rm -f .build/release/libnetcore.so; fi
	swift build $(SWIFT_RELEASE_FLAGS)
	@mkdir -p $(LIBDIR)
	@# A new file renamed over the old one: a program running on the old library
	@# keeps its mapping (cp over it in place crashed a running test once).
	@cp -f .build/release/libnetcore.so $(LIBDIR)/$(SONAME).tmp && mv -f $(LIBDIR)/$(SONAME).tmp $(LIBDIR)/$(SONAME)
	@ln -sf $(SONAME) $(LIBDIR)/libnetcore.so
	@echo "built $(LIBDIR)/$(SONAME)"

$(BUILD)/bin/%: examples/c/%.c include/netcore.h $(LIBDIR)/$(SONAME)
	@mkdir -p $(BUILD)/bin
	$(CC) $(EXAMPLE_CFLAGS) $(CFLAGS) -o $@ $< $(EXAMPLE_LIBS)

examples: lib
	@$(MAKE) --no-print-directory $(EXAMPLES)

demo: examples
	@scripts/run-demo.sh

test: examples
	@scripts/run-tests.sh

test-swift: deps
	swift test

test-c: examples
	@Tests/C/run.sh

test-python: lib
	@Tests/python/run.sh

# The conformance suite (Tests/conformance, docs/conformance.md): the library against
# httpbin, nginx and tinyproxy, beside requests, httpx and curl; part of `make test`.
# Needs ncurl (examples); installs its servers (apt) and pinned PyPI packages (venv).
.PHONY: conformance
conformance: ncurl
	@Tests/conformance/run.sh

# The fault-injection suite (Tests/fault, docs/RELIABILITY.md): every case, async
# and sync; `make test` runs the fast part (async, the default limits' cases left out).
fault: lib
	@Tests/fault/run.sh --full

# HTTP/2 servers that misbehave (Tests/fault/h2.sh, docs/RELIABILITY.md; in make test).
fault-h2: lib
	@Tests/fault/h2.sh

# Benchmarks against raw libcurl and peers (not part of `make test`; bench/README.md).
bench: deps
	@bench/run.sh

# Over a WAN-shaped link in a network namespace (bench/wan.sh; needs root): profiles
# 80ms and 3g; cold burst, screens, steady state; nc beside raw libcurl and httpx.
.PHONY: bench-wan
bench-wan: lib
	@bench/wan.sh

# Workload 8 alone: the app-mix benchmark (bench/appmix.sh).
bench-appmix: lib
	@bench/appmix.sh

# Sanitizers and valgrind (not part of `make test`).
# ExecutorTests run alone, as in `make test` (scripts/run-tests.sh): they need the
# cooperative pool to themselves.
test-tsan: deps
	swift test --sanitize=thread --scratch-path .build-tsan --skip ExecutorTests
	swift test --sanitize=thread --scratch-path .build-tsan --skip-build --filter ExecutorTests

test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp swift test --sanitize=address --scratch-path .build-asan --skip ExecutorTests
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp swift test --sanitize=address --scratch-path .build-asan --skip-build --filter ExecutorTests

# valgrind memcheck over the demo, the C API test and the whole fault suite: any
# error or definitely/indirectly lost byte fails (exit 9). No suppressions needed
# (docs/RELIABILITY.md): the Swift runtime's one-time metadata allocations are
# "possibly lost" or still reachable, which do not count.
VALGRIND := valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	--show-leak-kinds=definite,indirect --num-callers=40
valgrind: examples
	@command -v valgrind >/dev/null || { sudo=""; [ "$$(id -u)" -ne 0 ] && sudo=sudo; $$sudo apt-get install -y -qq valgrind; }
	NC_WRAPPER="$(VALGRIND)" scripts/run-demo.sh
	FAULT_WAIT_S=120 NC_WRAPPER="$(VALGRIND)" Tests/fault/c-suites.sh

# UndefinedBehaviorSanitizer (docs/RELIABILITY.md): swiftc refuses -sanitize=undefined
# on Linux, so the C code (the shim, compiled by SwiftPM's clang) is built with
# -fsanitize=undefined (no recovery: the first finding fails) and the Swift code keeps
# its own always-on checks (overflow, bounds, unwrap). Runs the C API test and the
# fault suite on that library, then the Swift tests built the same way.
UBSAN_RT := $(dir $(shell clang -print-file-name=libclang_rt.ubsan_standalone-x86_64.so 2>/dev/null || \
	ls /opt/swift/usr/lib/clang/*/lib/linux/libclang_rt.ubsan_standalone-x86_64.so | head -n 1))
UBSAN_FLAGS := -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined -Xcc -g \
	-Xlinker -L$(UBSAN_RT) -Xlinker -lclang_rt.ubsan_standalone-x86_64 -Xlinker -rpath=$(UBSAN_RT)
test-ubsan: deps
	swift build -c release --product netcore $(NO_CONCURRENCY) --scratch-path .build-ubsan $(UBSAN_FLAGS)
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 NC_CC=clang \
	  NC_CFLAGS="-fsanitize=undefined -fno-sanitize-recover=undefined" NC_LIBDIR=.build-ubsan/release Tests/fault/c-suites.sh
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 swift test --scratch-path .build-ubsan $(UBSAN_FLAGS) --skip ExecutorTests

# Allocation failure (docs/RELIABILITY.md): fails each allocation of one request in
# turn (Tests/fault/failmalloc.c, LD_PRELOAD). ALLOC_FAIL_MAX=N sweeps the first N.
# It exits non-zero when a C-side failure crashes or gives a wrong answer (none do:
# docs/RELIABILITY.md); Swift-runtime allocations abort by design and are listed.
alloc-fail: lib
	@Tests/fault/alloc-fail.sh

# libFuzzer (docs/RELIABILITY.md): the library built with coverage (Swift
# -sanitize=fuzzer, clang -fsanitize=fuzzer-no-link) and AddressSanitizer, then each
# Tests/fuzz/fuzz_*.c target for FUZZ_SECONDS seconds on its seed corpus.
FUZZ_SECONDS ?= 60
fuzz: fuzz-lib
	FUZZ_SECONDS=$(FUZZ_SECONDS) Tests/fuzz/run.sh

fuzz-lib: deps
	swift build -c release --product netcore $(NO_CONCURRENCY) --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer \
	  -Xcc -fsanitize=fuzzer-no-link -Xcc -fsanitize=address

# The fuzzing campaign (Tests/fuzz/campaign.sh): every target for a share of
# FUZZ_HOURS (FUZZ_JOBS at a time, under nice), on the corpus kept in
# build/fuzz-corpus/<target> across runs and minimised (-merge=1) after each; a
# summary table of executions, exec/s, coverage and crashes; each crash input
# copied to Tests/fuzz/known/<target>/.
FUZZ_HOURS ?= 1
FUZZ_JOBS ?= 1
fuzz-campaign: fuzz-lib
	FUZZ_HOURS=$(FUZZ_HOURS) FUZZ_JOBS=$(FUZZ_JOBS) Tests/fuzz/campaign.sh

# The inputs that once crashed a fuzz target (Tests/fuzz/known/<target>/) under
# AddressSanitizer, against the release library (seconds; part of make test).
fuzz-known: lib
	@Tests/fuzz/known.sh

# Exactly once over RACE_N cancel/complete races and RSS over RACE_N requests
# (Tests/fault/race.c; not part of make test).
RACE_N ?= 1000000
race-1m: lib
	@mkdir -p $(BUILD)/bin
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -o $(BUILD)/bin/race Tests/fault/race.c \
	  -L$(LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lnetcore -ljansson -pthread
	$(BUILD)/bin/race $(RACE_N)

# The chaos suite (Tests/chaos, docs/RELIABILITY.md): 2,000 requests through the C API
# over a lossy, slow, partitioned link in a network namespace (Tests/netns); needs root.
# `make test` runs its short form (100 requests).
.PHONY: chaos
chaos: lib
	@Tests/chaos/run.sh --full

# Memory over SOAK_N requests a phase with each stateful feature on, one phase per
# feature (Tests/fault/soak.c; SOAK_PHASE=name runs one; make test runs 20,000 a phase).
SOAK_N ?= 200000
SOAK_PHASE ?=
soak: lib
	SOAK_N=$(SOAK_N) SOAK_PHASE=$(SOAK_PHASE) Tests/fault/soak.sh

# Formatting: swift format (in the toolchain) with .swift-format, clang-format with
# .clang-format (Debian's package; its version decides details of the output).
format: format-deps
	swift format -i -r $(SWIFT_FORMAT_DIRS)
	clang-format -i $(C_FORMAT_FILES)

# Reports every finding of both tools and fails if there is any (not part of `make test`).
lint: format-deps
	@status=0; \
	swift format lint --strict -r $(SWIFT_FORMAT_DIRS) || status=1; \
	clang-format --dry-run -Werror $(C_FORMAT_FILES) || status=1; \
	exit $$status

format-deps:
	@command -v clang-format >/dev/null || { sudo=""; [ "$$(id -u)" -ne 0 ] && sudo=sudo; $$sudo apt-get update -qq && $$sudo apt-get install -y -qq clang-format; }

clean:
	rm -rf $(BUILD) .build .build-tsan .build-asan .build-ubsan .build-fuzz Tests/NIOCompat/.build

# ---------------------------------------------------------------- install
# make install [PREFIX=/usr/local] [DESTDIR=] [INSTALL_DEBUG=1] [LDCONFIG=ldconfig]
#   lib/libnetcore.so.X.Y.Z (stripped; its debug info in lib/debug/… with
#   INSTALL_DEBUG=1, found through .gnu_debuglink), the soname and development
#   links, include/netcore.h, lib/pkgconfig/netcore.pc, lib/cmake/netcore/.
#   Then ldconfig, only without DESTDIR, as root, into a directory the dynamic loader
#   searches (scripts/ldconfig-after-install.sh says which; LDCONFIG= skips it).
PREFIX  ?= /usr/local
LDCONFIG ?= ldconfig
VERSION := $(shell sed -n 's/^\#define NC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' include/netcore.h | paste -sd.)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SOVERSION := 0
INST_LIB := $(DESTDIR)$(PREFIX)/lib
INST_INC := $(DESTDIR)$(PREFIX)/include
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' -e 's|@SOVERSION@|$(SOVERSION)|g'

install: lib
	install -d $(INST_LIB)/pkgconfig $(INST_LIB)/cmake/netcore $(INST_INC)
	objcopy --only-keep-debug $(LIBDIR)/$(SONAME) $(BUILD)/libnetcore.so.$(VERSION).debug
	objcopy --strip-unneeded --add-gnu-debuglink=$(BUILD)/libnetcore.so.$(VERSION).debug \
	        $(LIBDIR)/$(SONAME) $(BUILD)/libnetcore.so.$(VERSION)
	install -m 755 $(BUILD)/libnetcore.so.$(VERSION) $(INST_LIB)/libnetcore.so.$(VERSION)
	ln -sf libnetcore.so.$(VERSION) $(INST_LIB)/$(SONAME)
	ln -sf $(SONAME) $(INST_LIB)/libnetcore.so
	@if [ "$(INSTALL_DEBUG)" = 1 ]; then \
	  install -d $(INST_LIB)/debug$(PREFIX)/lib && \
	  install -m 644 $(BUILD)/libnetcore.so.$(VERSION).debug $(INST_LIB)/debug$(PREFIX)/lib/; fi
	install -m 644 include/netcore.h $(INST_INC)/netcore.h
	$(SUBST) dist/netcore.pc.in > $(INST_LIB)/pkgconfig/netcore.pc
	$(SUBST) dist/cmake/netcoreConfig.cmake.in > $(INST_LIB)/cmake/netcore/netcoreConfig.cmake
	$(SUBST) dist/cmake/netcoreConfigVersion.cmake.in > $(INST_LIB)/cmake/netcore/netcoreConfigVersion.cmake
	@echo "installed libnetcore $(VERSION) into $(DESTDIR)$(PREFIX)"
	@DESTDIR='$(DESTDIR)' LDCONFIG='$(LDCONFIG)' scripts/ldconfig-after-install.sh '$(PREFIX)/lib'

uninstall:
	rm -f $(INST_LIB)/libnetcore.so.$(VERSION) $(INST_LIB)/$(SONAME) $(INST_LIB)/libnetcore.so \
	      $(INST_LIB)/debug$(PREFIX)/lib/libnetcore.so.$(VERSION).debug \
	      $(INST_INC)/netcore.h $(INST_LIB)/pkgconfig/netcore.pc \
	      $(INST_LIB)/cmake/netcore/netcoreConfig.cmake $(INST_LIB)/cmake/netcore/netcoreConfigVersion.cmake
	-rmdir $(INST_LIB)/cmake/netcore 2>/dev/null

# Installs into a temporary prefix and builds out-of-tree programs with pkg-config and CMake.
test-install: lib
	@Tests/install/run.sh


# ---------------------------------------------------------------- ABI baseline
# make abi-check      compare the library and header with abi/ (abidiff; part of make test)
# make abi-baseline   record abi/ anew: at each release (docs/abi.md)
.PHONY: abi-check abi-baseline
abi-check: lib
	@scripts/abi.sh check

abi-baseline: lib
	@scripts/abi.sh baseline

# ---------------------------------------------------------------- size (docs/size.md)
# Link flags that make libnetcore.so smaller at no measured cost in speed (callgrind,
# instructions per request: docs/size.md). Appended to SWIFT_RELEASE_FLAGS, so `make lib`
# and everything built from it use them.
#  - lld, the toolchain's linker (gold otherwise), because it can:
#  - pack relative relocations (DT_RELR): the Swift metadata's absolute pointers need
#    ~25,000 of them, 600 KB as RELA, 4 KB as RELR. Needs glibc >= 2.36 where the
#    library runs (lld adds the GLIBC_ABI_DT_RELR version need); used only when the
#    building machine's glibc has it, as the library links against that glibc anyway.
#  - fold identical functions (--icf=all; code only: lld folds read-only data only
#    with --ignore-data-address-equality, never given here). Swift gives functions no
#    identity a program can observe; Apple's linker deduplicates Swift code by default.
# NC_SIZE_FLAGS= (empty) builds as before, with gold.
LLD_PATH    := $(dir $(realpath $(shell command -v swift 2>/dev/null)))ld.lld
GLIBC_MINOR := $(shell getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc 2\.\([0-9]*\).*/\1/p')
ifneq ($(wildcard $(LLD_PATH)),)
NC_SIZE_FLAGS ?= -Xswiftc -use-ld=lld -Xlinker --icf=all \
	$(if $(shell [ "$(GLIBC_MINOR)" -ge 36 ] 2>/dev/null && echo y),-Xlinker -z -Xlinker pack-relative-relocs)
endif
SWIFT_RELEASE_FLAGS += $(NC_SIZE_FLAGS)

# make docs: the C API reference (scripts/docs.sh; installs doxygen when missing).
.PHONY: docs
docs:
	@scripts/docs.sh

# make size-report: the library linked with a map (in .build-size/, apart from .build/),
# its size as built and as installed (stripped), and the bytes per origin.
.PHONY: size-report
size-report: deps
	@mkdir -p $(BUILD)/size
	swift build $(SWIFT_RELEASE_FLAGS) --scratch-path .build-size -Xlinker -Map=$(CURDIR)/$(BUILD)/size/libnetcore.map
	@cp -f .build-size/release/libnetcore.so $(BUILD)/size/libnetcore.so.0
	@objcopy --strip-unneeded $(BUILD)/size/libnetcore.so.0 $(BUILD)/size/libnetcore.so.0.stripped
	@echo "as built:     $$(stat -c %s $(BUILD)/size/libnetcore.so.0) bytes"
	@echo "as installed: $$(stat -c %s $(BUILD)/size/libnetcore.so.0.stripped) bytes (objcopy --strip-unneeded, as make install)"
	@python3 scripts/size-report.py $(BUILD)/size/libnetcore.map --top 15

.PHONY: clean-size
clean: clean-size
clean-size:
	rm -rf .build-size

# ---------------------------------------------------------------- Python wheel
# make wheel: build/wheel/netcore-VERSION-py3-none-PLATFORM.whl, the Python package with
# the stripped libnetcore.so.0 next to its modules (bindings/python/setup.py), for
# `pip install build/wheel/netcore-*.whl` on a machine with libcurl, jansson and libcrypto.
.PHONY: wheel test-wheel
wheel: lib
	@scripts/build-wheel.sh $(CURDIR)/$(BUILD)/wheel

# Builds the wheel, installs it into a fresh venv away from the tree, runs a request.
test-wheel: lib
	@Tests/wheel/run.sh

# ---------------------------------------------------------------- ncurl (tools/ncurl)
# build/bin/ncurl, built with the examples (so `make test` has it) on the public API
# only; make install puts it in $(PREFIX)/bin with its manual in share/man/man1.
NCURL := $(BUILD)/bin/ncurl
C_FORMAT_FILES += tools/ncurl/ncurl.c
INST_BIN := $(DESTDIR)$(PREFIX)/bin
INST_MAN1 := $(DESTDIR)$(PREFIX)/share/man/man1
.PHONY: ncurl install-ncurl uninstall-ncurl test-ncurl
$(NCURL): tools/ncurl/ncurl.c include/netcore.h $(LIBDIR)/$(SONAME)
	@mkdir -p $(BUILD)/bin
	$(CC) $(EXAMPLE_CFLAGS) $(CFLAGS) -o $@ $< $(EXAMPLE_LIBS)

ncurl: lib
	@$(MAKE) --no-print-directory $(NCURL)

examples: ncurl
install: install-ncurl
uninstall: uninstall-ncurl

install-ncurl: ncurl
	install -d $(INST_BIN) $(INST_MAN1)
	install -m 755 $(NCURL) $(INST_BIN)/ncurl
	install -m 644 tools/ncurl/ncurl.1 $(INST_MAN1)/ncurl.1

uninstall-ncurl:
	rm -f $(INST_BIN)/ncurl $(INST_MAN1)/ncurl.1

test-ncurl: ncurl
	@Tests/ncurl/run.sh

# ---------------------------------------------------------------- make mock
# The bundled mock API in the foreground, for the README's snippets: prints its URL
# (http://127.0.0.1:8080/api; MOCK_PORT= another port, 0 a free one); Ctrl-C stops it.
.PHONY: mock
mock:
	@scripts/mock.sh
