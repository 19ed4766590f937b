/*
 * Backtraces through the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer), symbolised with the table the build embeds in
 * .ksyms (mk/gensyms.sh).  Frame reads go through probes so a corrupt
 * chain ends the trace instead of faulting again.
 *
 * gcc still gives a leaf function that needs no stack no frame (gcc 12
 * ignores -mno-omit-leaf-frame-pointer there), and assembly functions and a
 * fault in a prologue have none either: rbp then is the caller's frame, and
 * following it would skip the caller.  So for the faulting instruction the
 * return address is found on the stack, checked against the call that
 * pushed it (see find_return).  The same goes for the instruction a trap
 * interrupted, when the chain passes through the trap stub (walk_chain).
 */
#include "lib/backtrace.h"
#include "arch/x86_64/extable.h"
#include "arch/x86_64/trapframe.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"

#define MAX_FRAMES 24
#define MAX_SCAN   16 /* stack words searched for a frameless return address */

/* What every frame-keeping function starts with: push %rbp; mov %rsp,%rbp. */
static const uint8_t frame_setup[] = {0x55, 0x48, 0x89, 0xe5};

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

/* Has the function holding rip already set up its frame, so that rbp is its
 * own?  Unknown addresses are trusted to have one. */
static bool frame_is_set_up(uint64_t rip)
{
	long i = ksym_index(rip);
	uint64_t start, code;

	if (i < 0)
		return true;
	start = ksyms_addr[i];
	/* Probed: a corrupt rip may name a symbol whose text is gone (the
	 * boot code below the kernel's image is unmapped after boot). */
	return rip >= start + sizeof(frame_setup) && !probe_read_u64((void *)start, &code) &&
	       !memcmp(&code, frame_setup, sizeof(frame_setup));
}

/* Is ret a return address pushed by a call to the function at fn?  A direct
 * call must name fn; an indirect one (call *%reg, call *disp(%reg)) cannot
 * be checked further. */
static bool is_return_into(uint64_t ret, uint64_t fn)
{
	uint64_t word;
	uint8_t b[7];
	int32_t rel;

	if (ret < (uint64_t)_text_start + sizeof(word) || ret > (uint64_t)_text_end ||
	    probe_read_u64((void *)(ret - sizeof(word)), &word))
		return false;
	memcpy(b, (const uint8_t *)&word + 1, sizeof(b)); /* the 7 bytes before ret */
	memcpy(&rel, b + 3, sizeof(rel));
	if (b[2] == 0xe8)
		return ret + (uint64_t)(int64_t)rel == fn;
	/* ff /2 with a register (2 bytes), disp8 (3) or disp32 (6) operand. */
	return (b[5] == 0xff && (b[6] & 0xf8) == 0xd0) || (b[4] == 0xff && (b[5] & 0xf8) == 0x50) ||
	       (b[1] == 0xff && (b[2] & 0xf8) == 0x90);
}

/* The return address of rip's frameless function: the first stack word from
 * rsp up that a call into that function pushed; 0 if none is found. */
static uint64_t find_return(uint64_t rip, uint64_t rsp)
{
	long i = ksym_index(rip);
	uint64_t word;

	if (i < 0 || rsp < KSTACK_REGION || (rsp & 7))
		return 0;
	for (int k = 0; k < MAX_SCAN; k++) {
		if (probe_read_u64((void *)(rsp + 8 * k), &word))
			return 0;
		if (is_return_into(word, ksyms_addr[i]))
			return word;
	}
	return 0;
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

/*
 * Where the trap stub's call to trap_dispatch returns (isr.asm).  The stub
 * links a frame [interrupted rbp, interrupted rip] right below the
 * trapframe, so the frame a return there leads to is followed by the
 * trapframe, whose registers restart the trace exactly (no -1: rip is the
 * interrupted instruction, not a return address).
 */
extern const char trap_dispatch_return[];

/*
 * One step up the chain: the return address of the frame at *rbp into *ret,
 * and the caller's frame into *rbp.  False at the chain's end or at a frame
 * that is not on a kernel stack (task stacks from KSTACK_REGION, the boot
 * stack in the image), or a return out of the kernel's text: the top of a
 * syscall's chain is the user's rbp or rip.
 */
static bool frame_step(uint64_t *rbp, uint64_t *ret)
{
	uint64_t next;

	if (*rbp < KSTACK_REGION || (*rbp & 7) || probe_read_u64((void *)*rbp, &next) ||
	    probe_read_u64((void *)(*rbp + 8), ret) || *ret < (uint64_t)_text_start ||
	    *ret > (uint64_t)_text_end)
		return false;
	*rbp = next;
	return true;
}

int backtrace_save(uint64_t rbp, uint64_t *rets, int max)
{
	int n = 0;

	while (n < max && frame_step(&rbp, &rets[n]))
		n++;
	return n;
}

/* Follows the rbp chain from frame n; returns the next frame number, and in
 * *trap_rbp the stub's frame if the chain reached a trap (else 0). */
static int walk_chain(int n, uint64_t rbp, uint64_t *trap_rbp)
{
	uint64_t ret;

	*trap_rbp = 0;
	for (; n < MAX_FRAMES && frame_step(&rbp, &ret); n++) {
		/* Return addresses point after the call; -1 names the caller's line. */
		print_frame(n, ret - 1);
		if (ret == (uint64_t)trap_dispatch_return) {
			*trap_rbp = rbp;
			return n + 1;
		}
	}
	return n;
}

void backtrace_from(uint64_t rip, uint64_t rsp, uint64_t rbp)
{
	struct trapframe *tf;
	uint64_t trap_rbp, cs;
	int n = 0;

	printk("backtrace:\n");
	for (;;) {
		print_frame(n++, rip);
		if (rsp && !frame_is_set_up(rip)) {
			uint64_t ret = find_return(rip, rsp);
			if (ret)
				print_frame(n++, ret - 1);
		}
		n = walk_chain(n, rbp, &trap_rbp);
		if (!trap_rbp || n >= MAX_FRAMES)
			return;
		tf = (struct trapframe *)(trap_rbp + 16);
		if (probe_read_u64(&tf->cs, &cs) || (cs & 3) || probe_read_u64(&tf->rip, &rip) ||
		    probe_read_u64(&tf->rsp, &rsp) || probe_read_u64(&tf->rbp, &rbp))
			return; /* user mode below: the kernel trace ends */
	}
}
