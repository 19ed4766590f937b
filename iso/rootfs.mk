# `make rootfs`: build/rootfs.img, a disk (MBR, ext2 on /dev/vda1) holding
# Debian 12's own userland, unpacked from the packages below and what they
# depend on (iso/make-rootfs: apt-get download into build/rootfs/debs, a
# cache, and dpkg -x; nothing is installed on the host), with the
# project's test programs under /opt/fdkernel.  `make run ROOT=debian`
# boots it into Debian's bash; test-debian compares Debian's programs in
# the guest with the same tree on the host.  docs/debian.md.
ROOTFS_IMG := $(BUILD)/rootfs.img
ROOTFS_DIR := $(BUILD)/rootfs
ROOTFS_SIZE ?= 640M
DEBIAN_PACKAGES := libc6 bash coreutils util-linux mount grep sed mawk findutils diffutils \
	tar gzip xz-utils procps python3-minimal libpython3-stdlib python3 perl-base sqlite3 \
	busybox strace hostname usr-is-merged
ROOTFS_INPUTS := iso/make-rootfs iso/make-disk iso/rootfs.mk iso/owners \
	$(shell find iso/debian tests/debian user/demo -type f) iso/rootfs/etc/passwd iso/rootfs/etc/group \
	iso/rootfs/etc/shadow iso/rootfs/etc/hosts

.PHONY: rootfs
rootfs: $(ROOTFS_IMG)
$(ROOTFS_IMG): $(ROOTFS_INPUTS) $(INITRD)
	iso/make-rootfs $(ROOTFS_DIR) $(BUILD)/initrd $(DEBIAN_PACKAGES)
	iso/make-disk $(ROOTFS_DIR)/tree "" $(ROOTFS_SIZE) $@

# The Debian root's boots: interactive (make run ROOT=debian) and the
# test leg's, whose init runs tests/debian/check and ends QEMU.
DEBIAN_CMDLINE := root=/dev/vda1 rw init=/sbin/fdkernel-init
ISO_DEBIAN_TEST := $(KBUILD)/fdkernel-debian-test.iso
$(ISO_DEBIAN_TEST): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,debian-test,test quiet $(DEBIAN_CMDLINE),$(INITRD_BOOT))

# test-debian: the check on the host (the image's tree, chrooted) and in
# fdkernel (a scratch copy of the image, one boot), section by section.
.PHONY: test-debian
test-debian: $(ROOTFS_IMG) $(ISO_DEBIAN_TEST)
	@mkdir -p $(RESULTS)
	@tests/harness/debian $(ISO_DEBIAN_TEST) $(ROOTFS_IMG) $(ROOTFS_DIR) > $(BUILD)/debian-check.log; \
	status=$$?; cat $(BUILD)/debian-check.log; tail -n 1 $(BUILD)/debian-check.log > $(RESULTS)/$@; \
	exit $$status
