/*
 * FPU/SSE state of user programs.  The kernel itself never touches these
 * registers (-mgeneral-regs-only), so a task's state only needs saving when
 * the CPU switches to another task: eager save and restore in schedule().
 */
#ifndef ARCH_FPU_H
#define ARCH_FPU_H

#include <stdint.h>

struct fpu_state {
	uint8_t fxsave[512];
} __attribute__((aligned(16)));

/* Enables SSE (CR0/CR4) and records the clean state new programs start with. */
void fpu_init(void);
/* The state a freshly executed program starts with. */
void fpu_reset(struct fpu_state *st);

static inline void fpu_save(struct fpu_state *st)
{
	asm volatile("fxsave64 %0" : "=m"(*st));
}

static inline void fpu_restore(const struct fpu_state *st)
{
	asm volatile("fxrstor64 %0" : : "m"(*st));
}

#endif
