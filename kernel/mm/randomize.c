/*
 * Address-space layout randomisation at exec (Linux's PF_RANDOMIZE): the
 * stack's top, the initial stack pointer within its page, the mmap base
 * (with a static PIE or ld.so, placed below it), a PIE's base above
 * ELF_ET_DYN_BASE and the heap's start move by
 * random amounts as Linux's x86_64 does, so that an attacker cannot know
 * where anything is.  /proc/sys/kernel/randomize_va_space turns it down,
 * the boot word norandmaps starts it at 0 (reproducible traces: make
 * bench), and personality(ADDR_NO_RANDOMIZE) turns it off for a process's
 * next programs (setarch -R), except set-id ones.
 */
#include "mm/uvm.h"
#include "cmdline.h"
#include "fs/proc/proc_sys.h"
#include "lib/random.h"

/* 0: nothing moves; 1: the stack, mmap base and PIE base; 2 (Linux's
 * default) or more: the heap's start too.  Any int, as Linux's plain
 * proc_dointvec; a negative one counts as 1.  Read once per exec. */
static int randomize_va_space = 2;
PROC_SYS_ROW(randomize_va_space_row, .path = "kernel/randomize_va_space", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &randomize_va_space,
	     .min = INT32_MIN, .max = INT32_MAX);

void randomize_init(void)
{
	if (kopts.norandmaps)
		randomize_va_space = 0;
}

/* A page-aligned offset below 2^bits pages. */
static uint64_t random_pages(unsigned int bits)
{
	return (random_u64() & ((1UL << bits) - 1)) << PAGE_SHIFT;
}

void uvm_layout_draw(struct uvm_layout *l, bool randomize)
{
	int level = __atomic_load_n(&randomize_va_space, __ATOMIC_RELAXED);

	*l = (struct uvm_layout){.stack_top = USER_STACK_TOP};
	if (!randomize || level == 0)
		return;
	l->stack_top -= random_pages(STACK_RND_BITS);
	l->stack_pad = (random_u64() % 8192) & ~15UL;
	l->stack_rnd_max = (1UL << STACK_RND_BITS) << PAGE_SHIFT;
	l->mmap_rnd = random_pages(MMAP_RND_BITS);
	l->pie_rnd = random_pages(MMAP_RND_BITS); /* Linux's arch_mmap_rnd, drawn again */
	if (level > 1)
		l->brk_rnd = (random_u64() % (BRK_RND_RANGE / PAGE_SIZE)) << PAGE_SHIFT;
}
