/*
 * Core dumps (Linux's fs/coredump.c and binfmt_elf's elf_core_dump): a
 * process killed by a core-dumping signal writes an ELF core file that
 * gdb opens with the program, and its wait status gets WCOREDUMP.
 * docs/debugging.md, "Core dumps".
 */
#ifndef PROC_COREDUMP_H
#define PROC_COREDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86_64/fpu.h"

struct file;
struct inode;
struct sig_info;
struct task;
struct trapframe;
struct uvm;

/* /proc/<pid>/coredump_filter's bits (Linux's MMF_DUMP_*, less
 * MMF_DUMP_FILTER_SHIFT): a mapping of each kind is dumped when its bit
 * is set.  There are no huge pages nor DAX here: bits 5-8 are kept and
 * shown, and select nothing. */
#define COREDUMP_FILTER_ANON_PRIVATE	0x01u
#define COREDUMP_FILTER_ANON_SHARED	0x02u
#define COREDUMP_FILTER_MAPPED_PRIVATE	0x04u
#define COREDUMP_FILTER_MAPPED_SHARED	0x08u
#define COREDUMP_FILTER_ELF_HEADERS	0x10u
#define COREDUMP_FILTER_HUGETLB_PRIVATE 0x20u
#define COREDUMP_FILTER_MASK		0x1ffu /* the 9 bits Linux keeps */
/* Linux's MMF_DUMP_FILTER_DEFAULT (no CONFIG_CORE_DUMP_DEFAULT_ELF_HEADERS
 * change): anonymous private and shared memory, ELF headers, private
 * huge pages. */
#define COREDUMP_FILTER_DEFAULT                                                                    \
	(COREDUMP_FILTER_ANON_PRIVATE | COREDUMP_FILTER_ANON_SHARED |                              \
	 COREDUMP_FILTER_ELF_HEADERS | COREDUMP_FILTER_HUGETLB_PRIVATE)

/* Whether sig's default action dumps core (Linux's SIG_KERNEL_COREDUMP_MASK:
 * SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU,
 * SIGXFSZ, SIGSYS). */
bool sig_dumps_core(int sig);

/*
 * sig (default action) kills current's process: its other threads are
 * killed and wait at their exit (coredump_park) while the core is written,
 * if the process is dumpable, RLIMIT_CORE is at least a page and the file
 * named by core_pattern can be made.  tf: current's user registers.
 * Returns the process's wait status: W_SIGNALED(sig), with W_CORE when
 * the dump began (the file made, even if a limit cut it short).  If the process is already on its
 * way out (an exit_group, another thread's fatal signal, an exec), just that status.
 */
int coredump(int sig, const struct sig_info *info, const struct trapframe *tf);

/* t (current) exits: while its process dumps core and t is not the
 * writer, it waits there with its registers in place (Linux's
 * coredump_task_exit). */
void coredump_park(struct task *t);

/* ---- Between coredump.c and coredump_elf.c ---- */

/* The file being written: bytes go at pos; RLIMIT_CORE counts the bytes
 * written (a hole costs nothing, as Linux's dump_skip). */
struct core_out {
	struct file *f;
	uint64_t pos, written, limit;
	bool failed; /* the limit, or a write error: nothing more is written */
};

/* Writes len bytes at o->pos: false once the dump failed. */
bool core_emit(struct core_out *o, const void *buf, size_t len);
/* Moves o->pos forward to pos, leaving a hole. */
void core_skip_to(struct core_out *o, uint64_t pos);

/* A thread in the core: its registers (the writer's live FPU state is
 * saved into fpu; the others' were saved when they were switched out). */
struct core_thread {
	struct task *t; /* referenced */
	const struct trapframe *tf;
	struct fpu_state fpu;
};

/* A mapping in the core: its range, protection and how many bytes of it
 * the core holds (0, a page of an ELF header, or all). */
struct core_vma {
	uint64_t start, end, dump;
	int prot;
	/* A private mapping's file (the vma's reference keeps it: nothing
	 * unmaps meanwhile), read for pages never touched; NULL otherwise. */
	struct inode *file;
	uint64_t off;
	bool named; /* maps the program, whose path NT_FILE gives */
};

struct core_dump {
	int sig;
	const struct sig_info *info;
	struct uvm *u;
	struct core_thread *threads; /* the writer first */
	int nthreads;
	struct core_vma *vmas;
	int nvmas;
};

/* The ELF core of d into o (coredump_elf.c): false if it failed. */
bool core_write_elf(const struct core_dump *d, struct core_out *o);
/* v's dumped bytes at o->pos (coredump.c): false if the dump failed. */
bool core_emit_vma(const struct core_dump *d, struct core_out *o, const struct core_vma *v);

#endif
