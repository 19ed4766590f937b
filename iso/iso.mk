# Bootable ISOs.  One kernel and initrd, several GRUB command lines:
#   fdkernel.iso       interactive (make run)
#   fdkernel-test.iso  `test`: self-tests and the in-guest suite, then exit
#   fdkernel-bench.iso `bench`: init runs /bench, then exit (make bench)
#   fdkernel-crash.iso `crashtest`: a deliberate kernel fault (tests/harness/boot-checks)
ISO := $(KBUILD)/fdkernel.iso
ISO_TEST := $(KBUILD)/fdkernel-test.iso
INITRD := $(BUILD)/initrd.cpio
# grub-mkrescue makes a hybrid ISO, one GRUB per firmware it finds installed
# (grub-pc-bin: BIOS; grub-efi-amd64-bin: UEFI).  The same module list is
# copied for each, so it names only modules both have (the BIOS El Torito
# image gets biosdisk by itself).
GRUB_MODULES := multiboot2 normal iso9660 part_msdos serial terminal

# install_dyn_libs ROOT: what the dynamically linked tests need, where
# Debian has it: musl's libc.so (its own ld.so) and glibc's ld.so and
# libc.so.6 (2.3 MB together; not all of /lib), no /etc/ld.so.cache.
DYN_SYSTEM_LIBS := /usr/lib/x86_64-linux-musl/libc.so /lib/x86_64-linux-gnu/libc.so.6 \
	/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
define install_dyn_libs
	mkdir -p $(1)/lib/x86_64-linux-musl $(1)/lib/x86_64-linux-gnu $(1)/lib64
	cp /usr/lib/x86_64-linux-musl/libc.so $(1)/lib/x86_64-linux-musl/
	ln -s x86_64-linux-musl/libc.so $(1)/lib/ld-musl-x86_64.so.1
	cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		$(1)/lib/x86_64-linux-gnu/
	ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 $(1)/lib64/ld-linux-x86-64.so.2
endef

# The ramfs archive (newc cpio) unpacked at / by the kernel: the static
# files of iso/rootfs, user/bin programs in /bin, tests/newlib in /tests,
# user/bench in /bench, the musl programs of tests/linux in /linux (those of
# LINUX_GUEST_SKIP in /linux/pending), two symbolic links, an empty /tmp and
# /dev (the kernel adds the device nodes), the homes /root and /home/user,
# the dynamic tests' libraries in /linux/dynlib, the libcs in /lib, and
# e2fsprogs' mke2fs (before busybox, whose applet would take its name).
# iso/pack-initrd packs it: root's, but for the owners and modes of iso/owners.
ROOTFS_FILES := $(shell find iso/rootfs -type f)
$(INITRD): $(ROOTFS_FILES) $(USER_BIN_PROGS) $(USER_TEST_PROGS) $(USER_BENCH_PROGS) \
		$(LINUX_PROGS) $(EXT2_IMAGES) $(DYNLIB_FILES) $(DYN_SYSTEM_LIBS) iso/iso.mk $(LINUX_SKIP_FILE) \
		$(BUSYBOX_FILES) $(BASH_STATIC) $(E2FS_FILES) iso/owners iso/pack-initrd
	@rm -rf $(BUILD)/initrd && mkdir -p $(BUILD)/initrd/bin $(BUILD)/initrd/tests \
		$(BUILD)/initrd/bench $(BUILD)/initrd/linux/pending $(BUILD)/initrd/tmp \
		$(BUILD)/initrd/dev $(BUILD)/initrd/root $(BUILD)/initrd/home/user
	cp -r iso/rootfs/. $(BUILD)/initrd/
	$(if $(USER_BIN_PROGS),cp $(USER_BIN_PROGS) $(BUILD)/initrd/bin/)
	$(if $(USER_TEST_PROGS),cp $(USER_TEST_PROGS) $(BUILD)/initrd/tests/)
	$(if $(USER_BENCH_PROGS),cp $(USER_BENCH_PROGS) $(BUILD)/initrd/bench/)
	$(if $(LINUX_GUEST_PROGS),cp $(LINUX_GUEST_PROGS) $(BUILD)/initrd/linux/)
	$(if $(LINUX_PENDING_PROGS),cp $(LINUX_PENDING_PROGS) $(BUILD)/initrd/linux/pending/)
	@# Symbolic links the cpio loader recreates (test vfs_initrd).
	ln -s motd $(BUILD)/initrd/etc/motd.link
	ln -s /bin/sh $(BUILD)/initrd/bin/sh-link
	$(call install_e2fsprogs,$(BUILD)/initrd)
	$(call install_busybox,$(BUILD)/initrd)
	$(call install_bash_static,$(BUILD)/initrd)
	@# Debug info stays in build/user and build/linux (for gdb); the guest
	@# gets lean copies.
	find $(BUILD)/initrd/bin $(BUILD)/initrd/tests $(BUILD)/initrd/bench \
		$(BUILD)/initrd/linux -type f -exec strip --strip-debug {} +
	cp -r $(BUILD)/linux/ext2 $(BUILD)/initrd/linux/ext2
	mkdir -p $(BUILD)/initrd/linux/dynlib && cp $(DYNLIB_FILES) $(BUILD)/initrd/linux/dynlib/
	$(call install_dyn_libs,$(BUILD)/initrd)
	iso/pack-initrd $(BUILD)/initrd > $@

# The boot-path ISOs (self-tests, crash, strace, gdb: no user suite, no
# /linux program run) carry the initrd without /linux.  The 64 MiB boot of
# tests/harness/boot-checks has little room: the initrd module stays in memory after
# unpacking and the ramfs may take only half of what is left beside it
# (ramfs_size), so the full initrd (with the glibc programs, 0.9 MB each,
# and bash-static, 2.3 MB) leaves the ramfs self-tests ENOSPC.
INITRD_BOOT := $(BUILD)/initrd-boot.cpio
$(INITRD_BOOT): $(INITRD)
	iso/pack-initrd $(BUILD)/initrd ! -path './linux/*' ! -path ./bin/bash-static \
		! -path ./sbin/mke2fs ! -path ./sbin/mkfs.ext2 \
		! -path './lib/*' ! -path './lib64/*' > $@

# make_iso ISO,FLAVOUR,CMDLINE[,INITRD]: the initrd is $(INITRD) unless given.
define make_iso
	@rm -rf $(KBUILD)/iso-$(2) && mkdir -p $(KBUILD)/iso-$(2)/boot/grub
	cp $(KERNEL) $(KBUILD)/iso-$(2)/boot/
	cp $(or $(4),$(INITRD)) $(KBUILD)/iso-$(2)/boot/initrd.cpio
	sed 's|@CMDLINE@|$(3)|' iso/boot/grub/grub.cfg.in > $(KBUILD)/iso-$(2)/boot/grub/grub.cfg
	grub-mkrescue --install-modules="$(GRUB_MODULES)" --locales= --fonts= --themes= \
		-o $(1) $(KBUILD)/iso-$(2) 2>$(KBUILD)/grub-mkrescue-$(2).log || \
		{ cat $(KBUILD)/grub-mkrescue-$(2).log; exit 1; }
endef

# `make run CMDLINE="profile"` boots with extra kernel words; the file below
# changes only when they do, so the ISO is rebuilt exactly then.
# ROOT=/dev/vda1 adds "root=/dev/vda1 rw" (the Makefile's run), ROOT=debian
# the Debian root's words (iso/rootfs.mk).
CMDLINE ?=
RUN_CMDLINE := $(strip $(CMDLINE) $(if $(filter debian,$(ROOT)),root=/dev/vda1 rw \
	init=/sbin/fdkernel-init,$(if $(ROOT),root=$(ROOT) rw)))
RUN_CMDLINE_FILE := $(BUILD)/run-cmdline
$(shell mkdir -p $(BUILD); [ -f $(RUN_CMDLINE_FILE) ] && \
	[ "$$(cat $(RUN_CMDLINE_FILE))" = "$(RUN_CMDLINE)" ] || echo "$(RUN_CMDLINE)" > $(RUN_CMDLINE_FILE))

$(ISO): $(KERNEL) $(INITRD) iso/boot/grub/grub.cfg.in $(RUN_CMDLINE_FILE)
	$(call make_iso,$@,run,$(RUN_CMDLINE))

$(ISO_TEST): $(KERNEL) $(INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,test,test quiet enosys=log)

# The LOCKDEP=1 kernel misusing locks on purpose (tests/harness/lockdep-checks):
# built with `make LOCKDEP=1`, like its test ISO.
ISO_LOCKDEP_CYCLE := $(KBUILD)/fdkernel-lockdep-cycle.iso
$(ISO_LOCKDEP_CYCLE): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,lockdep-cycle,test quiet lockdeptest=cycle,$(INITRD_BOOT))
ISO_LOCKDEP_SLEEP := $(KBUILD)/fdkernel-lockdep-sleep.iso
$(ISO_LOCKDEP_SLEEP): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,lockdep-sleep,test quiet lockdeptest=sleep,$(INITRD_BOOT))

# The self-test boot with smp=off: tasks on CPU 0 only, the other CPUs
# idle (tests/harness/boot-checks boots it with -smp 2).
ISO_SMP_OFF := $(KBUILD)/fdkernel-smp-off.iso
$(ISO_SMP_OFF): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,smp-off,test quiet init=/bin/true smp=off,$(INITRD_BOOT))

# The disk test alone as init, with devices interrupting through their
# INTx lines and the I/O APIC instead of MSI-X (tests/harness/boot-checks
# attaches the disks).
ISO_NOMSI := $(KBUILD)/fdkernel-nomsi.iso
$(ISO_NOMSI): $(KERNEL) $(INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,nomsi,test quiet pci=nomsi init=/linux/blk_virtio)

# The crash leg (tests/harness/crash-check): init is /linux/ext2_crash,
# which writes the disk until QEMU is killed.
ISO_CRASHDISK := $(KBUILD)/fdkernel-crashdisk.iso
$(ISO_CRASHDISK): $(KERNEL) $(INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,crashdisk,quiet init=/linux/ext2_crash)

# Root on a disk (tests/harness/boot-checks): init is the disk's
# /sbin/rootcheck (tests/harness/rootdisk) with root=/dev/vda1; a missing
# root device and one that holds no file system panic, naming it.
ISO_ROOTDISK := $(KBUILD)/fdkernel-rootdisk.iso
$(ISO_ROOTDISK): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,rootdisk,test quiet root=/dev/vda1 rw init=/sbin/rootcheck,$(INITRD_BOOT))
ISO_NOROOT := $(KBUILD)/fdkernel-noroot.iso
$(ISO_NOROOT): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,noroot,test quiet root=/dev/vdz1,$(INITRD_BOOT))
ISO_BADROOT := $(KBUILD)/fdkernel-badroot.iso
$(ISO_BADROOT): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,badroot,test quiet root=/dev/vdb rootfstype=ext2,$(INITRD_BOOT))
DISK_ROOTCHECK := $(BUILD)/disk-rootcheck.img

# Boot checks (tests/harness/boot-checks): `crashtest` faults on purpose so the
# panic report can be read; the self-test flavour runs the kernel's tests
# and /bin/true as init (no user suite), for odd memory sizes and UEFI; the
# strace flavour traces one test program.
ISO_CRASH := $(KBUILD)/fdkernel-crash.iso
$(ISO_CRASH): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,crash,test crashtest,$(INITRD_BOOT))

# ramfs_size=75%: the whole initrd (over 20 MiB) must fit the ramfs of the
# small-memory boot check (tests/harness/boot-checks), where half of memory may not hold it.
ISO_SELFTEST := $(KBUILD)/fdkernel-selftest.iso
$(ISO_SELFTEST): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,selftest,test quiet init=/bin/true strace=nosuchprog ramfs_size=75%,$(INITRD_BOOT))

# The syscall trace of one test program, run as init (a bad target first).
ISO_STRACE := $(KBUILD)/fdkernel-strace.iso
$(ISO_STRACE): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,strace,test quiet strace=bad/name strace=strace_calls init=/tests/strace_calls,$(INITRD_BOOT))

# test-gdb stops in the project's shell: the console shell is busybox's ash
# now, so this ISO starts /bin/sh as init (tests/harness/gdb-check).
ISO_GDB := $(KBUILD)/fdkernel-gdb.iso
$(ISO_GDB): $(KERNEL) $(INITRD_BOOT) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,gdb,init=/bin/sh,$(INITRD_BOOT))

# tests/harness/gdb-check's core leg: init is /etc/core-demo, which makes
# /linux/coredump dump core and prints the core on the console.
ISO_CORE := $(KBUILD)/fdkernel-core.iso
$(ISO_CORE): $(KERNEL) $(INITRD) iso/boot/grub/grub.cfg.in
	$(call make_iso,$@,core,test quiet init=/etc/core-demo)

# fdkernel-bench.iso (its own initrd, for BENCH_ROWS): see bench/bench.mk.

# The guest suite's disks (tests/linux/blk_virtio.c): /dev/vda, a 64 MiB
# scratch disk of zeroes made anew before each boot, whose contents the
# host checks after QEMU exits (test-disk); /dev/vdb, a read-only 1 MiB
# disk of 16-byte numbered records; /dev/vdc, the same records through
# QEMU's error injector, whose sector 64 cannot be read (disk-faulty.cfg).
# /dev/vdd, ext2 (a copy of ext2-images' good-1k.img, made anew too)
# behind the error injector: a block of a file cannot be read, the last
# KiB cannot be written (tests/harness/ext2-faulty, tests/linux/ext2_ioerr.c).
# The scratch disk holds a fresh 16 MiB ext2 at 32 MiB too (label
# fdk-ext2-rw, past blk_virtio's regions) that tests/linux/ext2_rw.c
# writes and the host checks after (e2fsck -fn, debugfs).
DISK_SCRATCH := $(BUILD)/disk-scratch.img
DISK_RO := $(BUILD)/disk-ro.img
DISK_EXT2_FAULTY := $(BUILD)/disk-ext2-faulty.img
TEST_DISKS := --disk $(DISK_SCRATCH) --disk $(DISK_RO):ro \
	--disk blkdebug:tests/harness/disk-faulty.cfg:$(DISK_RO):ro \
	--disk blkdebug:$(DISK_EXT2_FAULTY).cfg:$(DISK_EXT2_FAULTY)
$(DISK_RO):
	@mkdir -p $(@D)
	seq -f 'ro-block %06g' 0 65535 > $@
scratch_disk = rm -f $(DISK_SCRATCH) && truncate -s 64M $(DISK_SCRATCH) && \
	mke2fs -q -F -t ext2 -L fdk-ext2-rw -E offset=33554432 $(DISK_SCRATCH) 16M >/dev/null && \
	tests/harness/ext2-faulty $(EXT2_IMAGES) $(DISK_EXT2_FAULTY)
disk_check = tests/harness/disk-check $(BUILD)/linux/blk_virtio $(DISK_SCRATCH) \
	$(BUILD)/linux/ext2_rw $(DISK_SCRATCH)
# test-some checks the disks of the tests it ran.
disk_check_some = $(if $(filter blk_virtio,$(T)),$(BUILD)/linux/blk_virtio $(DISK_SCRATCH)) \
	$(if $(filter ext2_rw,$(T)),$(BUILD)/linux/ext2_rw $(DISK_SCRATCH))

# `make test-some T="sig_regs sock_scm"`: the in-guest suite with only the
# named test programs in /tests and /linux (a development aid; `make test`
# runs all).  TRACE=NAME adds the kernel word strace=NAME; SMP=N boots N
# CPUs (2 unless set, as test-guest); KARGS="pci=nomsi" adds kernel words.
T ?=
INITRD_SOME := $(BUILD)/initrd-some.cpio
ISO_SOME := $(BUILD)/fdkernel-some.iso
.PHONY: test-some
test-some: $(KERNEL) $(INITRD) $(DISK_RO)
	@[ -n "$(T)" ] || { echo 'usage: make test-some T="test names"'; exit 2; }
	@rm -rf $(BUILD)/initrd-some && cp -r $(BUILD)/initrd $(BUILD)/initrd-some
	@find $(BUILD)/initrd-some/tests $(BUILD)/initrd-some/linux -maxdepth 1 -type f \
		$(foreach t,$(T),! -name $(t)) -delete
	@iso/pack-initrd $(BUILD)/initrd-some > $(INITRD_SOME)
	@rm -rf $(BUILD)/iso-some && mkdir -p $(BUILD)/iso-some/boot/grub
	@cp $(KERNEL) $(BUILD)/iso-some/boot/ && cp $(INITRD_SOME) $(BUILD)/iso-some/boot/initrd.cpio
	@sed 's|@CMDLINE@|test quiet enosys=log$(if $(TRACE), strace=$(TRACE))$(if $(KARGS), $(KARGS))|' \
		iso/boot/grub/grub.cfg.in > $(BUILD)/iso-some/boot/grub/grub.cfg
	@grub-mkrescue --install-modules="$(GRUB_MODULES)" --locales= --fonts= --themes= \
		-o $(ISO_SOME) $(BUILD)/iso-some 2>/dev/null
	@$(scratch_disk)
	@QEMU_SMP=$(or $(SMP),2) tests/harness/qemu-run --timeout 600 --log $(BUILD)/serial-some.log \
		$(TEST_DISKS) $(ISO_SOME); status=$$?; \
	if [ -n "$(disk_check_some)" ]; then tests/harness/disk-check $(disk_check_some) | \
		sed -n '/^disk-check: .*not ok/p;$$p'; fi; \
	exit $$status
