# make bench (docs/bench.md): the benchmarks of user/bench in fdkernel and in
# Linux under the same QEMU, then one table, docs/bench.md and docs/bench.png.

LINUX_DIR := $(BUILD)/linux
LINUX_INITRAMFS := $(BUILD)/linux-initramfs.cpio.gz
BENCH_LINUX_INIT := $(BUILD)/user/bench/linux_init

# The Linux guest's initramfs: our /init, fdkernel's /bin/init (run as
# `init bench`), /bin/true for fork+execve, the benchmarks in /bench.
$(LINUX_INITRAMFS): $(BENCH_LINUX_INIT) $(BUILD)/user/bin/init $(BUILD)/user/bin/true \
		$(USER_BENCH_PROGS) bench/bench.mk
	@rm -rf $(BUILD)/linux-initramfs && mkdir -p $(BUILD)/linux-initramfs/bin \
		$(BUILD)/linux-initramfs/bench $(BUILD)/linux-initramfs/dev \
		$(BUILD)/linux-initramfs/proc $(BUILD)/linux-initramfs/sys $(BUILD)/linux-initramfs/tmp
	cp $(BENCH_LINUX_INIT) $(BUILD)/linux-initramfs/init
	cp $(BUILD)/user/bin/init $(BUILD)/user/bin/true $(BUILD)/linux-initramfs/bin/
	cp $(USER_BENCH_PROGS) $(BUILD)/linux-initramfs/bench/
	find $(BUILD)/linux-initramfs -type f -exec strip --strip-debug {} +
	cd $(BUILD)/linux-initramfs && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc --quiet --owner=0:0 | gzip -9 > $(abspath $@)

.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory $(ISO_BENCH) $(LINUX_INITRAMFS) $(USER_BENCH_PROGS) \
		$(BUILD)/user/bin/true
	bench/run --build $(BUILD)
