/* SSE enablement and the initial FPU state (see fpu.h). */
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/cpu.h"
#include "lib/string.h"

#define CR0_MP	       (1UL << 1)
#define CR0_EM	       (1UL << 2)
#define CR0_TS	       (1UL << 3)
#define CR4_OSFXSR     (1UL << 9)
#define CR4_OSXMMEXCPT (1UL << 10)

static struct fpu_state clean_state;

void fpu_init(void)
{
	uint64_t cr0 = read_cr0();

	cr0 &= ~(CR0_EM | CR0_TS);
	cr0 |= CR0_MP;
	asm volatile("mov %0, %%cr0" : : "r"(cr0));
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	/* fninit sets the x87 defaults; MXCSR resets to 0x1f80 (all masked). */
	asm volatile("fninit");
	fpu_save(&clean_state);
}

void fpu_reset(struct fpu_state *st)
{
	memcpy(st, &clean_state, sizeof(*st));
}
