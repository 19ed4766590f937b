# Debian's busybox-static (a static glibc binary, installed by make deps) on
# the ISO: /bin/busybox, one symbolic link to it per applet at the place
# `busybox --list-full` names (bin/, sbin/, usr/bin/, usr/sbin/), except
# where a project program already stands (/bin/sh, /bin/ls, ...: those stay
# the project's own, see docs/userland.md), and the compatibility script
# with the output the same binary gives on the host (test compat_busybox).
BUSYBOX := /bin/busybox
COMPAT_DIR := $(BUILD)/compat
BUSYBOX_FILES := $(BUSYBOX) $(COMPAT_DIR)/busybox.expected tests/compat/busybox.sh

# The expected output: the script run by the host's busybox in a scratch
# directory (the guest test runs it the same way, in /tmp); the script is
# copied beside it for the host run of the test (make test-host).
$(COMPAT_DIR)/busybox.expected: tests/compat/busybox.sh $(BUSYBOX)
	@mkdir -p $(@D) && cp $< $(@D)/busybox.sh
	@tmp=$$(mktemp -d) && cd $$tmp && \
		env -i PATH=/usr/bin:/bin HOME=/ $(BUSYBOX) sh $(abspath $<) > $(abspath $@).tmp 2>&1; \
		status=$$?; cd / && rm -rf $$tmp; echo "exit $$status" >> $(abspath $@).tmp
	@mv $@.tmp $@

# install_busybox ROOT: the binary, its applet links, the compat files.
define install_busybox
	cp $(BUSYBOX) $(1)/bin/busybox
	mkdir -p $(1)/sbin $(1)/usr/bin $(1)/usr/sbin $(1)/usr/share/compat
	$(BUSYBOX) --list-full | while read -r link; do \
		[ -e $(1)/$$link ] || [ -L $(1)/$$link ] || ln -s /bin/busybox $(1)/$$link; done
	cp tests/compat/busybox.sh $(COMPAT_DIR)/busybox.expected $(1)/usr/share/compat/
endef

# Debian's bash-static (a static glibc bash, installed by make deps) as
# /bin/bash-static: its process substitution <(...) reads /dev/fd/N, the
# test bash_procsubst runs it (the host's copy on the host).
BASH_STATIC := /bin/bash-static
define install_bash_static
	cp $(BASH_STATIC) $(1)/bin/bash-static
endef

# Debian's e2fsprogs mke2fs (dynamically linked against glibc; installed by
# make deps) as /sbin/mke2fs with the link Debian gives it for the one type
# that mounts here, mkfs.ext2, its libraries beside glibc's in
# /lib/x86_64-linux-gnu and its /etc/mke2fs.conf.  Programs and test
# suites format with `mkfs.TYPE` (LTP's tst_mkfs; busybox has an mke2fs
# applet but not that name, nor e2fsprogs' options).  No mkfs.ext3 or
# mkfs.ext4: the kernel mounts neither (ENODEV), so a suite looking for
# them finds none and skips, as it would on a Linux built without them
# (`mke2fs -t ext4` still makes one).
MKE2FS := /sbin/mke2fs
E2FS_LIBS := $(addprefix /lib/x86_64-linux-gnu/,libext2fs.so.2 libcom_err.so.2 libblkid.so.1 \
	libuuid.so.1 libe2p.so.2)
E2FS_FILES := $(MKE2FS) $(E2FS_LIBS) /etc/mke2fs.conf
define install_e2fsprogs
	mkdir -p $(1)/sbin $(1)/etc $(1)/lib/x86_64-linux-gnu
	cp $(MKE2FS) $(1)/sbin/mke2fs
	ln -s mke2fs $(1)/sbin/mkfs.ext2
	cp -L $(E2FS_LIBS) $(1)/lib/x86_64-linux-gnu/
	cp /etc/mke2fs.conf $(1)/etc/
endef
