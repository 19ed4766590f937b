# make deps: install the Debian packages the build and tests need.
# As root, missing packages are installed; otherwise the apt-get line is shown.

DEB_PACKAGES := nasm qemu-system-x86 grub-pc-bin grub-efi-amd64-bin ovmf grub-common xorriso mtools \
	newlib-source gdb cpio libcmocka-dev clang libclang-rt-14-dev gnuplot-nox musl-tools \
	busybox-static bash-static libsqlite3-dev e2fsprogs linux-libc-dev

.PHONY: deps
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	else \
		echo "deps: missing packages; run as root:"; \
		echo "  apt-get install -y --no-install-recommends $$missing"; exit 1; \
	fi
