# Tools and flags shared by every part of the build.

BUILD ?= build
# `make LOCKDEP=1`: the kernel with lock-order and might_sleep checks
# (lib/lockdep.h), built apart in $(BUILD)/lockdep with every ISO made from
# it (`make LOCKDEP=1 run` boots it); the user programs and initrds are
# shared.
ifeq ($(LOCKDEP),1)
KBUILD := $(BUILD)/lockdep
else
KBUILD := $(BUILD)
endif
CC := gcc
LD := ld
NASM := nasm
HOSTCC := gcc

# The kernel: freestanding, higher half, no SSE until it saves FPU state.
KCFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D__KERNEL__ \
	-ffreestanding -fno-builtin -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-mno-red-zone -mcmodel=kernel -fno-pic -fno-pie -mgeneral-regs-only \
	-fno-stack-protector -fcf-protection=none -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -Ikernel -MMD -MP $(if $(filter 1,$(LOCKDEP)),-DLOCKDEP)
KLDFLAGS := -nostdlib -z max-page-size=0x1000 --no-warn-rwx-segments -z noexecstack

# QEMU machine shared by run, test and bench (docs/architecture.md).
QEMU := qemu-system-x86_64
QEMU_MEM ?= 512M

# Short build lines ("  CC  build/kernel/kmain.o"); `make V=1` shows commands.
ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-4s %s\n' $(1) $(2);
endif
