/*
 * The layout of a process's user address space and its mapping list
 * (mm/vma.h): brk, mmap, the stack, faults on first touch.
 *
 *   0x400000 ...               the ELF image, then the brk heap (grows up)
 *   ... mmap_base              mmaps (placed top down, in the highest gap)
 *   RLIMIT_STACK + guard gap   kept free for the stack: mmap_base is
 *                              USER_STACK_TOP minus that (128 MiB at least)
 *   ... USER_STACK_TOP         the stack, a vma that grows down on faults
 *
 * Linux's model: mmap placement stops at mmap_base, chosen at exec from
 * RLIMIT_STACK (gap = RLIMIT_STACK + STACK_GUARD_GAP, clamped to [128 MiB,
 * 5/6 of the space]); the stack vma grows down as it is touched, up to
 * RLIMIT_STACK and never closer than STACK_GUARD_GAP (Linux's
 * stack_guard_gap) to the mapping below it, which no placement puts inside
 * the gap either.  A fault past either bound is SIGSEGV.
 */
#ifndef PROC_UVM_H
#define PROC_UVM_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/layout.h"

#define USER_STACK_TOP	     (USER_END - PAGE_SIZE) /* Linux's TASK_SIZE, the top of it all */
#define STACK_GUARD_GAP	     (256 * PAGE_SIZE)
#define STACK_INITIAL_EXPAND (128UL << 10) /* below the arguments at exec (Linux's) */
#define MMAP_GAP_MIN	     (128UL << 20)
#define MMAP_GAP_MAX	     (USER_STACK_TOP / 6 * 5)
#define USER_IMAGE_MIN	     0x10000UL /* nothing below: NULL stays unmapped */

#define UVM_AUXV_WORDS 48 /* 24 pairs */

struct task;
struct vm_space;
struct inode;
struct vma_table;

/*
 * A process's user memory: its address space and layout, shared by the
 * tasks cloned with CLONE_VM (threads, vfork).  Lifetime: users counts
 * the tasks whose ->uvm points here (atomic); the last uvm_put destroys
 * the space, which by then no CPU has loaded.  lock protects brk, the
 * mapping list and its counts, and serializes page faults with the
 * calls that change mappings (lock order: uvm lock, then the space's,
 * then an inode's); space, brk_start, exe and exe_path are set before the
 * uvm is shared (brk too, for exec's new one).
 */
struct uvm {
	int users;
	struct spinlock lock;
	struct vm_space *space;
	uint64_t brk_start, brk;
	/* The top of mmap placement (uvm_set_mmap_base), set at exec, copied
	 * by fork, then constant. */
	uint64_t mmap_base;
	/* The mapping list (mm/vma.h), referenced: fork shares it
	 * copy-on-write, exec makes a new one, the last uvm_put drops it.
	 * Changed (even replaced by its copy) only under lock. */
	struct vma_table *vt;
	/* The program file (referenced, and denied to writers: fs/inode.h's
	 * writecount), read for fault reports; NULL for a space no exec
	 * built.  exe_inode_put gives both back. */
	struct inode *exe;
	/* The absolute path execve was given for exe (kmalloc'd, constant,
	 * freed with the uvm), what /proc/<pid>/exe shows; NULL with exe. */
	char *exe_path;
	/* The program's ELF interpreter (ld.so; referenced, not denied to
	 * writers, as Linux) and its path as PT_INTERP names it (kmalloc'd,
	 * constant, freed with the uvm), what /proc/<pid>/maps names its
	 * mappings; both NULL for a static program. */
	struct inode *interp;
	char *interp_path;
	/* argv as exec got it, each string NUL-terminated, cut to
	 * UVM_CMDLINE_MAX bytes (kmalloc'd, constant, freed with the uvm;
	 * NULL for none): /proc/<pid>/cmdline. */
	char *cmdline;
	size_t cmdline_len;
	/* mlockall(MCL_FUTURE): the lock bits (mm/vma.h) each new mapping
	 * gets; under lock, 0 in a fork's copy and a new image, as Linux's
	 * def_flags. */
	unsigned int lock_future;
	/* Some vma has been locked (under lock): a fork's copy must drop
	 * the locks, which copies the shared mapping table. */
	bool ever_locked;
	/* envp's strings, the same way: /proc/<pid>/environ. */
	char *environ;
	size_t environ_len;
	/* prctl(PR_SET_DUMPABLE): whether a core-dumping signal writes a core
	 * (proc/coredump.c).  1 for a new image, copied by fork (Linux keeps
	 * it in the mm); atomic. */
	int dumpable;
	/* /proc/<pid>/coredump_filter: which kinds of mapping a core holds
	 * (COREDUMP_FILTER_*, proc/coredump.h), Linux's mm->flags bits.
	 * COREDUMP_FILTER_DEFAULT for the first image, copied by fork and
	 * kept by exec, as Linux's MMF_INIT_MASK; atomic. */
	unsigned int dump_filter;
	/* The auxiliary vector exec gave the program (pairs, AT_NULL last),
	 * for the core's NT_AUXV (Linux's saved_auxv); constant after exec,
	 * copied by fork. */
	uint64_t saved_auxv[UVM_AUXV_WORDS];
	/* The process is in a time namespace other than the initial one
	 * (time/timens.h): its [vvar] is the page that sends the vDSO's
	 * clocks to the system calls.  Set by exec and fork, changed by
	 * setns under lock with the page unmapped (vdso_set_timens). */
	bool timens;
};

#define UVM_CMDLINE_MAX 4096

/* *dst becomes a kmalloc'd copy of the first UVM_CMDLINE_MAX bytes of
 * src (len bytes; NULL for none): false when memory runs out. */
bool uvm_keep_text(char **dst, size_t *dst_len, const char *src, size_t len);

/* A uvm around space (taking it over) with an empty layout, or NULL. */
struct uvm *uvm_create(struct vm_space *space);
/* fork: a copy-on-write copy of u, or NULL (ENOMEM). */
struct uvm *uvm_fork(struct uvm *u);
/* CLONE_VM: one more user of u. */
struct uvm *uvm_share(struct uvm *u);
/* Drops a user; the last destroys the space (not loaded anywhere). */
void uvm_put(struct uvm *u);

/*
 * A fault at user address va with the page-fault error code: resolves it
 * (first touch, copy-on-write) and returns 0, or returns the signal the
 * access deserves: SIGSEGV (no mapping, or one that forbids it) or SIGBUS
 * (a file page past the end of the file).
 */
int uvm_handle_fault(struct task *t, uint64_t va, uint64_t error);
/* Adds a mapping to a space being built (exec): 0 or -ENOMEM. */
struct vma;
int uvm_add_vma(struct uvm *u, const struct vma *tmpl);
/* /proc/<pid>/maps of u into buf: its length (whole lines, cut to size). */
long uvm_format_maps(struct uvm *u, char *buf, size_t size);
/* One maps line of v (u locked), named name if not NULL (smaps_rollup's
 * "[rollup]"), into buf: its length, or 0 if it does not fit in size. */
size_t uvm_maps_line(const struct uvm *u, const struct vma *v, const char *name, char *buf,
		     size_t size);
/* /proc/<pid>/smaps (rollup false: each vma's maps line, sizes and
 * VmFlags) or smaps_rollup (their sums) of u into buf, as Linux formats
 * them: the length (whole entries, cut to size).  mm/uvm_smaps.c. */
long uvm_format_smaps(struct uvm *u, bool rollup, char *buf, size_t size);
/* Page va of v, mapped to frame pa (u and its space locked): its map
 * count, the frame's references less the file's own when *file (pa is
 * the file's page, not a private copy).  mm/uvm_smaps.c. */
uint32_t vma_page_mapcount(const struct vma *v, uint64_t va, uint64_t pa, bool *file);
/* The bytes u's mappings cover (what /proc/<pid>/stat's vsize shows),
 * or only those of vmas with one of flags (VMA_LOCKED: VmLck). */
uint64_t uvm_mapped_bytes(struct uvm *u, unsigned int flags);
/*
 * Maps every page of [start, end) that a vma allows some access to and
 * that is not mapped yet (mlock, MAP_POPULATE): the lock is taken a batch
 * of pages at a time.  0, or -ENOMEM when frames run out; a file page
 * past the end of its file ends that vma's part.
 */
int uvm_populate(struct uvm *u, uint64_t start, uint64_t end);
/* Whether [addr, addr+len) lies where mappings may go: above
 * USER_IMAGE_MIN, below USER_STACK_TOP. */
bool uvm_range_ok(uint64_t addr, uint64_t len);
/*
 * Where exec puts a new image's parts (mm/randomize.c), drawn once per
 * exec: every offset 0 and the stack at USER_STACK_TOP without
 * randomisation.  Linux's x86_64 amounts: the stack's top up to 16 GiB
 * lower and its first frame up to 8 KiB lower still, the mmap base (and
 * with it a static PIE) up to 1 TiB lower, the heap's start up to 1 GiB
 * higher.
 */
#define STACK_RND_BITS 22 /* pages: Linux's STACK_RND_MASK */
#define MMAP_RND_BITS  28 /* pages: Linux's mmap_rnd_bits */
#define BRK_RND_RANGE  (1UL << 30)
struct uvm_layout {
	uint64_t stack_top;	/* the end of the stack vma */
	uint64_t stack_pad;	/* bytes left unused below the argument strings */
	uint64_t stack_rnd_max; /* kept free for the stack's move: mmap's gap grows by it */
	uint64_t mmap_rnd;	/* mmap_base lowered by it */
	uint64_t pie_rnd;	/* a PIE with an interpreter: added to ELF_ET_DYN_BASE */
	uint64_t brk_rnd;	/* added to the heap's start */
};
/* randomize: not personality's ADDR_NO_RANDOMIZE (or a set-id program);
 * /proc/sys/kernel/randomize_va_space decides the rest. */
void uvm_layout_draw(struct uvm_layout *l, bool randomize);
/* Applies the boot word norandmaps. */
void randomize_init(void);
/* Linux's mmap_base for a stack limit (RLIMIT_STACK at exec) and layout
 * l: u's top of mmap placement. */
void uvm_set_mmap_base(struct uvm *u, uint64_t stack_limit, const struct uvm_layout *l);

#endif
