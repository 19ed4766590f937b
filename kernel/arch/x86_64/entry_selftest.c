/*
 * Self-test of kernel entry hygiene: user code may leave RFLAGS.AC set
 * (popf, a signal frame), and with SMAP that bit is what lets the kernel
 * touch user pages.  Every entry must clear it, so a kernel access to user
 * memory outside copy_*_user still faults, and the interrupted code must
 * get it back (a user copy interrupted by the timer goes on copying).
 * Also: the assembler's frame offsets name the fields they mean.
 */
#include <stddef.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/extable.h"
#include "arch/x86_64/hardening.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/traps.h"
#include "lib/ktest.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "selftest.h"
#include <uapi/errno.h>

#define USER_VA 0x400000UL

static uint64_t handler_rflags;
static int handler_probe;
static uint64_t rflags_after; /* the interrupted code's, after iret */

/* Runs on the VEC_SELFTEST interrupt: what can the kernel do here? */
static void probe_user_page(struct trapframe *tf)
{
	uint64_t v;

	(void)tf;
	handler_rflags = read_rflags();
	handler_probe = probe_read_u64((const void *)USER_VA, &v);
}

/* Raises VEC_SELFTEST with AC set, as user code may leave it. */
static void interrupt_with_ac(void)
{
	trap_register_selftest(probe_user_page);
	user_access_begin();
	asm volatile("int %0" : : "i"(VEC_SELFTEST) : "memory");
	rflags_after = read_rflags();
	user_access_end();
	trap_register_selftest(NULL);
}

/* The assembler's frame offsets (regs.inc, exported by syscall.asm). */
extern const char tf_offset_r11[], tf_offset_rcx[], tf_offset_rax[], tf_offset_vector[],
    tf_offset_rip[], tf_offset_cs[], tf_offset_rflags[], tf_offset_rsp[], tf_offset_ss[],
    tf_offset_size[];
#define ASM_OFFSET_IS(sym, field) ((uintptr_t)(sym) == offsetof(struct trapframe, field))

/* Whether every offset the entry code uses names the field it means. */
static bool asm_offsets_match(void)
{
	return ASM_OFFSET_IS(tf_offset_r11, r11) && ASM_OFFSET_IS(tf_offset_rcx, rcx) &&
	       ASM_OFFSET_IS(tf_offset_rax, rax) && ASM_OFFSET_IS(tf_offset_vector, vector) &&
	       ASM_OFFSET_IS(tf_offset_rip, rip) && ASM_OFFSET_IS(tf_offset_cs, cs) &&
	       ASM_OFFSET_IS(tf_offset_rflags, rflags) && ASM_OFFSET_IS(tf_offset_rsp, rsp) &&
	       ASM_OFFSET_IS(tf_offset_ss, ss) &&
	       (uintptr_t)tf_offset_size == sizeof(struct trapframe);
}

void entry_selftest(void)
{
	struct vm_space *as;

	KTEST_OK(asm_offsets_match(), "entry: regs.inc's frame offsets match struct trapframe");
	KTEST_OK(rdmsr(MSR_FMASK) & RFLAGS_AC, "entry: SYSCALL clears AC (FMASK)");
	if (!smap_enabled) {
		KTEST_OK(true, "entry: # SKIP no SMAP on this CPU");
		return;
	}
	as = vm_create();
	if (!KTEST_OK(as && !vm_map_anon(as, USER_VA, PAGE_SIZE, PTE_USER | PTE_NX),
		      "entry: a user page to probe")) {
		if (as)
			vm_destroy(as);
		return;
	}
	vm_switch(as);
	interrupt_with_ac();
	KTEST_OK(!(handler_rflags & RFLAGS_AC) && handler_probe == -EFAULT,
		 "entry: an interrupt taken with AC set runs with AC clear; a user access faults");
	KTEST_OK(rflags_after & RFLAGS_AC, "entry: the interrupted code gets its AC back");
	vm_switch(vm_kernel());
	vm_destroy(as);
}
