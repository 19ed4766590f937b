/*
 * The console line of a user-mode fault: program, pid, signal, rip with the
 * program's own symbol when its file has a symbol table (the initrd's
 * copies keep .symtab; only debug info is stripped), and the faulting
 * address.  A fault that kills (the signal's default action) is reported;
 * one a handler will take only without `quiet`.  Reports are rate-limited
 * as Linux's printk_ratelimit: a program that faults in a loop (a fuzzer,
 * a test) cannot flood the serial console, whose every byte is a port write.
 */
#include "arch/x86_64/timer.h"
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "proc/elf.h"
#include "proc/fault_report.h"
#include "mm/uvm.h"
#include "proc/task.h"
#include <uapi/signal.h>

#define SHT_SYMTAB 2
#define STT_FUNC   2
#define MAX_SHNUM  256
#define SYM_CHUNK  32 /* symbols read at a time */
#define SYM_NAME   48

#define REPORT_BURST 10 /* reports at most per window (Linux's defaults) */

static struct {
	struct spinlock lock; /* protects the fields below */
	uint64_t start;	      /* when the current window opened */
	unsigned int printed, suppressed;
} limit = {.lock = SPINLOCK_INIT("fault_report")};

struct elf64_shdr {
	uint32_t name, type;
	uint64_t flags, addr, offset, size;
	uint32_t link, info;
	uint64_t addralign, entsize;
};

struct elf64_sym {
	uint32_t name;
	uint8_t info, other;
	uint16_t shndx;
	uint64_t value, size;
};

#define SIG_NAME(name, value) [value] = #name,
static const char *const sig_names[] = {UAPI_SIGNAL_LIST(SIG_NAME)};

static bool read_all(struct inode *ip, void *buf, size_t len, uint64_t off)
{
	return inode_read(ip, buf, len, off) == (long)len;
}

/* Section header i of the file. */
static bool read_shdr(struct inode *ip, const struct elf64_ehdr *eh, unsigned i,
		      struct elf64_shdr *sh)
{
	return i < eh->shnum && read_all(ip, sh, sizeof(*sh), eh->shoff + i * sizeof(*sh));
}

/* The function symbol of symtab containing addr, into *out. */
static bool find_func(struct inode *ip, const struct elf64_shdr *symtab, uint64_t addr,
		      struct elf64_sym *out)
{
	struct elf64_sym syms[SYM_CHUNK];
	uint64_t total = symtab->size / sizeof(syms[0]);

	for (uint64_t i = 0; i < total; i += SYM_CHUNK) {
		uint64_t n = total - i < SYM_CHUNK ? total - i : SYM_CHUNK;
		if (!read_all(ip, syms, n * sizeof(syms[0]), symtab->offset + i * sizeof(syms[0])))
			return false;
		for (uint64_t k = 0; k < n; k++)
			if ((syms[k].info & 0xf) == STT_FUNC && syms[k].value <= addr &&
			    addr < syms[k].value + syms[k].size) {
				*out = syms[k];
				return true;
			}
	}
	return false;
}

/* The name of exe's function containing addr into name; false if none. */
static bool user_symbol(struct inode *exe, uint64_t addr, char *name, size_t size, uint64_t *off)
{
	struct elf64_ehdr eh;
	struct elf64_shdr symtab, strtab;
	struct elf64_sym sym;
	unsigned i;
	long n;

	if (!exe || !read_all(exe, &eh, sizeof(eh), 0) || eh.shentsize != sizeof(symtab) ||
	    eh.shnum > MAX_SHNUM)
		return false;
	for (i = 0; read_shdr(exe, &eh, i, &symtab); i++)
		if (symtab.type == SHT_SYMTAB)
			break;
	if (i == eh.shnum || symtab.entsize != sizeof(sym) ||
	    !read_shdr(exe, &eh, symtab.link, &strtab) || !find_func(exe, &symtab, addr, &sym))
		return false;
	n = inode_read(exe, name, size - 1, strtab.offset + sym.name);
	if (n <= 0)
		return false;
	name[n] = '\0';
	*off = addr - sym.value;
	return true;
}

bool fault_report_allowed(uint64_t now, unsigned int *missed)
{
	bool ok;

	spin_lock(&limit.lock);
	if (now - limit.start >= FAULT_REPORT_WINDOW_NS) {
		limit.start = now;
		limit.printed = 0;
	}
	ok = limit.printed < REPORT_BURST;
	*missed = 0;
	if (ok) {
		limit.printed++;
		*missed = limit.suppressed;
		limit.suppressed = 0;
	} else {
		limit.suppressed++;
	}
	spin_unlock(&limit.lock);
	return ok;
}

void fault_report(struct task *t, int sig, uint64_t rip, uint64_t addr, bool kills)
{
	unsigned int missed;
	char sym[SYM_NAME] = "?";
	uint64_t off = 0;
	const char *sname =
	    sig > 0 && sig < (int)(sizeof(sig_names) / sizeof(sig_names[0])) && sig_names[sig]
		? sig_names[sig]
		: "signal";

	if ((!kills && printk_quiet) || !fault_report_allowed(clock_monotonic_ns(), &missed))
		return;
	if (missed)
		printk("(%u fault reports suppressed)\n", missed);
	user_symbol(t->uvm ? t->uvm->exe : NULL, rip, sym, sizeof(sym), &off);
	printk("%s[%d]: %s %s at rip 0x%lx (%s+0x%lx), address 0x%lx\n", t->name, t->pid,
	       kills ? "killed by" : "handles", sname, rip, sym, off, addr);
}
