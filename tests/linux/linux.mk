# Linux-ABI tests: each tests/linux/<name>.c is one static program linked
# against Debian's musl (musl-gcc, package musl-tools), built to
# $(BUILD)/linux/<name>.  They run natively in test-host and inside fdkernel
# from /linux, so every one compares fdkernel with Linux (docs/linux-abi.md).
# Only tap.h, testutil.h and proc_list.h of tests/include are used (plain C), and
# kernel/uapi for fdkernel's own flags and calls (through tests/linux/fdkernel_abi.h).

LINUX_CC := musl-gcc
LINUX_CFLAGS := -std=gnu11 -static -O2 -g -Wall -Wextra -Werror -pthread -Itests/include -Iuser/include -MMD -MP

LINUX_SRCS := $(wildcard tests/linux/*.c)
LINUX_PROGS := $(patsubst tests/linux/%.c,$(BUILD)/linux/%,$(LINUX_SRCS))

# Static PIE (ET_DYN) builds of a few of them, NAME_pie: musl's rcrt1.o
# relocates the program at start-up from the auxiliary vector.  Debian's
# musl-gcc specs know only -static (their -static-pie makes a dynamic
# program asking for /lib/ld-musl-x86_64.so.1), so the start files and the
# link flags of gcc's -static-pie are spelt out.
LINUX_PIE := hello errno_tls fork_exec mem_aslr
MUSL_LIB := /usr/lib/x86_64-linux-musl
LINUX_PIE_CFLAGS := $(filter-out -static,$(LINUX_CFLAGS)) -fPIE -nostartfiles \
	-Wl,-static,-pie,--no-dynamic-linker,-z,text
LINUX_PIE_START := $(MUSL_LIB)/rcrt1.o $(MUSL_LIB)/crti.o $(shell gcc -print-file-name=crtbeginS.o)
LINUX_PIE_END := $(shell gcc -print-file-name=crtendS.o) $(MUSL_LIB)/crtn.o
LINUX_PROGS += $(patsubst %,$(BUILD)/linux/%_pie,$(LINUX_PIE))

# glibc static programs (Debian's libc6-dev libc.a, gcc -static): the
# sources named in LINUX_GLIBC built a second time as NAME_glibc (stdio,
# files, fork/exec/wait, pipes, signals, posix_spawn, threads), and
# tests/linux/glibc/*.c, what only glibc does (its start-up: TLS, rseq,
# IRELATIVE, getrandom), also as a static PIE, NAME_pie.  A selection: each
# is 0.9 MB of glibc.  errno_tls (musl's thread block) and the fd-flag tests
# (fdkernel_abi.h) stay musl's.
GLIBC_CC := gcc
LINUX_GLIBC := hello files fork_exec pipes signals spawn pthread_join pthread_cond inet6 overcommit pthread_pi \
	vdso sock_ifreq
GLIBC_SRCS := $(wildcard tests/linux/glibc/*.c)
GLIBC_PROGS := $(patsubst %,$(BUILD)/linux/%_glibc,$(LINUX_GLIBC)) \
	$(patsubst tests/linux/glibc/%.c,$(BUILD)/linux/%,$(GLIBC_SRCS)) \
	$(patsubst tests/linux/glibc/%.c,$(BUILD)/linux/%_pie,$(GLIBC_SRCS))
LINUX_PROGS += $(GLIBC_PROGS)

# SQLite programs (tests/linux/sqlite/*.c): Debian's libsqlite3.a (package
# libsqlite3-dev, `make deps`) linked statically with glibc, as NAME.  The
# library's unused dlopen() makes ld warn that a static program would need
# glibc's shared objects for it: nothing here loads extensions, so ld's
# warnings are off for this link only.
SQLITE_SRCS := $(wildcard tests/linux/sqlite/*.c)
SQLITE_PROGS := $(patsubst tests/linux/sqlite/%.c,$(BUILD)/linux/%,$(SQLITE_SRCS))
LINUX_PROGS += $(SQLITE_PROGS)

# Dynamically linked programs (tests/linux/dyn/*.c), each built twice:
# NAME_musl against musl's libc.so (interpreter /lib/ld-musl-x86_64.so.1)
# and NAME_glibc against glibc's (/lib64/ld-linux-x86-64.so.2).  Their
# test library and the helpers that need it at start-up (dyn_needed_*:
# found only through LD_LIBRARY_PATH) live in dynlib/, where runtests
# does not look; the initrd gets both libcs (DYN_SYSTEM_LIBS, iso/iso.mk).
DYN_SRCS := $(wildcard tests/linux/dyn/dyn_*.c)
DYN_PROGS := $(patsubst tests/linux/dyn/%.c,$(BUILD)/linux/%_musl,$(DYN_SRCS)) \
	$(patsubst tests/linux/dyn/%.c,$(BUILD)/linux/%_glibc,$(DYN_SRCS))
DYNLIB := $(BUILD)/linux/dynlib
DYNLIB_FILES := $(DYNLIB)/libdyntest.so $(DYNLIB)/dyn_needed_musl $(DYNLIB)/dyn_needed_glibc
DYN_CFLAGS := $(filter-out -static,$(LINUX_CFLAGS))
LINUX_PROGS += $(DYN_PROGS)

$(BUILD)/linux/dyn_%_musl: tests/linux/dyn/dyn_%.c | $(DYNLIB_FILES)
	@mkdir -p $(@D)
	@echo "MUSLDYN  $<"
	@$(LINUX_CC) $(DYN_CFLAGS) -MF $@.d -MT $@ -o $@ $<

$(BUILD)/linux/dyn_%_glibc: tests/linux/dyn/dyn_%.c | $(DYNLIB_FILES)
	@mkdir -p $(@D)
	@echo "GLIBCDYN $<"
	@$(GLIBC_CC) $(DYN_CFLAGS) -MF $@.d -MT $@ -o $@ $< -ldl

# The library uses no libc: one build serves both.
$(DYNLIB)/libdyntest.so: tests/linux/dyn/lib/dyntest.c
	@mkdir -p $(@D)
	@echo "SHLIB    $<"
	@gcc -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -shared -nostdlib -o $@ $<

$(DYNLIB)/dyn_needed_musl: tests/linux/dyn/lib/needed.c $(DYNLIB)/libdyntest.so
	@echo "MUSLDYN  $<"
	@$(LINUX_CC) $(DYN_CFLAGS) -MF $@.d -MT $@ -o $@ $< -L$(DYNLIB) -ldyntest

$(DYNLIB)/dyn_needed_glibc: tests/linux/dyn/lib/needed.c $(DYNLIB)/libdyntest.so
	@echo "GLIBCDYN $<"
	@$(GLIBC_CC) $(DYN_CFLAGS) -MF $@.d -MT $@ -o $@ $< -L$(DYNLIB) -ldyntest

# liburing programs (tests/linux/liburing/*.c): Debian's liburing.a
# (package liburing-dev, fetched with `apt-get download` and unpacked with
# `dpkg -x` into $(BUILD)/liburing: never installed) linked statically with
# musl, as NAME.  liburing 2.3 makes its system calls itself and needs only
# calloc and free from the libc; its header wants the kernel's uapi headers
# (linux-libc-dev), which musl's include path lacks: $(BUILD)/kheaders
# links exactly those (linux/, asm/, asm-generic/), nothing of glibc's.
LIBURING_DIR := $(BUILD)/liburing
LIBURING_A := $(LIBURING_DIR)/usr/lib/x86_64-linux-gnu/liburing.a
KHEADERS := $(BUILD)/kheaders
LIBURING_SRCS := $(wildcard tests/linux/liburing/*.c)
LIBURING_PROGS := $(patsubst tests/linux/liburing/%.c,$(BUILD)/linux/%,$(LIBURING_SRCS))
LINUX_PROGS += $(LIBURING_PROGS)

$(LIBURING_A):
	@mkdir -p $(LIBURING_DIR)
	@echo "APT      liburing-dev"
	@cd $(LIBURING_DIR) && rm -f liburing-dev_*.deb && apt-get download -q liburing-dev >/dev/null 2>&1 && \
		dpkg -x liburing-dev_*.deb . && touch $(abspath $@)

$(KHEADERS)/linux:
	@mkdir -p $(KHEADERS)
	@ln -sfn /usr/include/linux $(KHEADERS)/linux
	@ln -sfn /usr/include/x86_64-linux-gnu/asm $(KHEADERS)/asm
	@ln -sfn /usr/include/asm-generic $(KHEADERS)/asm-generic

$(BUILD)/linux/%: tests/linux/liburing/%.c $(LIBURING_A) | $(KHEADERS)/linux
	@mkdir -p $(@D)
	@echo "URINGCC  $<"
	@$(LINUX_CC) $(LINUX_CFLAGS) -I$(LIBURING_DIR)/usr/include -idirafter $(KHEADERS) \
		-MF $@.d -MT $@ -o $@ $< $(LIBURING_A)

# Programs known to fail inside fdkernel today (docs/linux-abi.md says why).
# The ISO puts them in /linux/pending, where runtests does not look but a
# developer can run them by hand; the host runs them all.  Today: none.
LINUX_GUEST_SKIP :=

# The list as last built, so that the initrd follows a change made on the
# command line: `make test-some T=pthread_join LINUX_GUEST_SKIP=` runs a
# pending program in the guest.
LINUX_SKIP_FILE := $(BUILD)/linux-guest-skip
$(shell mkdir -p $(BUILD); [ -f $(LINUX_SKIP_FILE) ] && \
	[ "$$(cat $(LINUX_SKIP_FILE))" = "$(strip $(LINUX_GUEST_SKIP))" ] || \
	echo "$(strip $(LINUX_GUEST_SKIP))" > $(LINUX_SKIP_FILE))

LINUX_GUEST_PROGS := $(filter-out $(addprefix $(BUILD)/linux/,$(LINUX_GUEST_SKIP)),$(LINUX_PROGS))
LINUX_PENDING_PROGS := $(filter-out $(LINUX_GUEST_PROGS),$(LINUX_PROGS))

$(BUILD)/linux/%: tests/linux/%.c
	@mkdir -p $(@D)
	@echo "MUSLCC   $<"
	@$(LINUX_CC) $(LINUX_CFLAGS) -MF $@.d -MT $@ -o $@ $<

$(BUILD)/linux/%_pie: tests/linux/%.c
	@mkdir -p $(@D)
	@echo "MUSLPIE  $<"
	@$(LINUX_CC) $(LINUX_PIE_CFLAGS) -MF $@.d -MT $@ -o $@ $(LINUX_PIE_START) $< $(LINUX_PIE_END)

$(BUILD)/linux/%_glibc: tests/linux/%.c
	@mkdir -p $(@D)
	@echo "GLIBCCC  $<"
	@$(GLIBC_CC) $(LINUX_CFLAGS) -MF $@.d -MT $@ -o $@ $<

$(BUILD)/linux/sqlite_%: tests/linux/sqlite/sqlite_%.c
	@mkdir -p $(@D)
	@echo "SQLITECC $<"
	@$(GLIBC_CC) $(LINUX_CFLAGS) -MF $@.d -MT $@ -o $@ $< -lsqlite3 -lm -Wl,--no-warnings

$(BUILD)/linux/glibc_%_pie: tests/linux/glibc/glibc_%.c
	@mkdir -p $(@D)
	@echo "GLIBCPIE $<"
	@$(GLIBC_CC) $(filter-out -static,$(LINUX_CFLAGS)) -static-pie -fPIE -MF $@.d -MT $@ -o $@ $<

$(BUILD)/linux/glibc_%: tests/linux/glibc/glibc_%.c
	@mkdir -p $(@D)
	@echo "GLIBCCC  $<"
	@$(GLIBC_CC) $(LINUX_CFLAGS) -MF $@.d -MT $@ -o $@ $<

.PHONY: linux
linux: $(LINUX_PROGS)

-include $(LINUX_PROGS:=.d) $(DYNLIB)/dyn_needed_musl.d $(DYNLIB)/dyn_needed_glibc.d

# ext2_ro's images (tests/harness/ext2-images), in ext2/ beside it: built
# with it, and copied into the initrd's /linux/ext2 (iso/iso.mk).
EXT2_IMAGES := $(BUILD)/linux/ext2/good-1k.img
$(EXT2_IMAGES): tests/harness/ext2-images
	tests/harness/ext2-images $(@D)
$(BUILD)/linux/ext2_ro $(BUILD)/linux/ext2_pagecache $(BUILD)/linux/ext2_rw \
	$(BUILD)/linux/ext2_writeback $(BUILD)/linux/ext2_flusher: | $(EXT2_IMAGES)
