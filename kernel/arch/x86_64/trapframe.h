/*
 * The register frame every interrupt, exception and (later) system call
 * saves on the kernel stack.  Layout shared with isr.asm: keep in sync.
 */
#ifndef ARCH_TRAPFRAME_H
#define ARCH_TRAPFRAME_H

#include <stdint.h>

struct trapframe {
	union {
		struct {
			uint64_t rdi, rsi, rdx, r10, r8, r9;
		};
		/* The same registers as a system call's arguments, in Linux's
		 * order: its handler reads them in place (syscall_entry). */
		uint64_t args[6];
	};
	uint64_t r15, r14, r13, r12, r11, rbp, rcx, rbx, rax;
	uint64_t vector; /* SYSCALL_VECTOR for a system-call frame */
	/* Exceptions: the CPU's error code (0 if none).  System calls: the
	 * call's number, kept for restarts (-1 once nothing may restart). */
	uint64_t error;
	/* Pushed by the CPU. */
	uint64_t rip, cs, rflags, rsp, ss;
};

#define SYSCALL_VECTOR 0x100 /* not a hardware vector (syscall.asm) */

static inline int trapframe_from_user(const struct trapframe *tf)
{
	return (tf->cs & 3) == 3;
}

#endif
