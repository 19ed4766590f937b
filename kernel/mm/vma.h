/*
 * The mapping list of an address space: what a process may have where.
 * Page tables (mm/paging.c) only cache it: a page is mapped on first touch
 * from the vma covering it (lazy anonymous memory, file pages), and an
 * address no vma covers faults with SIGSEGV.
 *
 * Every function here but the vma_table ones is called with uvm->lock
 * held (the table is under it); none sleeps.  A vma taken off the list is
 * freed at once, under the lock: the last reference to a file frees its
 * pages, which takes no lock a fault takes before the uvm's.
 */
#ifndef PROC_VMA_H
#define PROC_VMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/rbtree.h"

struct inode;
struct uvm;
struct vma;
struct vm_space;

/*
 * A mapping of an object that counts the vmas mapping it (Linux's vm_ops
 * open and close): a System V shm attach (ipc/shm.c).  open runs for
 * each vma made from another (the one shmat inserts from its template, a
 * fork's copy, either half of a split), close for each one freed (munmap,
 * shmdt, exec, exit, a split's unused spare never had one).  Both run
 * under the uvm's lock, or with the last reference to a table and no
 * lock: neither may sleep.  Such vmas never merge, as Linux's, so each
 * open has its close.
 */
struct vma_ops {
	void (*open)(struct vma *v);
	void (*close)(struct vma *v);
	/* What /proc/<pid>/maps shows for v: device, inode and name (into
	 * name, size bytes), as Linux's shm "/SYSV<key> (deleted)" with the
	 * id as inode.  Under the uvm's lock; optional. */
	void (*describe)(const struct vma *v, uint64_t *dev, uint64_t *ino, char *name,
			 size_t size);
	/* remap_file_pages (mm/mmap.c) holds pin, an open of its own,
	 * across replacing the vmas: whether the object still takes a new
	 * mapping, were pin not there.  Linux unmaps first, so a removed
	 * segment whose last attach went is gone before the new mapping
	 * could open it (EINVAL).  Under the uvm's lock; optional. */
	bool (*remappable)(struct vma *pin);
};

/*
 * What /proc/<pid>/maps names a file mapping by: the path of the open
 * file it was made from, as readlink of its /proc/<pid>/fd link said at
 * mmap (fdkernel keeps no dentry a vma could ask later).  Lifetime: refs
 * (atomic) counts the vmas pointing here (vma_set takes one, vma_free
 * drops it) and the mmap making them; the last put frees it.  One per
 * mmap call, so bounded by the vmas.
 */
struct vma_name {
	uint32_t refs;
	char path[];
};

struct vma_name *vma_name_new(const char *path);
void vma_name_get(struct vma_name *n);
void vma_name_put(struct vma_name *n);

struct vma {
	struct list_head node; /* in uvm->vmas, sorted by start, never overlapping */
	struct rb_node rb;     /* in the table's tree, by start (vma_find) */
	uint64_t start, end;   /* page aligned, start < end */
	int prot;	       /* PROT_READ | PROT_WRITE | PROT_EXEC, or PROT_NONE */
	unsigned int flags;    /* VMA_* */
	/* The mapped file, or NULL for anonymous memory.  Lifetime: the vma
	 * holds one inode reference (taken when it is made or copied, dropped
	 * when it is freed), so a mapping outlives close() and unlink(). */
	struct inode *file;
	uint64_t off;	       /* offset in file of start (page aligned) */
	struct vma_name *name; /* NULL, or file's path for maps (referenced) */
	/* NULL, or the ops of the object priv points to; priv stays valid
	 * while the vma exists because ops->open counted it (the object's
	 * rule: ipc/shm.c's segments live while attached). */
	const struct vma_ops *ops;
	void *priv;
	/* The table v is in (set when it is made from another); and, while
	 * v is tracked (mm/rmap.h), its place on file->mmaps, rmap_pprev
	 * NULL when on none: under rmap_lock, v's own rule (rmap.h). */
	struct vma_table *vt;
	struct vma *rmap_next, **rmap_pprev;
};

/*
 * A process's mappings.  Lifetime: refs counts the uvms pointing here
 * (atomic).  fork shares the table with the child instead of copying it
 * (fork+exit then costs no vma at all); a shared table is never changed:
 * the first change on either side copies it (own() in vma.c).  The list,
 * nr and committed are under the lock of the one uvm that owns the table
 * (refs 1); a shared one is read-only.  A table holding vmas with ops is
 * copied at fork instead (vma_table_fork), so that each side's vmas are
 * counted by their objects.
 */
/* vmas kept in the table itself: an exec's (image, heap, stack, [vvar],
 * [vdso]) need none from the heap */
#define VMA_SLOTS 8

struct vma_table {
	int refs;
	struct list_head vmas; /* struct vma, by address */
	/* The same vmas by address, for lookups in O(log n): a process may
	 * have 65,530 of them (VMA_MAX), and mapping them one by one above
	 * the others walked the list each time (LTP munmap04: 150 s). */
	struct rb_root tree;
	int nr;
	uint64_t committed; /* pages charged (vma_charge), this table's share of Committed_AS */
	int with_ops;	    /* vmas with ops on the list */
	int with_rmap;	    /* tracked vmas (mm/rmap.h) on the list: never shared by fork */
	/* The page tables of the uvm owning the table (set when it is made
	 * for one; a fork's copy gets it under rmap_lock, with the entries
	 * copied): where a tracked vma's pages are mapped.  Meaningless in
	 * a shared table, which holds no tracked vma. */
	struct vm_space *space;
	unsigned int slots_used; /* bit i: slot[i] holds a vma */
	struct vma slot[VMA_SLOTS];
};

#define VMA_SHARED   1u /* MAP_SHARED: writes reach the file or the other processes */
#define VMA_MAYWRITE 2u /* shared: anonymous, or of an fd open for writing: PROT_WRITE allowed */
#define VMA_STACK    4u /* the main stack, [stack] (and VMA_GROWSDOWN) */
#define VMA_HEAP     8u /* the brk heap, [heap] */
/* mlock (mm/mlock.c): the pages stay in memory, populated at once
 * unless VMA_LOCKONFAULT (MLOCK_ONFAULT: as they are touched).  Not
 * inherited by fork. */
#define VMA_LOCKED	16u
#define VMA_LOCKONFAULT 32u
/* MAP_NORESERVE outside strict overcommit: never charged (decided when
 * made, so a later change of policy cannot unbalance the count). */
#define VMA_NORESERVE 64u
/* MADV_DONTDUMP: left out of a core dump (proc/coredump.c). */
#define VMA_DONTDUMP 128u
/* Grows down to a fault below it (vma_stack_grow, Linux's VM_GROWSDOWN):
 * the main stack and MAP_GROWSDOWN mappings. */
#define VMA_GROWSDOWN 256u
/* The vDSO's image and data page (mm/vdso.c, Linux's special mappings):
 * pages from vdso_frame, never split or grown; [vvar] never writable. */
#define VMA_VDSO    512u
#define VMA_VVAR    1024u
#define VMA_SPECIAL (VMA_VDSO | VMA_VVAR)

/* Linux's vm.max_map_count: one more mapping is ENOMEM. */
#define VMA_MAX 65530

/* The first vma ending above addr (it may start above addr), or NULL. */
struct vma *vma_find(struct uvm *u, uint64_t addr);
/* The vma containing addr, or NULL. */
struct vma *vma_at(struct uvm *u, uint64_t addr);
/* The vma after v in address order, or NULL. */
struct vma *vma_next(struct uvm *u, struct vma *v);
/* Whether no vma meets [start, end). */
bool vma_range_free(struct uvm *u, uint64_t start, uint64_t end);

/*
 * Adds a copy of *tmpl (its range free), merged with equal neighbours; a
 * file is referenced anew.  Private writable pages are charged against
 * the commit limit.  0 or -ENOMEM (no memory, VMA_MAX, commit limit).
 */
int vma_insert(struct uvm *u, const struct vma *tmpl);
/* The same for anonymous memory mapped at once, zeroed (shared memory,
 * the heap): -ENOMEM, nothing done, if frames are short. */
int vma_insert_populated(struct uvm *u, const struct vma *tmpl);
/*
 * Takes [start, end) out of the list (splitting vmas that straddle it),
 * frees those vmas and unmaps their pages.  0, -EINVAL if the range is not
 * in user space, or -ENOMEM with nothing changed if a split finds no memory.
 */
int vma_remove(struct uvm *u, uint64_t start, uint64_t end);
/*
 * mprotect: gives the mapped parts of [start, end) prot, page tables too,
 * up to the first hole.  0; -ENOMEM at a hole (what came before it is
 * changed, as Linux); -EACCES for PROT_WRITE on a shared mapping of a
 * file not open for writing; -ENOMEM past the commit limit.
 */
int vma_protect(struct uvm *u, uint64_t start, uint64_t end, int prot);
/* Whether every vma in [start, end) allows some access (not PROT_NONE). */
bool vma_range_accessible(struct uvm *u, uint64_t start, uint64_t end);
/* Whether a vma in [start, end) has one of flags. */
bool vma_range_has(struct uvm *u, uint64_t start, uint64_t end, unsigned int flags);
/*
 * The mapped parts of [start, end) get value in their flag bits bits
 * (mlock's VMA_LOCKED | VMA_LOCKONFAULT, madvise's VMA_DONTDUMP),
 * splitting and merging vmas.  A hole is -ENOMEM: at once, with what came
 * before it changed (mlock), or, past_holes, after the rest is changed
 * too (madvise), as Linux; -ENOMEM also when a split finds no memory.
 */
int vma_set_bits(struct uvm *u, uint64_t start, uint64_t end, unsigned int bits, unsigned int value,
		 bool past_holes);
/* The same for every vma (mlockall, munlockall, a fork's copy): 0 or
 * -ENOMEM (the table could not be made the uvm's own). */
int vma_set_lock_all(struct uvm *u, unsigned int lock);
/*
 * Splits vmas so that start and end are boundaries (if mapped there):
 * 0 or -ENOMEM.  For callers that act on whole vmas of a range.
 */
int vma_split_range(struct uvm *u, uint64_t start, uint64_t end);
/*
 * Where a non-fixed mapping of len bytes goes: hint when [hint, hint+len)
 * is free, in user space and clear of a stack's guard gap (as Linux: even
 * above mmap_base), else the highest such gap below u->mmap_base and
 * above the heap.  0 if none.
 */
uint64_t vma_place(struct uvm *u, uint64_t len, uint64_t hint);
/*
 * A fault at va below the VMA_GROWSDOWN vma above it (the main stack or a
 * MAP_GROWSDOWN mapping): grows that vma down to va's
 * page (Linux's expand_downwards) and returns it, or NULL (SIGSEGV) when
 * va is below USER_IMAGE_MIN, the stack would pass limit (RLIMIT_STACK)
 * or come within STACK_GUARD_GAP of an accessible mapping below, or the
 * growth is refused its overcommit charge.
 */
struct vma *vma_stack_grow(struct uvm *u, uint64_t va, uint64_t limit);
/* mremap: v now covers [start, start + len) (free, but for v itself),
 * its pages moved there (the caller checked the charge): 0, or -ENOMEM
 * with nothing changed. */
int vma_move(struct uvm *u, struct vma *v, uint64_t start, uint64_t len);
/* Page-table flags for v's pages (protection, PTE_SHARED). */
uint64_t vma_pte_flags(const struct vma *v);
/* Pages of v charged to Committed_AS: private writable ones, unless
 * VMA_NORESERVE (mm/commit.h). */
int64_t vma_charge(const struct vma *v);

/* An empty table (one reference), or NULL. */
struct vma_table *vma_table_new(void);
/* fork: the child's table: t shared (copied at its first change), or a
 * copy if t holds vmas with ops or tracked ones (its space is set by the
 * caller: mm/uvm.c's fork_layout); NULL when memory runs out.  Under the
 * lock of t's uvm. */
struct vma_table *vma_table_fork(struct vma_table *t);
/* Drops a reference (NULL: nothing); the last frees the vmas. */
void vma_table_put(struct vma_table *t);
/* Live vmas in the system (leak accounting). */
unsigned long vma_count(void);

#endif
