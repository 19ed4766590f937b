/*
 * The register frame every interrupt, exception and (later) system call
 * saves on the kernel stack.  Layout shared with isr.asm: keep in sync.
 */
#ifndef ARCH_TRAPFRAME_H
#define ARCH_TRAPFRAME_H

#include <stdint.h>

struct trapframe {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;
	uint64_t error; /* pushed by the CPU for some exceptions, else 0 */
	/* Pushed by the CPU. */
	uint64_t rip, cs, rflags, rsp, ss;
};

static inline int trapframe_from_user(const struct trapframe *tf)
{
	return (tf->cs & 3) == 3;
}

#endif
