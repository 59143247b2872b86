# SPDX-License-Identifier: GPL-2.0
#
# Top-level build for etw: the module (through Kbuild), libetw, etwctl, the
# selftests, and the test and demo drivers.  `make help` lists the targets.

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Instrumentation manifests TDH reads without TdhLoadManifest (libetw.rst);
# make install puts those of userlib/manifests there.
MANIFESTDIR ?= $(PREFIX)/share/etw/manifests
DESTDIR ?=

CC ?= cc
# A cross build takes the kernel's convention: make ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu- (the default prefix with ARCH=arm64).
# The compilers are the prefix's gcc and g++ unless CC or CXX are given;
# the libraries come from Debian's arm64 packages (scripts/deps.sh), found
# through their pkg-config files.  ARCH also picks the test kernel the
# module is built against (scripts/build-kernel.sh).
ifeq ($(ARCH),arm64)
CROSS_COMPILE ?= aarch64-linux-gnu-
export ARCH CROSS_COMPILE
endif
ifneq ($(CROSS_COMPILE),)
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin CXX),default)
CXX := $(CROSS_COMPILE)g++
endif
MULTIARCH := $(shell $(CC) -print-multiarch)
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(MULTIARCH)/pkgconfig:/usr/share/pkgconfig pkg-config
endif
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wstrict-prototypes -Wshadow
CPPFLAGS += -Iuapi -Iuserlib/include -D_GNU_SOURCE

# The kernel tree to build the module against: the running kernel's headers
# when present, otherwise the cached test kernel (built on first use); with
# KVER=6.1 or 6.12, or with ARCH, that test kernel.
KDIR ?= $(shell if [ -z "$(KVER)$(ARCH)" ] && [ -d /lib/modules/$$(uname -r)/build ]; then \
	echo /lib/modules/$$(uname -r)/build; else \
	ARCH=$(ARCH) KVER=$(KVER) scripts/build-kernel.sh; fi)
# kselftest_harness.h, used by the selftests and the host tests.
KSFT_INC ?= $(shell scripts/ksft-headers.sh)

# What libetw links with (libxml2 reads instrumentation manifests).
LIBETW_LIBS := $(shell $(PKG_CONFIG) --libs libxml-2.0) -lpthread
LIBXML2_CFLAGS := $(shell $(PKG_CONFIG) --cflags libxml-2.0)

# The one version of etw: etwctl --version, libetw.pc, the module's
# MODULE_VERSION (kmod/Kbuild reads the file too), the DKMS source's
# dkms.conf; make version-check compares debian/changelog and etwctl(1).
VERSION := $(shell cat VERSION)
# libetw's ABI version: the soname's number, the version nodes of
# userlib/libetw.map (LIBETW_$(ABI), LIBETW_$(ABI).N) and the Debian
# package libetw$(ABI); raised only when an exported function changes or
# goes (scripts/abi-check.sh).
ABI := 0
SONAME := libetw.so.$(ABI)

LIB_SRCS := $(wildcard userlib/*.c)
LIB_OBJS := $(LIB_SRCS:.c=.o)
LIB_PIC_OBJS := $(LIB_SRCS:.c=.pic.o)
CTL_SRCS := $(wildcard ctl/*.c)
# Only etwctl itself has forward, which loads libcurl when it runs (its
# headers at build time); the host tests take the rest.
CTL_TEST_SRCS := $(filter-out ctl/etwctl.c ctl/cmd_forward.c ctl/cmd_top.c,$(CTL_SRCS))
CURL_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcurl)
# etwctl symbolises stacks with elfutils' libdwfl (ctl/symbols.c).
DW_LIBS := $(shell $(PKG_CONFIG) --libs libdw)

# top's BPF programs (clang -target bpf) and their bpftool skeleton;
# libbpf-dev and bpftool (scripts/deps.sh).
BPF_CLANG ?= clang
BPF_CFLAGS := -O2 -g -Wall -target bpf -Ictl/bpf \
	-I/usr/include/$(shell $(CC) -print-multiarch)
LIBBPF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libbpf)
LIBBPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf)
SELFTEST_SRCS := $(wildcard selftests/*_test.c)
SELFTESTS := $(SELFTEST_SRCS:.c=)
BENCH_SRCS := $(wildcard selftests/bench/*_bench.c)
BENCHES := $(BENCH_SRCS:.c=)
HOSTTEST_SRCS := $(wildcard userlib/tests/*_test.c ctl/tests/*_test.c)
HOSTTESTS := $(HOSTTEST_SRCS:.c=)
EXAMPLE_SRCS := $(wildcard ctl/examples/*.c)
EXAMPLES := $(EXAMPLE_SRCS:.c=)

# The first rule of the file is make's goal: plain make builds all.
all:

.PHONY: FORCE
FORCE:

.PHONY: all module lib ctl man selftests hosttests examples check demo bench bench-host fuzz \
	fuzz-host install modules_install clean help kernel coverage soak kcsan mutate mutate-check bt2 \
	deb deb-test dkms-source version-check

# The babeltrace2 plugin needs libbabeltrace2-dev (scripts/deps.sh installs
# it); without it make all leaves the plugin out and make bt2 fails.
HAVE_BT2 := $(shell $(PKG_CONFIG) --exists babeltrace2 && echo y)

all: module lib ctl selftests examples $(if $(HAVE_BT2),bt2)

help:
	@echo "make            build etw.ko, etw_test.ko, libetw, etwctl, selftests, examples"
	@echo "make bt2        the babeltrace2 plugin bt2/babeltrace-plugin-etw.so"
	@echo "make check      run every test (host tests, 6.1 build, KUnit and kselftests in the VM);"
	@echo "                KVER=6.1: the VM suites on the 6.1 test kernel; TESTDATA=DIR: the"
	@echo "                Windows sample files (default ../shared/testdata)"
	@echo "make demo       the main job: record a trace in the VM and decode it"
	@echo "make bench      benchmarks in the VM (ratios against baselines of the same run); KVER=6.1"
	@echo "make bench-host reading and decoding ETL files on the host: events/s, RSS"
	@echo "make fuzz       fuzz /dev/etw in the VM for SECONDS=N (60), SEED=S, THREADS=T;"
	@echo "                then each libFuzzer target of userlib/fuzz/ for SECONDS"
	@echo "                (HOST_SECONDS=N, TRINITY_SECONDS=N: their own length, 0: none)"
	@echo "make fuzz-host  build the libFuzzer targets (ASan, UBSan) and their seeds"
	@echo "make kernel     build (or find) the cached test kernel and print its path"
	@echo "make coverage   KUnit and kselftests on a gcov etw.ko: line coverage per file"
	@echo "make soak [MINUTES=10]   long churn run in the VM: exact accounting, slab back"
	@echo "make kcsan      the stress tests on a KCSAN kernel"
	@echo "make mutate     mutants of etw.ko, batched writes, the ETL reader, TDH: kill rates"
	@echo "make mutate-check  every mutant of scripts/mutations still applies (no build)"
	@echo "make install    libetw, headers, libetw.pc, the manifests of userlib/manifests, etwctl,"
	@echo "                etwctl(1), bash completion under DESTDIR/PREFIX"
	@echo "make modules_install   install etw.ko into the KDIR kernel's module tree"
	@echo "make dkms-source       the module's source and dkms.conf in DESTDIR/usr/src/etw-VERSION"
	@echo "make deb       the Debian packages, built in a copy of the tree, into build/deb/"
	@echo "make deb-test  make deb, then install, use and purge the packages (root)"
	@echo "make version-check     debian/changelog and etwctl(1) name VERSION"

kernel:
	@scripts/build-kernel.sh

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# --- libetw ---------------------------------------------------------------
lib: userlib/libetw.so userlib/libetw.a userlib/libetw.pc userlib/libetw-wmain.a

LIB_DEFS := -DETW_MANIFEST_DIR='"$(MANIFESTDIR)"'
# Frame pointers let a STACK_TRACE walk pass through EventWrite to the
# program's own frames; without them every stack ends inside libetw.
LIB_CFLAGS := -fno-omit-frame-pointer

# The compilers objects were built with: switching ARCH or CC rebuilds
# every object and program.
build/cc: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CXX)' | cmp -s - $@ || echo '$(CC) $(CXX)' > $@

userlib/%.o: userlib/%.c $(wildcard userlib/*.h userlib/include/*.h uapi/linux/*.h) build/cc
	$(CC) $(CPPFLAGS) $(LIB_DEFS) $(LIBXML2_CFLAGS) $(CFLAGS) $(LIB_CFLAGS) $(WARN) -c -o $@ $<

userlib/%.pic.o: userlib/%.c $(wildcard userlib/*.h userlib/include/*.h uapi/linux/*.h) build/cc
	$(CC) $(CPPFLAGS) $(LIB_DEFS) $(LIBXML2_CFLAGS) $(CFLAGS) $(LIB_CFLAGS) $(WARN) -fPIC -c -o $@ $<

# The manifest directory is compiled in: rebuilt when MANIFESTDIR changes.
build/manifestdir: FORCE
	@mkdir -p $(@D)
	@echo '$(MANIFESTDIR)' | cmp -s - $@ || echo '$(MANIFESTDIR)' > $@

userlib/etw_tdh_path.o userlib/etw_tdh_path.pic.o: build/manifestdir

userlib/libetw.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# The main() that calls a program's wmain (userlib/wmain/etw_wmain.c):
# position-independent, so that it links into PIE and non-PIE programs.
userlib/libetw-wmain.a: userlib/wmain/etw_wmain.c $(wildcard userlib/include/*.h) build/cc
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -c -o userlib/wmain/etw_wmain.o $<
	rm -f $@
	ar rcs $@ userlib/wmain/etw_wmain.o

userlib/libetw.so: $(LIB_PIC_OBJS) userlib/libetw.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=userlib/libetw.map \
		-o $@ $(LIB_PIC_OBJS) $(LIBETW_LIBS)
	ln -sf libetw.so $(@D)/$(SONAME)

# What makes L"..." a WCHAR string (Documentation/libetw.rst, "Wide
# strings"): offered as the pc file's wide_cflags, not in its Cflags, since
# it changes wchar_t for the whole program.
WIDE_CFLAGS := -fshort-wchar

# Regenerated every time: PREFIX may differ between make and make install.
userlib/libetw.pc: userlib/libetw.pc.in FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)/etw|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@WIDE_CFLAGS@|$(WIDE_CFLAGS)|' -e 's|@MANIFESTDIR@|$(MANIFESTDIR)|' \
	    $< > $@

# --- etwctl ---------------------------------------------------------------
ctl: ctl/etwctl

ctl/etwctl: $(CTL_SRCS) $(wildcard ctl/*.h) userlib/libetw.a build/bpf/top.skel.h \
		build/mc/mc_prologue.inc Makefile
	$(CC) $(CPPFLAGS) -Ictl -Ictl/bpf -Ibuild/bpf -Ibuild/mc -Iuserlib -DETW_VERSION='"$(VERSION)"' \
		$(CFLAGS) $(WARN) $(CURL_CFLAGS) $(LIBBPF_CFLAGS) $(LDFLAGS) -o $@ $(CTL_SRCS) \
		userlib/libetw.a $(LIBETW_LIBS) $(DW_LIBS) $(LIBBPF_LIBS)

# etwctl mc's header text common to every manifest, as a C string.
build/mc/mc_prologue.inc: ctl/mc_prologue.txt
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@.tmp
	mv $@.tmp $@

build/bpf/top.bpf.o: ctl/bpf/top.bpf.c ctl/bpf/top_maps.h build/cc
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

build/bpf/top.skel.h: build/bpf/top.bpf.o
	bpftool gen skeleton $< name etwctl_top > $@.tmp && mv $@.tmp $@

# --- babeltrace2 plugin ---------------------------------------------------
# source.etw.etl (Documentation/babeltrace2.rst).  libetw's position-
# independent objects are linked in and hidden: the plugin exports only
# what babeltrace2 looks up, and reads files with libetw's ETL reader,
# whose functions libetw.so does not export.
BT2_PLUGIN := bt2/babeltrace-plugin-etw.so
BT2_SRCS := $(wildcard bt2/*.c)

bt2: $(BT2_PLUGIN) bt2/tests/tl_etl_gen

build/bt2/libetw-pic.a: $(LIB_PIC_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BT2_PLUGIN): $(BT2_SRCS) bt2/etwbt.h build/bt2/libetw-pic.a
	$(CC) $(CPPFLAGS) -Iuserlib $(shell $(PKG_CONFIG) --cflags babeltrace2) $(CFLAGS) \
		$(WARN) -fPIC -shared -o $@ $(BT2_SRCS) build/bt2/libetw-pic.a \
		-Wl,--exclude-libs,ALL -Wl,--no-undefined \
		$(shell $(PKG_CONFIG) --libs babeltrace2) $(LIBETW_LIBS)

# Writes the .etl file of TraceLogging events that scripts/tests/bt2_test.py
# converts (the events of $(TLG_EVENTS), through the provider double).
bt2/tests/tl_etl_gen: bt2/tests/tl_etl_gen.c $(TLG_DEPS) userlib/libetw.a \
		$(HOSTTEST_DEPS)
	$(CC) $(HOSTTEST_FLAGS) -o $@ $< $(TLG_EVENTS) userlib/libetw.a $(LIBETW_LIBS)

# The etwctl(1) man page, from Documentation/etwctl.rst (Debian's docutils).
man: build/man/etwctl.1

build/man/etwctl.1: Documentation/etwctl.rst
	@mkdir -p $(@D)
	rst2man --strict $< $@

# --- tests ----------------------------------------------------------------
# Selftests run in the VM and link libetw dynamically, as real programs do.
# The benchmarks' instruction-count marker is an x86 instruction
# (selftests/bench/icount_marker.h): they are built for x86 only.
selftests: $(SELFTESTS) $(if $(CROSS_COMPILE),,$(BENCHES))

# Benchmarks, which make bench runs in the VM (scripts/bench.sh).
selftests/bench/%_bench: selftests/bench/%_bench.c selftests/bench/icount_marker.h \
		selftests/bench/bench_session.h selftests/bench/bench_loop.h \
		userlib/libetw.so
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< -Luserlib -letw $(LIBETW_LIBS) \
		-Wl,-rpath,'$$ORIGIN/../../userlib'

# LTTng-UST, issue 17's in-process peer, writes through a tracepoint
# provider compiled into the benchmark (selftests/bench/lttng_session.sh
# runs it in a session).
selftests/bench/lttng_bench: selftests/bench/lttng_bench.c \
		selftests/bench/lttng_bench_tp.h selftests/bench/bench_loop.h \
		selftests/bench/icount_marker.h build/cc
	$(CC) $(CPPFLAGS) -Iselftests/bench $(CFLAGS) $(WARN) -o $@ $< \
		$$($(PKG_CONFIG) --libs lttng-ust)

# wide_test and its C++ half use L"..." strings: built with $(WIDE_CFLAGS).
# No exceptions or RTTI, so linking needs no C++ runtime in the VM.
selftests/wide_cxx.o: selftests/wide_cxx.cc selftests/wide_record.h \
		$(wildcard userlib/include/*.h) build/cc
	$(CXX) $(CPPFLAGS) $(WIDE_CFLAGS) -std=c++11 -fno-exceptions -fno-rtti \
		$(CFLAGS) -Wall -Wextra -c -o $@ $<

selftests/wide_test: selftests/wide_test.c selftests/wide_cxx.o \
		$(wildcard selftests/*.h) userlib/libetw.so
	$(CC) $(CPPFLAGS) -I$(KSFT_INC) -Iselftests $(WIDE_CFLAGS) $(CFLAGS) $(WARN) \
		-Wno-shadow -Wno-sign-compare -Wno-clobbered -o $@ $< \
		selftests/wide_cxx.o -Luserlib -letw $(LIBETW_LIBS) \
		-Wl,-rpath,'$$ORIGIN/../userlib'

# ext_items_test finds its caller in the user stack the kernel walks through
# frame pointers; ext_items_bench and filter_bench time that walk.
selftests/ext_items_test: private CFLAGS += -fno-omit-frame-pointer
selftests/bench/ext_items_bench: private CFLAGS += -fno-omit-frame-pointer
selftests/bench/filter_bench: private CFLAGS += -fno-omit-frame-pointer

# stack_symbols_test checks that dump names the frames of its call chain
# and of stack_symbols_lib.so, which it dlopen()s: both need the frames.
selftests/stack_symbols_test: private CFLAGS += -fno-omit-frame-pointer
selftests/stack_symbols_test: selftests/stack_symbols_lib.so
# klogger_profile_test finds its spinning function's caller in the stacks;
# the spinning function is a leaf, whose frame record arm64's GCC omits
# unless told (override: the arm64 build sets CFLAGS on make's command
# line).
selftests/klogger_profile_test: private override CFLAGS += \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
# klogger_syscall_test finds its marker's caller in the system calls' stacks,
# klogger_sched_test the sleeper's and the waker's callers in theirs.
selftests/klogger_syscall_test: private CFLAGS += -fno-omit-frame-pointer
selftests/klogger_sched_test: private override CFLAGS += -fno-omit-frame-pointer
selftests/stack_symbols_lib.so: selftests/stack_symbols_lib.c build/cc
	$(CC) $(CFLAGS) -fno-omit-frame-pointer $(WARN) -fPIC -shared -o $@ $<

selftests/%_test: selftests/%_test.c $(wildcard selftests/*.h) userlib/libetw.so
	$(CC) $(CPPFLAGS) -I$(KSFT_INC) -Iselftests $(CFLAGS) $(WARN) -Wno-shadow \
		-Wno-sign-compare -Wno-clobbered \
		-o $@ $< -Luserlib -letw $(LIBETW_LIBS) -Wl,-rpath,'$$ORIGIN/../userlib'

# The mc.exe-shaped provider units, two per program: as C in mcgen_test,
# as C++17 in mcgen_cxx_test (whose harness, like every kselftest, is C).
# mc.exe's output has MSVC's #pragma warning lines: -Wno-unknown-pragmas.
# Its win:UnicodeString templates call wcslen and write L"NULL", and the
# test passes L"..." strings: every object is built with $(WIDE_CFLAGS).
# Their header, mcgen_events.h, is what etwctl mc writes for
# mcgen_events.man (run under qemu-aarch64 when etwctl is arm64's).
MCGEN_UNITS := selftests/mcgen_tu1.c selftests/mcgen_tu2.c
MCGEN_DEPS := $(MCGEN_UNITS) $(wildcard selftests/*.h userlib/include/*.h) \
	build/mc/mcgen_events.h userlib/libetw.so
MCGEN_CXXFLAGS = -std=c++17 $(CPPFLAGS) -Iselftests -Ibuild/mc $(WIDE_CFLAGS) \
	$(CFLAGS) -Wall -Wextra -Wshadow -Wno-unknown-pragmas
KSFT_CFLAGS = $(CPPFLAGS) -I$(KSFT_INC) -Iselftests $(CFLAGS) $(WARN) \
	-Wno-shadow -Wno-sign-compare -Wno-clobbered
MCGEN_CFLAGS = $(KSFT_CFLAGS) -Ibuild/mc $(WIDE_CFLAGS) -Wno-unknown-pragmas
MC_RUN := $(if $(filter arm64,$(ARCH)),qemu-aarch64)

build/mc/mcgen_events.h: selftests/mcgen_events.man ctl/etwctl
	@mkdir -p $(@D)
	$(MC_RUN) ctl/etwctl mc -h $(@D) -z mcgen_events $<

selftests/mcgen_test: selftests/mcgen_test.c $(MCGEN_DEPS)
	$(CC) $(MCGEN_CFLAGS) -o $@ $< $(MCGEN_UNITS) \
		-Luserlib -letw $(LIBETW_LIBS) -Wl,-rpath,'$$ORIGIN/../userlib'

build/mcgen/%.cxx.o: selftests/%.c $(MCGEN_DEPS)
	@mkdir -p $(@D)
	$(CXX) -x c++ $(MCGEN_CXXFLAGS) -c -o $@ $<

selftests/mcgen_cxx_test: selftests/mcgen_cxx_test.c selftests/mcgen_test.c \
		$(MCGEN_UNITS:selftests/%.c=build/mcgen/%.cxx.o)
	@mkdir -p build/mcgen
	$(CC) $(MCGEN_CFLAGS) -c -o build/mcgen/mcgen_cxx_test.o $<
	$(CXX) -o $@ build/mcgen/mcgen_cxx_test.o \
		$(MCGEN_UNITS:selftests/%.c=build/mcgen/%.cxx.o) \
		-Luserlib -letw $(LIBETW_LIBS) -Wl,-rpath,'$$ORIGIN/../userlib'

# Host tests cover pure user-space code and need no VM.
hosttests: $(HOSTTESTS)

# The host tests' data: ETL files Windows wrote and test vectors
# (userlib/tests/testdata.h).  Tests that read it skip without it.
TESTDATA ?= $(CURDIR)/../shared/testdata

# The directory is compiled in: the host tests are rebuilt when it changes.
build/testdata: FORCE
	@mkdir -p $(@D)
	@echo '$(TESTDATA)' | cmp -s - $@ || echo '$(TESTDATA)' > $@

# -Wno-clobbered: the harness's fork and longjmp around fixtures with setup
# and teardown (as for the kselftests); -Wno-missing-field-initializers:
# a case table leaves the fields its row does not need zero.
HOSTTEST_FLAGS = $(CPPFLAGS) -I$(KSFT_INC) -Iuserlib -Iuserlib/tests -Ictl -Ibuild/mc \
	$(CFLAGS) $(WARN) -Wno-shadow -Wno-sign-compare -Wno-clobbered \
	-Wno-missing-field-initializers \
	-DTESTDATA='"$(TESTDATA)"' -DSRC_DIR='"$(CURDIR)"'

HOSTTEST_DEPS := $(wildcard userlib/include/*.h userlib/*.h userlib/tests/*.h \
	userlib/tests/data/*.h uapi/linux/*.h) build/testdata build/cc

userlib/tests/%_test: userlib/tests/%_test.c userlib/libetw.a $(HOSTTEST_DEPS)
	$(CC) $(HOSTTEST_FLAGS) -o $@ $< userlib/libetw.a $(LIBETW_LIBS)

# Runs natively on the host, from make bench (scripts/bench.sh).
userlib/tests/%_bench: userlib/tests/%_bench.c userlib/libetw.a $(HOSTTEST_DEPS)
	$(CC) $(HOSTTEST_FLAGS) -o $@ $< userlib/libetw.a $(LIBETW_LIBS)

# Links the programs it builds with libetw-wmain.
userlib/tests/win32_crt_test: userlib/libetw-wmain.a

# Compiles the units of the mcgen kselftests, on their header.
userlib/tests/mcgen_windows_test: build/mc/mcgen_events.h

# text_segment_image needs text that does not start the file: x86-64's ld
# does that by default, arm64's only with separate-code.
ctl/tests/symbols_test: private LDFLAGS += -Wl,-z,separate-code

ctl/tests/%_test: ctl/tests/%_test.c userlib/libetw.a $(HOSTTEST_DEPS) \
		$(wildcard ctl/*.h ctl/tests/*.h) $(CTL_TEST_SRCS) build/mc/mc_prologue.inc
	$(CC) $(HOSTTEST_FLAGS) $(LDFLAGS) -o $@ $< $(CTL_TEST_SRCS) \
		userlib/libetw.a $(LIBETW_LIBS) $(DW_LIBS)

# TraceLogging: the events of tracelogging_events.c, built as C for the
# decoder test and as C and C++ (and with Clang when installed) for the
# test that compares the builds' bytes.
TLG_EVENTS := userlib/tests/tracelogging_events.c
TLG_DEPS := $(TLG_EVENTS) userlib/tests/tracelogging_events.h \
	userlib/tests/tracelogging_double.h
CXX ?= c++
# Clang compiles for the cross compiler's target too.
CLANG_TARGET := $(if $(CROSS_COMPILE),--target=$(MULTIARCH))
CLANG := $(shell command -v clang 2>/dev/null)
CLANGXX := $(shell command -v clang++ 2>/dev/null)
TLG_LANG_FLAGS = $(CPPFLAGS) -Iuserlib/tests $(CFLAGS) \
	$(filter-out -Wstrict-prototypes,$(WARN)) -Wpedantic -Werror

ctl/tests/tracelogging_decode_test: ctl/tests/tracelogging_decode_test.c \
		$(TLG_DEPS) userlib/libetw.a $(HOSTTEST_DEPS) \
		$(wildcard ctl/*.h) $(CTL_TEST_SRCS) build/mc/mc_prologue.inc
	$(CC) $(HOSTTEST_FLAGS) -o $@ $< $(TLG_EVENTS) \
		$(CTL_TEST_SRCS) userlib/libetw.a $(LIBETW_LIBS) $(DW_LIBS)

selftests/tracelogging_test: $(TLG_DEPS)

build/tlg/events-%.o: $(TLG_DEPS) $(HOSTTEST_DEPS)
	@mkdir -p $(@D)
	$(TLG_CC_$*) $(TLG_LANG_FLAGS) -DTLE_RUN=tle_run_$* -c -o $@ $(TLG_EVENTS)

TLG_CC_c = $(CC) -std=c99
TLG_CC_cxx = $(CXX) -x c++ -std=c++11
TLG_CC_clang = clang $(CLANG_TARGET) -std=c11
TLG_CC_clangxx = clang++ $(CLANG_TARGET) -x c++ -std=c++17
TLG_BUILDS := c cxx $(if $(and $(CLANG),$(CLANGXX)),clang clangxx)

build/tlg/tu.o: userlib/tests/tracelogging_tu.cc $(TLG_DEPS) $(HOSTTEST_DEPS)
	@mkdir -p $(@D)
	$(TLG_CC_cxx) $(TLG_LANG_FLAGS) -c -o $@ $<

userlib/tests/tracelogging_lang_test: userlib/tests/tracelogging_lang_test.c \
		$(TLG_BUILDS:%=build/tlg/events-%.o) build/tlg/tu.o \
		$(HOSTTEST_DEPS)
	$(CC) $(HOSTTEST_FLAGS) $(if $(CLANG),-DTLE_CLANG) -o $@ $< \
		$(TLG_BUILDS:%=build/tlg/events-%.o) build/tlg/tu.o

# --- libFuzzer targets (Documentation/testing.rst, "Fuzzing") ---------------
# Each userlib/fuzz/NAME_fuzz.c with libetw's sources built in under
# AddressSanitizer and UBSan (errors abort), not libetw.a.  make check runs
# each for 30 s, make fuzz for SECONDS (scripts/fuzz-host.sh); the seeds
# are written by fuzz_seeds from the sample ETL files and the manifests.
FUZZ_CC ?= clang
FUZZ_DIR := build/fuzz-host
FUZZ_TARGETS := $(patsubst userlib/fuzz/%_fuzz.c,%,$(wildcard userlib/fuzz/*_fuzz.c))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
# -Wno-varargs: TraceMessage's last named parameter is a USHORT (the
# Windows prototype), which Clang warns about and GCC does not.
# TDH's installed manifest directory is one that does not exist: what the
# targets decode does not depend on what is installed.
FUZZ_CFLAGS = $(CPPFLAGS) $(LIBXML2_CFLAGS) -Iuserlib -Iuserlib/fuzz -O1 -g \
	-fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(WARN) -Wno-varargs \
	$(FUZZ_MANIFEST_DEF) -DETW_MANIFEST_DIR='"$(CURDIR)/$(FUZZ_DIR)/no-manifests"'
FUZZ_LIB_OBJS := $(LIB_SRCS:userlib/%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/etw_fuzz_entry.o
FUZZ_DEPS := $(wildcard userlib/*.h userlib/include/*.h uapi/linux/*.h) userlib/fuzz/etw_fuzz_entry.h
FUZZ_MANIFESTS := $(wildcard userlib/manifests/*.man userlib/tests/*.man selftests/*.man)
# The etl target (and fuzz_regress_test) loads them: colon-separated paths.
FUZZ_NOTHING :=
FUZZ_MANIFEST_DEF = -DETW_FUZZ_MANIFESTS='"$(subst $(FUZZ_NOTHING) $(FUZZ_NOTHING),:,$(abspath $(FUZZ_MANIFESTS)))"'

$(FUZZ_DIR)/obj/%.o: userlib/%.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_DIR)/obj/%.o: userlib/fuzz/%.c $(FUZZ_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_DIR)/%_fuzz: $(FUZZ_DIR)/obj/%_fuzz.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBETW_LIBS)

$(FUZZ_DIR)/fuzz_seeds: userlib/fuzz/fuzz_seeds.c build/tlg/events-c.o userlib/libetw.a \
		$(HOSTTEST_DEPS) userlib/fuzz/etw_fuzz_entry.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iuserlib -Iuserlib/tests -Iuserlib/fuzz $(CFLAGS) $(WARN) \
		-o $@ $< build/tlg/events-c.o userlib/libetw.a $(LIBETW_LIBS)

$(FUZZ_DIR)/seeds/stamp: $(FUZZ_DIR)/fuzz_seeds $(wildcard $(TESTDATA)/etl/*.etl) \
		$(FUZZ_MANIFESTS)
	rm -rf $(@D)
	$< $(@D) $(wildcard $(TESTDATA)/etl/*.etl) -- $(FUZZ_MANIFESTS)
	touch $@

# The manifest target's dictionary: the names the reader looks for, and XML.
$(FUZZ_DIR)/manifest.dict: userlib/etw_tdh_manifest.c
	@mkdir -p $(@D)
	{ grep -o '"[A-Za-z:_][A-Za-z0-9:_.$$()]*"' $< | sort -u; \
	  printf '%s\n' '"<"' '"</"' '"/>"' '"=\""' '"$$(string."' '"0x"'; } > $@

fuzz-host: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%_fuzz) $(FUZZ_DIR)/seeds/stamp \
	$(FUZZ_DIR)/manifest.dict

.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_TARGETS:%=$(FUZZ_DIR)/obj/%_fuzz.o)

# Replays userlib/fuzz/regress/ through the fuzz targets' entry points.
userlib/tests/fuzz_regress_test: userlib/tests/fuzz_regress_test.c userlib/fuzz/etw_fuzz_entry.c \
		userlib/libetw.a $(HOSTTEST_DEPS) userlib/fuzz/etw_fuzz_entry.h
	$(CC) $(HOSTTEST_FLAGS) -Iuserlib/fuzz $(FUZZ_MANIFEST_DEF) -o $@ $< \
		userlib/fuzz/etw_fuzz_entry.c userlib/libetw.a $(LIBETW_LIBS)

examples: $(EXAMPLES)

ctl/examples/%: ctl/examples/%.c userlib/libetw.so
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -Luserlib -letw $(LIBETW_LIBS) \
		-Wl,-rpath,'$$ORIGIN/../../userlib'

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

bench-host:
	@scripts/bench-host.sh

# The etw fuzzer and trinity in the VM; SEED, THREADS, HOST_SECONDS and
# TRINITY_SECONDS reach fuzz.sh as environment variables.
SECONDS ?= 60
fuzz:
	@scripts/fuzz.sh $(SECONDS)

# --- coverage, soak, KCSAN (Documentation/testing.rst) -----------------------
coverage:
	@scripts/coverage.sh

# Not a kselftest: built under build/, so run_vm_tests.sh never runs it.
build/soak/etw_soak: selftests/soak/etw_soak.c $(wildcard selftests/*.h) build/cc
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iselftests $(CFLAGS) $(WARN) -o $@ $< -lpthread

MINUTES ?= 10
soak:
	@scripts/soak.sh $(MINUTES)

kcsan:
	@scripts/kcsan.sh

# MUTANTS="N ..." limits the run to those lines of scripts/mutations.
mutate:
	@scripts/mutate.sh

mutate-check:
	@scripts/mutate.sh --check

# --- install --------------------------------------------------------------
install: lib ctl man
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/etw/linux $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANIFESTDIR)
	install -m 644 userlib/libetw.a userlib/libetw-wmain.a $(DESTDIR)$(LIBDIR)/
	install -m 755 userlib/libetw.so $(DESTDIR)$(LIBDIR)/libetw.so.$(VERSION)
	ln -sf libetw.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libetw.so
	install -m 644 userlib/include/*.h $(DESTDIR)$(INCLUDEDIR)/etw/
	install -m 644 uapi/linux/etw.h $(DESTDIR)$(INCLUDEDIR)/etw/linux/
	install -m 644 userlib/libetw.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 userlib/manifests/*.man $(DESTDIR)$(MANIFESTDIR)/
	install -m 755 ctl/etwctl $(DESTDIR)$(BINDIR)/
	install -m 644 build/man/etwctl.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 ctl/etwctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/etwctl

# The module's source as DKMS builds it (debian/rules and by hand: see
# README), with dkms.conf's version filled in.
DKMS_SRC = $(DESTDIR)/usr/src/etw-$(VERSION)
dkms-source:
	install -d $(DKMS_SRC)
	install -m 644 Kbuild VERSION $(DKMS_SRC)/
	find kmod uapi \( -name '*.[ch]' -o -name Kbuild \) -print | \
		while read -r f; do install -D -m 644 "$$f" "$(DKMS_SRC)/$$f" || exit 1; done
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf

# --- Debian packages (debian/, Documentation/testing.rst) ------------------
deb:
	@scripts/deb-test.sh --build-only

deb-test:
	@scripts/deb-test.sh

# The copies of VERSION that cannot read it: the changelog's entry and the
# man page's header.
version-check:
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || \
	      sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog); \
	v=$${v%-*}; [ "$$v" = '$(VERSION)' ] || \
	  { echo "version-check: debian/changelog has $$v, VERSION $(VERSION)" >&2; exit 1; }
	@grep -qx ':Version: $(VERSION)' Documentation/etwctl.rst || \
	  { echo "version-check: Documentation/etwctl.rst's :Version: is not $(VERSION)" >&2; exit 1; }

modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	find kmod \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.a' \) -delete
	rm -f Module.symvers modules.order kmod/Module.symvers kmod/modules.order
	rm -f userlib/*.o userlib/libetw.a userlib/libetw.so userlib/$(SONAME) userlib/libetw.pc \
		userlib/wmain/*.o userlib/libetw-wmain.a
	rm -f $(BT2_PLUGIN) bt2/tests/tl_etl_gen
	rm -f ctl/etwctl $(SELFTESTS) $(BENCHES) $(HOSTTESTS) $(EXAMPLES) selftests/wide_cxx.o \
		selftests/stack_symbols_lib.so \
		userlib/tests/*_bench
	rm -rf build
