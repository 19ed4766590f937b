# fdkernel: see README.md.  `make` builds build/fdkernel.iso; `make run` boots
# it; `make test` runs every test leg and ends with "N passed, N failed".
#
# Each part of the tree has its own fragment; a test leg is a target that
# writes "P passed, F failed[, S skipped]" to $(BUILD)/results/<leg>.

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

include mk/config.mk
include mk/deps.mk
include kernel/kernel.mk
include libc/libc.mk
include tests/linux/linux.mk
include user/user.mk
include iso/busybox.mk
include iso/iso.mk
include iso/disk.mk
include iso/rootfs.mk
include tests/unit/unit.mk
include tests/harness/tests.mk
include tests/harness/fuzz.mk
include bench/bench.mk

.PHONY: all run test clean
all: $(ISO)

# `make run UEFI=1` boots the same ISO through OVMF instead of SeaBIOS;
# `make run DISK=path.img` attaches a raw image as a virtio disk, /dev/vda
# (DISK="a.img b.img:ro": /dev/vda, then /dev/vdb read-only);
# `make run ROOT=/dev/vda1` boots with that device as the root (root=...
# rw on the command line, iso/iso.mk), DISK build/disk.img unless given;
# `make run ROOT=debian` boots Debian's userland (`make rootfs`,
# iso/rootfs.mk) into its bash.
DISK ?= $(if $(filter debian,$(ROOT)),$(ROOTFS_IMG),$(if $(ROOT),$(DISK_IMG)))
run: deps
	@$(MAKE) --no-print-directory all $(if $(filter debian,$(ROOT)),rootfs)
	QEMU_SMP=$${QEMU_SMP:-2} tests/harness/qemu-run --interactive $(if $(UEFI),--uefi) \
		$(foreach d,$(DISK),--disk $(d)) $(ISO)

# Legs run in order; a failing leg does not stop the others.
test: deps
	@rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results
	@for leg in $(TEST_LEGS); do \
		echo "== $$leg"; $(MAKE) --no-print-directory $$leg || true; \
	done; tests/harness/summary $(BUILD)/results $(TEST_RESULTS)

clean:
	rm -rf $(BUILD)
