# `make disk`: build/disk.img, a disk to boot from (root=/dev/vda1) or to
# mount: the initrd's userland on ext2 in an MBR partition, with the
# contents of DISK_DIR (if named) copied over its root, so programs of
# one's own go in without rebuilding the kernel or the ISO
# (iso/make-disk; README.md, "Disks").  `make run ROOT=/dev/vda1` boots
# with it as the root.
DISK_IMG := $(BUILD)/disk.img
DISK_DIR ?=
DISK_SIZE ?= 256M
.PHONY: disk
disk: $(INITRD)
	iso/make-disk $(BUILD)/initrd "$(DISK_DIR)" $(DISK_SIZE) $(DISK_IMG)
