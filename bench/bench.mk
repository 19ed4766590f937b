# make bench (docs/bench.md): the benchmarks of user/bench in fdkernel and in
# Linux under the same QEMU, then the tables of docs/bench.md, the result
# file docs/bench.tsv and the plots docs/bench-*.png.
#
#   make bench                    instruction counts (QEMU -icount shift=0)
#   make bench CLOCK=wall         TCG real time, with its spread, and host-native
#   make bench BENCH_ROWS="getpid fd_seq_*"   those rows only, docs untouched
#   make bench-check              fdkernel's rows against docs/bench.tsv (3%)
#
# Both build make rootfs's image too: the Debian rows run its programs.

CLOCK ?= icount
BENCH_ROWS ?=
BENCH_CPU ?=

LINUX_DIR := $(BUILD)/linux
LINUX_INITRAMFS := $(BUILD)/linux-initramfs.cpio.gz
BENCH_LINUX_INIT := $(BUILD)/user/bench/linux_init

# BENCH_ROWS reaches both guests as /etc/bench-rows (user/bench/bench.h);
# the file below changes only when BENCH_ROWS does, so the guest images are
# rebuilt exactly then.
BENCH_ROWS_FILE := $(BUILD)/bench-rows
$(shell mkdir -p $(BUILD); [ -f $(BENCH_ROWS_FILE) ] && \
	[ "$$(cat $(BENCH_ROWS_FILE))" = '$(BENCH_ROWS)' ] || printf '%s\n' '$(BENCH_ROWS)' > $(BENCH_ROWS_FILE))

# fdkernel's bench ISO: the usual initrd plus /etc/bench-rows.
INITRD_BENCH := $(BUILD)/initrd-bench.cpio
$(INITRD_BENCH): $(INITRD) $(BENCH_ROWS_FILE)
	@rm -rf $(BUILD)/initrd-bench && cp -r $(BUILD)/initrd $(BUILD)/initrd-bench
	cp $(BENCH_ROWS_FILE) $(BUILD)/initrd-bench/etc/bench-rows
	iso/pack-initrd $(BUILD)/initrd-bench > $@

ISO_BENCH := $(KBUILD)/fdkernel-bench.iso
$(ISO_BENCH): $(KERNEL) $(INITRD_BENCH) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,bench,bench quiet norandmaps,$(INITRD_BENCH))

# The Linux guest's initramfs: our /init, fdkernel's /bin/init (run as
# `init bench`), /bin/true for fork+execve, the benchmarks in /bench,
# /etc/bench-rows, and e2fsprogs' mke2fs with the libraries it loads
# (bench_ext2 makes its file system in the guest, as in fdkernel's).
$(LINUX_INITRAMFS): $(BENCH_LINUX_INIT) $(BUILD)/user/bin/init $(BUILD)/user/bin/true \
		$(USER_BENCH_PROGS) $(BENCH_ROWS_FILE) bench/bench.mk $(E2FS_FILES) $(DYN_SYSTEM_LIBS)
	@rm -rf $(BUILD)/linux-initramfs && mkdir -p $(BUILD)/linux-initramfs/bin \
		$(BUILD)/linux-initramfs/bench $(BUILD)/linux-initramfs/dev \
		$(BUILD)/linux-initramfs/etc $(BUILD)/linux-initramfs/proc \
		$(BUILD)/linux-initramfs/sys $(BUILD)/linux-initramfs/tmp
	cp $(BENCH_LINUX_INIT) $(BUILD)/linux-initramfs/init
	cp $(BUILD)/user/bin/init $(BUILD)/user/bin/true $(BUILD)/linux-initramfs/bin/
	cp $(USER_BENCH_PROGS) $(BUILD)/linux-initramfs/bench/
	find $(BUILD)/linux-initramfs -type f -exec strip --strip-debug {} +
	$(call install_e2fsprogs,$(BUILD)/linux-initramfs)
	$(call install_dyn_libs,$(BUILD)/linux-initramfs)
	cp $(BENCH_ROWS_FILE) $(BUILD)/linux-initramfs/etc/bench-rows
	cd $(BUILD)/linux-initramfs && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc --quiet --owner=0:0 | gzip -9 > $(abspath $@)

# bench/run takes the rows' subset as a flag: a subset run prints its table
# but leaves docs/ alone.
BENCH_RUN = BENCH_CPU='$(BENCH_CPU)' bench/run --build $(BUILD) \
	$(if $(strip $(BENCH_ROWS)),--subset)

.PHONY: bench bench-check
bench: deps
	@$(MAKE) --no-print-directory $(ISO_BENCH) $(LINUX_INITRAMFS) $(USER_BENCH_PROGS) \
		$(BUILD)/user/bin/true $(ROOTFS_IMG)
	@for clock in $(CLOCK); do $(BENCH_RUN) --clock $$clock || exit 1; done

bench-check: deps
	@$(MAKE) --no-print-directory $(ISO_BENCH) $(ROOTFS_IMG)
	$(BENCH_RUN) --check

# make bench-scale (docs/smp.md): issue 19's scaling row, user/bench/scale_fd
# alone, in fdkernel (smp=on) at -smp 1 and -smp 2 and in Linux beside it,
# wall clock under multi-threaded TCG.  Both guests get /bench/scale_fd only.
SCALE_PROG := $(BUILD)/user/bench/scale_fd
INITRD_SCALE := $(BUILD)/initrd-scale.cpio
$(INITRD_SCALE): $(INITRD) $(SCALE_PROG)
	@rm -rf $(BUILD)/initrd-scale && cp -r $(BUILD)/initrd $(BUILD)/initrd-scale
	rm -f $(BUILD)/initrd-scale/bench/* && cp $(SCALE_PROG) $(BUILD)/initrd-scale/bench/
	iso/pack-initrd $(BUILD)/initrd-scale > $@

ISO_SCALE := $(BUILD)/fdkernel-scale.iso
$(ISO_SCALE): $(KERNEL) $(INITRD_SCALE) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,scale,bench quiet smp=on,$(INITRD_SCALE))

LINUX_INITRAMFS_SCALE := $(BUILD)/linux-initramfs-scale.cpio.gz
$(LINUX_INITRAMFS_SCALE): $(LINUX_INITRAMFS) $(SCALE_PROG)
	@rm -rf $(BUILD)/linux-initramfs-scale && \
		cp -r $(BUILD)/linux-initramfs $(BUILD)/linux-initramfs-scale
	rm -f $(BUILD)/linux-initramfs-scale/bench/* $(BUILD)/linux-initramfs-scale/etc/bench-rows
	cp $(SCALE_PROG) $(BUILD)/linux-initramfs-scale/bench/
	cd $(BUILD)/linux-initramfs-scale && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc --quiet --owner=0:0 | gzip -9 > $(abspath $@)

.PHONY: bench-scale
bench-scale: deps
	@$(MAKE) --no-print-directory $(ISO_SCALE) $(LINUX_INITRAMFS_SCALE)
	BENCH_CPU='$(BENCH_CPU)' bench/scale --build $(BUILD)
