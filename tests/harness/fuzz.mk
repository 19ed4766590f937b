# `make fuzz-guest [FUZZ_SEED=N] [FUZZ_CALLS=N] [FUZZ_WORKERS=N]
# [FUZZ_CLASSES=a,b] [FUZZ_UNPRIV=1] [SMP=n]`: a long in-guest fuzz run
# (classes: docs/robustness.md); FUZZ_UNPRIV=1 (or `make fuzz-unpriv`): the
# workers drop to uid 1000 after their set-up and try escalations;
# SMP=n boots n CPUs (2 unless set, as make test; tasks run on all).
# The ISO boots `test init=/tests/fuzz`; the kernel passes init only "test",
# so the settings travel in /etc/fuzz.conf of a copy of the initrd.
# The log is build/serial-fuzz.log; docs/robustness.md has the figures.
FUZZ_SEED ?= 1
FUZZ_CALLS ?= 1000000
FUZZ_WORKERS ?= 8
FUZZ_CLASSES ?= all
FUZZ_UNPRIV ?=
FUZZ_TIMEOUT ?= 3600
ISO_FUZZ := $(KBUILD)/fdkernel-fuzz.iso
FUZZ_INITRD := $(BUILD)/fuzz/initrd.cpio
FUZZ_CONF := $(BUILD)/fuzz.conf

# Rewritten only when the values change, so the ISO is rebuilt exactly then.
FUZZ_SETTINGS := $(FUZZ_SEED) $(FUZZ_CALLS) $(FUZZ_WORKERS) $(FUZZ_CLASSES)$(if $(FUZZ_UNPRIV), unpriv)
$(shell mkdir -p $(BUILD); [ "$$(cat $(FUZZ_CONF) 2>/dev/null)" = "$(FUZZ_SETTINGS)" ] || \
	echo "$(FUZZ_SETTINGS)" > $(FUZZ_CONF))

$(FUZZ_INITRD): $(INITRD) $(FUZZ_CONF)
	@rm -rf $(BUILD)/fuzz && mkdir -p $(BUILD)/fuzz && cp -r $(BUILD)/initrd $(BUILD)/fuzz/initrd
	mkdir -p $(BUILD)/fuzz/initrd/etc && cp $(FUZZ_CONF) $(BUILD)/fuzz/initrd/etc/fuzz.conf
	iso/pack-initrd $(BUILD)/fuzz/initrd > $@

# make_iso copies $(INITRD): here the fuzz copy (private: not the prerequisites').
$(ISO_FUZZ): private INITRD := $(FUZZ_INITRD)
$(ISO_FUZZ): $(KERNEL) $(FUZZ_INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,fuzz,test quiet init=/tests/fuzz)

.PHONY: fuzz-guest fuzz-unpriv
fuzz-guest: deps $(ISO_FUZZ)
	QEMU_SMP=$(or $(SMP),2) tests/harness/qemu-run --timeout $(FUZZ_TIMEOUT) --log $(BUILD)/serial-fuzz.log $(ISO_FUZZ)

fuzz-unpriv:
	@$(MAKE) --no-print-directory fuzz-guest FUZZ_UNPRIV=1

# `make fuzz-ext2 [EXT2_FUZZ_SEED=N] [EXT2_FUZZ_IMAGES=N]`: the ext2 image
# fuzzer (tests/linux/ext2_fuzz.c, docs/ext2.md "Hostile images") as init,
# 10,000 mutated images by default in one boot, then the leak check; its
# settings travel in /etc/ext2-fuzz.conf of a copy of the initrd.  The
# log is build/serial-fuzz-ext2.log (counters on its "# ext2_fuzz:" line).
EXT2_FUZZ_SEED ?= 1
EXT2_FUZZ_IMAGES ?= 10000
ISO_FUZZ_EXT2 := $(KBUILD)/fdkernel-fuzz-ext2.iso
FUZZ_EXT2_INITRD := $(BUILD)/fuzz-ext2/initrd.cpio
FUZZ_EXT2_CONF := $(BUILD)/ext2-fuzz.conf
$(shell mkdir -p $(BUILD); [ "$$(cat $(FUZZ_EXT2_CONF) 2>/dev/null)" = "$(EXT2_FUZZ_SEED) $(EXT2_FUZZ_IMAGES)" ] || \
	echo "$(EXT2_FUZZ_SEED) $(EXT2_FUZZ_IMAGES)" > $(FUZZ_EXT2_CONF))

$(FUZZ_EXT2_INITRD): $(INITRD) $(FUZZ_EXT2_CONF)
	@rm -rf $(BUILD)/fuzz-ext2 && mkdir -p $(BUILD)/fuzz-ext2 && cp -r $(BUILD)/initrd $(BUILD)/fuzz-ext2/initrd
	cp $(FUZZ_EXT2_CONF) $(BUILD)/fuzz-ext2/initrd/etc/ext2-fuzz.conf
	iso/pack-initrd $(BUILD)/fuzz-ext2/initrd > $@

$(ISO_FUZZ_EXT2): private INITRD := $(FUZZ_EXT2_INITRD)
$(ISO_FUZZ_EXT2): $(KERNEL) $(FUZZ_EXT2_INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,fuzz-ext2,test quiet init=/linux/ext2_fuzz)

.PHONY: fuzz-ext2
fuzz-ext2: deps $(ISO_FUZZ_EXT2)
	QEMU_SMP=$(or $(SMP),2) tests/harness/qemu-run --timeout $(FUZZ_TIMEOUT) \
		--log $(BUILD)/serial-fuzz-ext2.log $(ISO_FUZZ_EXT2)
