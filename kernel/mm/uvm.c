/*
 * User memory: the uvm's life (create, fork, share, put), page faults
 * resolved from the mapping list (first touch, copy-on-write) and brk.
 * Page tables and frames are mm/'s; the mapping list is mm/vma.c; the
 * mmap family of calls is mm/mmap.c.
 */
#include "mm/uvm.h"
#include "fs/inode.h"
#include "lib/string.h"
#include "mm/commit.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include "mm/rmap.h"
#include "proc/coredump.h"
#include "proc/exec.h"
#include "mm/oom.h"
#include "proc/group.h"
#include "proc/rlimit.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "mm/vdso.h"
#include "mm/vma.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>
#include <uapi/signal.h>

#define PF_PRESENT 1
#define PF_WRITE   2
#define PF_USER	   4
#define PF_INSTR   16

/* Whether v allows the access the fault's error code describes. */
static bool access_allowed(const struct vma *v, uint64_t error)
{
	if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return false;
	if ((error & PF_WRITE) && !(v->prot & PROT_WRITE))
		return false;
	return !(error & PF_INSTR) || (v->prot & PROT_EXEC);
}

/* A zeroed frame for a user page, not taken from the kernel's reserve. */
static uint64_t user_zeroed_frame(void)
{
	return frame_spare(1) ? frame_zalloc() : 0;
}

/*
 * The frame for page va of file mapping v, referenced: always the file's
 * own, a hole filled first, as Linux's tmpfs fault (shmem_fault) does for
 * private mappings too: the page is then in the file's cache, where
 * mincore finds it for every process mapping the file.  0 with *err:
 * -EIO past the end of the file or with the ramfs full (SIGBUS, as Linux),
 * -EAGAIN for a disk file's page that is not in memory (the caller reads
 * it with the lock dropped: prepare_file_page).
 */
static uint64_t file_frame(struct vma *v, uint64_t va, int *err)
{
	uint64_t off = v->off + (va - v->start), pa;

	*err = -EIO;
	if (off >= inode_size(v->file))
		return 0;
	if (!(pa = inode_page_fill_ref(v->file, off / PAGE_SIZE)) && v->file->op->page_prepare)
		*err = -EAGAIN;
	return pa;
}

/*
 * Under u->lock, after fault_in_page's -EAGAIN for page va of v: reads
 * the file's page into its cache with the lock dropped (the read
 * sleeps; the inode is held meanwhile, as v may go), then takes the lock
 * again for the caller to retry: 0 or -EIO, -ENOMEM.  v may be gone
 * after it.
 */
static int prepare_file_page(struct uvm *u, struct vma *v, uint64_t va)
{
	struct inode *ip = v->file;
	size_t idx = (v->off + (va - v->start)) / PAGE_SIZE;
	int err;

	inode_get(ip);
	spin_unlock(&u->lock);
	err = ip->op->page_prepare(ip, idx);
	inode_put(ip);
	spin_lock(&u->lock);
	return err;
}

/* Reads before a fault gives up on a page reclaimed as soon as read
 * (memory that tight goes to the OOM path: -ENOMEM). */
#define PREPARE_TRIES 8

/* Page va of the tracked v is written: its file's page is dirty again
 * (after its entry became writable: a write-back in between cleans the
 * entry again, rmap.h). */
static void tracked_write(struct vma *v, uint64_t va)
{
	v->file->op->page_mkwrite(v->file, (v->off + (va - v->start)) / PAGE_SIZE);
}

/* Maps page va of v on its first touch (by a write if write: a tracked
 * page is mapped writable only then).  0 or -errno (see file_frame). */
static int fault_in_page(struct uvm *u, struct vma *v, uint64_t va, bool write)
{
	uint64_t flags = vma_pte_flags(v), pa;
	int err = -ENOMEM;

	if (v->flags & VMA_SPECIAL)
		err = (pa = vdso_frame(u, v, va)) ? 0 : -EIO;
	else
		pa = v->file ? file_frame(v, va, &err) : user_zeroed_frame();
	if (!pa)
		return err;
	/* The file's frame (or the vDSO's) is read-only to a private mapping:
	 * a write copies. */
	if ((v->file || (v->flags & VMA_SPECIAL)) && !(v->flags & VMA_SHARED) &&
	    (flags & PTE_WRITE))
		flags = (flags & ~PTE_WRITE) | PTE_COW;
	/* A shared one writes the file's page: its cache must know. */
	bool tracked = write && vma_tracks_dirty(v);
	if (tracked)
		flags |= PTE_WRITE;
	if ((err = map_page(u->space, va, pa, flags)))
		frame_unref(pa);
	else if (tracked)
		tracked_write(v, va);
	return err;
}

#define POPULATE_BATCH 64 /* pages per hold of the uvm lock */

/* Under u->lock: maps pages of v from *va up to stop (POPULATE_BATCH at
 * most), advancing *va to the first page not mapped.  0, -ENOMEM, -EIO
 * (the file ends), -EAGAIN (*va's file page needs reading). */
static int populate_batch(struct uvm *u, struct vma *v, uint64_t *va, uint64_t stop)
{
	uint64_t flags;
	int err;

	if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC))) {
		*va = stop; /* nothing may touch it: nothing to map */
		return 0;
	}
	for (int n = 0; *va < stop && n < POPULATE_BATCH; *va += PAGE_SIZE, n++)
		if (translate(u->space, *va, NULL, &flags) &&
		    (err = fault_in_page(u, v, *va, false)) && err != -EEXIST)
			return err;
	return 0;
}

int uvm_populate(struct uvm *u, uint64_t start, uint64_t end)
{
	uint64_t va = start;
	struct vma *v;
	int err = 0, tries = 0;

	while (va < end && !err) {
		spin_lock(&u->lock);
		if (!(v = vma_find(u, va)) || v->start >= end) {
			spin_unlock(&u->lock);
			break;
		}
		va = va > v->start ? va : v->start;
		uint64_t stop = v->end < end ? v->end : end, from = va;
		err = populate_batch(u, v, &va, stop);
		tries = va == from ? tries + 1 : 0;
		if (err == -EAGAIN)
			err = tries > PREPARE_TRIES ? -ENOMEM : prepare_file_page(u, v, va);
		spin_unlock(&u->lock);
		if (err == -EIO) { /* past the end of the file: the rest of v too */
			va = stop;
			err = 0;
		}
		cond_resched();
		if (signal_pending())
			break; /* a kill need not wait for gigabytes */
	}
	return err;
}

/* A write to the present read-only page va of a shared mapping: a
 * tracked page written again after its write-back (rmap.h) becomes
 * writable and dirty.  0 (the write is retried) or -EFAULT. */
static int shared_write_fault(struct uvm *u, uint64_t va, uint64_t error)
{
	struct vma *v;
	int err = -EFAULT;

	spin_lock(&u->lock);
	v = vma_at(u, va);
	if (v && access_allowed(v, error) && vma_tracks_dirty(v)) {
		err = 0;
		if (vm_page_mkwrite(u->space, va)) /* else unmapped meanwhile: faults anew */
			tracked_write(v, va);
	}
	spin_unlock(&u->lock);
	return err;
}

/* 0, -ENOMEM (no frame), -EIO (SIGBUS) or -EFAULT (SIGSEGV). */
static int resolve_fault(struct task *t, uint64_t va, uint64_t error)
{
	struct uvm *u = t->uvm;
	uint64_t flags;
	struct vma *v;
	int err = -EFAULT;

	if (va >= USER_END || !u) /* no user memory: exiting */
		return -EFAULT;
	va = PAGE_ALIGN_DOWN(va);
	/* A present page: copy-on-write or a protection fault.  PTE_COW is
	 * only ever on a page its vma lets write (mprotect clears it), so
	 * the fast path of fork's faults needs no vma. */
	if (error & PF_PRESENT) {
		if (!(error & PF_WRITE) || translate(u->space, va, NULL, &flags))
			return err;
		if (flags & PTE_COW)
			return vm_resolve_cow(u->space, va);
		/* Writable now: another thread broke the COW, or mprotect
		 * allowed writes, while this CPU held the old entry (since
		 * shot down).  The write is retried. */
		if (flags & PTE_WRITE)
			return 0;
		return flags & PTE_SHARED ? shared_write_fault(u, va, error) : err;
	}
	spin_lock(&u->lock);
	for (int tries = 0;; tries++) {
		err = -EFAULT;
		v = vma_find(u, va);
		if (v && v->start > va && (v->flags & VMA_GROWSDOWN))
			v = vma_stack_grow(u, va, rlimit_soft(t->group, RLIMIT_STACK));
		/* A private write faults again to copy. */
		if (v && v->start <= va && access_allowed(v, error))
			err = fault_in_page(u, v, va, error & PF_WRITE);
		if (err != -EAGAIN)
			break;
		if (tries == PREPARE_TRIES) {
			err = -ENOMEM;
			break;
		}
		if ((err = prepare_file_page(u, v, va)))
			break;
	}
	spin_unlock(&u->lock);
	return err;
}

/*
 * A valid access that finds no frame is not the program's fault: the OOM
 * killer kills the biggest process and the program retries (SIGSEGV only
 * for an invalid access, a stack past RLIMIT_STACK or its guard gap
 * included).  A kernel copy
 * does not wait for the memory: it gets -EFAULT, as on Linux.
 */
int uvm_handle_fault(struct task *t, uint64_t va, uint64_t error)
{
	int err = resolve_fault(t, va, error);

	if (err == -EEXIST) /* another thread mapped it first */
		return 0;
	if (err != -ENOMEM)
		return !err ? 0 : err == -EIO ? SIGBUS : SIGSEGV;
	if (!oom_kill() || !(error & PF_USER))
		return SIGSEGV;
	sched_yield(); /* let the victim run to its death */
	return 0;
}

/* A uvm around space and the mapping table vt (taking both over), or
 * NULL (nothing taken). */
static struct uvm *uvm_alloc(struct vm_space *space, struct vma_table *vt)
{
	struct uvm *u = vt ? kzalloc(sizeof(*u)) : NULL;

	if (!u)
		return NULL;
	u->users = 1;
	spin_init(&u->lock, "uvm");
	u->space = space;
	u->vt = vt;
	u->mmap_base = USER_STACK_TOP - MMAP_GAP_MIN; /* exec sets its own */
	u->dumpable = 1;
	u->dump_filter = COREDUMP_FILTER_DEFAULT;
	return u;
}

struct uvm *uvm_create(struct vm_space *space)
{
	struct vma_table *vt = vma_table_new();
	struct uvm *u = uvm_alloc(space, vt);

	if (!u)
		vma_table_put(vt);
	else
		vt->space = space;
	return u;
}

/* No lock: nothing else can see a space exec is building. */
int uvm_add_vma(struct uvm *u, const struct vma *tmpl)
{
	return vma_range_free(u, tmpl->start, tmpl->end) ? vma_insert(u, tmpl) : -EEXIST;
}

/*
 * Whether a fork may charge a copy of u's mappings (Linux's dup_mmap
 * charges each one): strict overcommit checks the whole charge; the
 * heuristic refuses a mapping larger than RAM + swap, which only a
 * charge that large can hold.
 */
static bool fork_commit_ok(struct uvm *u)
{
	struct vma *v;

	if (vm_commit_allowed((int64_t)u->vt->committed))
		return true;
	if (__atomic_load_n(&vm_overcommit_memory, __ATOMIC_RELAXED) != OVERCOMMIT_GUESS)
		return false;
	for (v = vma_find(u, 0); v; v = vma_next(u, v))
		if (!vm_commit_allowed(vma_charge(v)))
			return false;
	return true;
}

/* The child's page tables for fork_layout, and with them the space of
 * vt, u's table's copy if it holds tracked vmas: under rmap_lock, so no
 * write-back cleans a page between the entries' copy and the child's
 * vmas finding them (rmap.h). */
static struct vm_space *fork_space(struct uvm *u, struct vma_table *vt)
{
	bool tracked = vt->with_rmap;
	struct vm_space *space;

	if (tracked)
		rmap_lock();
	if ((space = vm_fork(u->space)) && tracked)
		vt->space = space;
	if (tracked)
		rmap_unlock();
	return space;
}

/* fork's copy of the layout, or NULL: under u->lock, so no thread maps
 * or faults between the page-table copy and sharing the mapping table. */
static struct uvm *fork_layout(struct uvm *u)
{
	struct vma_table *vt = fork_commit_ok(u) ? vma_table_fork(u->vt) : NULL;
	struct vm_space *space = vt ? fork_space(u, vt) : NULL;
	struct uvm *copy = space ? uvm_alloc(space, vt) : NULL;

	if (!copy) {
		vma_table_put(vt); /* not the last if shared: u holds it */
		if (space)
			vm_destroy(space);
		return NULL;
	}
	copy->brk_start = u->brk_start;
	copy->brk = u->brk;
	copy->mmap_base = u->mmap_base;
	copy->timens = u->timens;
	copy->dumpable = __atomic_load_n(&u->dumpable, __ATOMIC_RELAXED);
	copy->dump_filter = __atomic_load_n(&u->dump_filter, __ATOMIC_RELAXED);
	memcpy(copy->saved_auxv, u->saved_auxv, sizeof(u->saved_auxv));
	vm_commit_add((int64_t)copy->vt->committed);
	return copy;
}

struct uvm *uvm_fork(struct uvm *u)
{
	struct uvm *copy;

	spin_lock(&u->lock);
	copy = fork_layout(u);
	spin_unlock(&u->lock);
	if (!copy)
		goto bad;
	/* Memory locks are not inherited (copy is private yet: no lock). */
	if (__atomic_load_n(&u->ever_locked, __ATOMIC_RELAXED) && vma_set_lock_all(copy, 0))
		goto bad;
	if ((copy->exe = u->exe)) {
		inode_get(copy->exe);
		/* Cannot fail: u's own denial keeps writers out. */
		inode_deny_write_access(copy->exe);
	}
	if (u->exe_path && !(copy->exe_path = kstrdup(u->exe_path)))
		goto bad;
	if ((copy->interp = u->interp))
		inode_get(copy->interp);
	if (u->interp_path && !(copy->interp_path = kstrdup(u->interp_path)))
		goto bad;
	if (!uvm_keep_text(&copy->cmdline, &copy->cmdline_len, u->cmdline, u->cmdline_len) ||
	    !uvm_keep_text(&copy->environ, &copy->environ_len, u->environ, u->environ_len))
		goto bad;
	return copy;
bad:
	uvm_put(copy);
	return NULL;
}

bool uvm_keep_text(char **dst, size_t *dst_len, const char *src, size_t len)
{
	if (len > UVM_CMDLINE_MAX)
		len = UVM_CMDLINE_MAX;
	*dst = NULL;
	*dst_len = 0;
	if (!len)
		return true;
	if (!(*dst = kmalloc(len)))
		return false;
	memcpy(*dst, src, len);
	*dst_len = len;
	return true;
}

struct uvm *uvm_share(struct uvm *u)
{
	__atomic_add_fetch(&u->users, 1, __ATOMIC_RELAXED);
	return u;
}

void uvm_put(struct uvm *u)
{
	if (!u || __atomic_sub_fetch(&u->users, 1, __ATOMIC_ACQ_REL))
		return;
	vm_commit_add(-(int64_t)u->vt->committed);
	vma_table_put(u->vt); /* first: a tracked vma's space outlives it (rmap.h) */
	vm_destroy(u->space);
	if (u->exe)
		exe_inode_put(u->exe);
	kfree(u->exe_path);
	if (u->interp)
		inode_put(u->interp);
	kfree(u->interp_path);
	kfree(u->cmdline);
	kfree(u->environ);
	kfree(u);
}

bool uvm_range_ok(uint64_t addr, uint64_t len)
{
	return addr >= USER_IMAGE_MIN && addr < USER_STACK_TOP && len <= USER_STACK_TOP - addr;
}

void uvm_set_mmap_base(struct uvm *u, uint64_t stack_limit, const struct uvm_layout *l)
{
	uint64_t gap = stack_limit, pad = STACK_GUARD_GAP + l->stack_rnd_max;

	if (gap + pad > gap) /* a limit near RLIM_INFINITY would wrap */
		gap += pad;
	if (gap < MMAP_GAP_MIN)
		gap = MMAP_GAP_MIN;
	else if (gap > MMAP_GAP_MAX)
		gap = MMAP_GAP_MAX;
	u->mmap_base = PAGE_ALIGN_UP(USER_STACK_TOP - gap - l->mmap_rnd);
}

/* brk under u->lock: threads move one break.  The heap is one vma grown
 * and shrunk at its end; growth is mapped at once, as before the mapping
 * list (no fault per heap page), and refused rather than take the frame
 * reserve. */
static long brk_locked(struct uvm *u, uint64_t addr)
{
	uint64_t old_end = PAGE_ALIGN_UP(u->brk), new_end = PAGE_ALIGN_UP(addr);
	struct vma heap = {.start = old_end,
			   .end = new_end,
			   .prot = PROT_READ | PROT_WRITE,
			   .flags = VMA_HEAP | u->lock_future}; /* populated anyway */

	/* Linux returns the current break for any request it refuses. */
	if (addr < u->brk_start || new_end < addr || new_end > u->mmap_base)
		return (long)u->brk;
	if (new_end > old_end &&
	    (!vma_range_free(u, old_end, new_end) || vma_insert_populated(u, &heap)))
		return (long)u->brk;
	if (new_end < old_end && vma_remove(u, new_end, old_end))
		return (long)u->brk;
	u->brk = addr;
	return (long)addr;
}

SYSCALL_DEFINE1(brk, uint64_t, addr)
{
	struct uvm *u = current()->uvm;
	long ret;

	spin_lock(&u->lock);
	ret = brk_locked(u, addr);
	spin_unlock(&u->lock);
	return ret;
}
