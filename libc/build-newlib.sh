#!/usr/bin/env bash
# Build newlib from Debian's newlib-source for a bare x86_64-elf target with
# the host gcc and binutils, and install it into a sysroot (docs/libc.md).
#
# usage: libc/build-newlib.sh TARBALL WORKDIR SYSROOT
# WORKDIR receives newlib-src/, newlib-obj/ and newlib-build.log.  SYSROOT
# appears only when everything succeeded: the install goes to SYSROOT.tmp
# and is renamed at the end, so a failed build never leaves a sysroot behind.
# Concurrent runs (several makes in one checkout) wait for each other, and a
# sysroot already built from the same inputs is kept.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
tarball=$1 work=$(realpath -m "$2") sysroot=$(realpath -m "$3")
src=$work/newlib-src obj=$work/newlib-obj log=$work/newlib-build.log
tmp=$sysroot.tmp
patches=("$here"/newlib-*.patch)

# The outer make's jobserver is not ours to use; run a self-contained make.
unset MAKEFLAGS MFLAGS MAKELEVEL

fail() {
	echo "newlib: build failed ($1); log: $log" >&2
	tail -n 20 "$log" >&2 || true
	exit 1
}

mkdir -p "$work"
exec 9>"$work/newlib.lock"
flock 9

inputs=$(cat "$0" "${patches[@]}" | sha256sum | cut -d' ' -f1)-$(basename "$tarball")
if [ "$(cat "$sysroot/.newlib-inputs" 2>/dev/null)" = "$inputs" ]; then
	echo "newlib: $sysroot is up to date"
	exit 0
fi

rm -rf "$src" "$obj" "$tmp" "$sysroot"
mkdir -p "$src" "$obj"
: >"$log"
tar -xf "$tarball" -C "$src" --strip-components=1 >>"$log" 2>&1 || fail unpack
for patch in "${patches[@]}"; do
	patch -p1 -d "$src" <"$patch" >>"$log" 2>&1 || fail "patch $patch"
done

gccinc=$(gcc -print-file-name=include)
# SIGNAL_PROVIDED: signal() and raise() come from the glue, on real kernel
# signals, instead of newlib's in-process emulation.  HAVE_FCNTL: fdopen()
# checks the descriptor's mode with fcntl(F_GETFL).  HAVE_RENAME: rename()
# calls the glue's _rename (the kernel's atomic rename), not link + unlink.
cflags="-O2 -g -nostdinc -isystem $gccinc -fno-pic -fno-pie -fno-stack-protector"
cflags+=" -fcf-protection=none -ffunction-sections -fdata-sections -Wa,--noexecstack"
cflags+=" -DSIGNAL_PROVIDED -DHAVE_FCNTL -DHAVE_RENAME"

start=$SECONDS
(
	cd "$obj" &&
		"$src/configure" --target=x86_64-elf --prefix="$tmp" \
			--disable-multilib --disable-libgloss --disable-nls \
			--enable-newlib-io-long-long --enable-newlib-io-c99-formats \
			CC_FOR_TARGET=gcc AR_FOR_TARGET=ar AS_FOR_TARGET=as LD_FOR_TARGET=ld \
			RANLIB_FOR_TARGET=ranlib NM_FOR_TARGET=nm CFLAGS_FOR_TARGET="$cflags"
) >>"$log" 2>&1 || fail configure
make -C "$obj" -j"$(nproc)" all-target-newlib >>"$log" 2>&1 || fail make
make -C "$obj" install-target-newlib >>"$log" 2>&1 || fail install

# Flatten PREFIX/x86_64-elf/{include,lib} into SYSROOT/{include,lib}.
echo "$inputs" >"$tmp/x86_64-elf/.newlib-inputs"
mv "$tmp/x86_64-elf" "$tmp.flat" && rm -rf "$tmp" && mv "$tmp.flat" "$sysroot"
echo "newlib: built and installed in $((SECONDS - start)) s -> $sysroot"
