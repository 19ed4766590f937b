/*
 * Backtraces through the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer), symbolised with the table the build embeds in
 * .ksyms (mk/gensyms.sh).  Frame reads go through probes so a corrupt
 * chain ends the trace instead of faulting again.
 */
#include "lib/backtrace.h"
#include "arch/x86_64/extable.h"
#include "lib/printk.h"
#include "mm/layout.h"

#define MAX_FRAMES 24

/* Emitted by mk/gensyms.sh: sorted text symbols and their names. */
extern const uint64_t ksyms_count;
extern const uint64_t ksyms_addr[];
extern const uint32_t ksyms_name[];
extern const char ksyms_strings[];

long ksym_index(uint64_t addr)
{
	uint64_t lo = 0, hi = ksyms_count;

	if (!ksyms_count || addr < ksyms_addr[0] || addr >= (uint64_t)_text_end)
		return -1;
	/* Binary search for the last symbol at or below addr. */
	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;
		if (ksyms_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

size_t ksym_total(void)
{
	return ksyms_count;
}

const char *ksym_name(size_t i)
{
	return ksyms_strings + ksyms_name[i];
}

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	long i = ksym_index(addr);

	if (i < 0)
		return NULL;
	*offset = addr - ksyms_addr[i];
	return ksym_name((size_t)i);
}

static void print_frame(int n, uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);

	if (name)
		printk("  #%-2d %016lx %s+0x%lx\n", n, addr, name, off);
	else
		printk("  #%-2d %016lx ?\n", n, addr);
}

void backtrace_from(uint64_t rip, uint64_t rbp)
{
	printk("backtrace:\n");
	print_frame(0, rip);
	for (int n = 1; n < MAX_FRAMES && rbp >= KERNEL_VMA && !(rbp & 7); n++) {
		uint64_t next, ret;
		if (probe_read_u64((void *)rbp, &next) || probe_read_u64((void *)(rbp + 8), &ret))
			break;
		if (!ret)
			break;
		/* Return addresses point after the call; -1 names the caller's line. */
		print_frame(n, ret - 1);
		rbp = next;
	}
}
