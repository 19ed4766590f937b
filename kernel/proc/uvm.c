/*
 * User memory: demand faults (copy-on-write, stack growth), brk and
 * anonymous mmap/munmap/mprotect.  Page tables and frames are mm/'s; this
 * file only decides what a process may have where.  There is no list of
 * regions: every mapping is populated when it is made, so a page's
 * protection and whether it is shared live in its page-table entry.
 */
#include "proc/uvm.h"
#include "fs/inode.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "proc/oom.h"
#include "sched/sched.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

#define PF_PRESENT 1
#define PF_WRITE   2
#define PF_USER	   4

#define MAP_KNOWN  (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK)
#define PROT_KNOWN (PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM)

/* Resolves a fault: 0, -ENOMEM (no frame), or another error if the access
 * is invalid. */
static int resolve_fault(struct task *t, uint64_t va, uint64_t error)
{
	uint64_t flags;

	if (va >= USER_END)
		return -EFAULT;
	if ((error & PF_PRESENT) && (error & PF_WRITE)) {
		if (translate(t->vm, va, NULL, &flags) == 0 && (flags & PTE_COW))
			return vm_resolve_cow(t->vm, PAGE_ALIGN_DOWN(va));
		return -EFAULT;
	}
	if (!(error & PF_PRESENT) && va >= USER_STACK_BOTTOM && va < USER_STACK_TOP)
		return vm_map_anon(t->vm, PAGE_ALIGN_DOWN(va), PAGE_SIZE,
				   PTE_USER | PTE_WRITE | PTE_NX);
	return -EFAULT;
}

/*
 * A valid access that finds no frame is not the program's fault: the OOM
 * killer kills the biggest process and the program retries (SIGSEGV only
 * for an invalid access, a stack past its 8 MiB included).  A kernel copy
 * does not wait for the memory: it gets -EFAULT, as on Linux.
 */
bool uvm_handle_fault(struct task *t, uint64_t va, uint64_t error)
{
	int err = resolve_fault(t, va, error);

	if (err != -ENOMEM)
		return err == 0;
	if (!oom_kill() || !(error & PF_USER))
		return false;
	sched_yield(); /* let the victim run to its death */
	return true;
}

/* Page-table flags for prot.  x86 pages are always readable when present:
 * write or exec imply read, as on Linux. */
static uint64_t prot_to_pte(int prot)
{
	uint64_t f = PTE_USER;

	if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		f |= PTE_PROTNONE;
	if (prot & PROT_WRITE)
		f |= PTE_WRITE;
	if (!(prot & PROT_EXEC))
		f |= PTE_NX;
	return f;
}

struct uvm *uvm_create(struct vm_space *space)
{
	struct uvm *u = kzalloc(sizeof(*u));

	if (!u)
		return NULL;
	u->users = 1;
	spin_init(&u->lock, "uvm");
	u->space = space;
	u->mmap_next = USER_MMAP_TOP;
	return u;
}

struct uvm *uvm_fork(struct uvm *u)
{
	struct vm_space *space = vm_fork(u->space);
	struct uvm *copy = space ? uvm_create(space) : NULL;

	if (!copy) {
		if (space)
			vm_destroy(space);
		return NULL;
	}
	spin_lock(&u->lock);
	copy->brk_start = u->brk_start;
	copy->brk = u->brk;
	copy->mmap_next = u->mmap_next;
	spin_unlock(&u->lock);
	if ((copy->exe = u->exe))
		inode_get(copy->exe);
	if (u->exe_path && !(copy->exe_path = kstrdup(u->exe_path)))
		goto bad;
	if (u->cmdline && !(copy->cmdline = kmalloc(u->cmdline_len)))
		goto bad;
	if (u->cmdline)
		memcpy(copy->cmdline, u->cmdline, u->cmdline_len);
	copy->cmdline_len = u->cmdline_len;
	return copy;
bad:
	uvm_put(copy);
	return NULL;
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
	vm_destroy(u->space);
	if (u->exe)
		inode_put(u->exe);
	kfree(u->exe_path);
	kfree(u->cmdline);
	kfree(u);
}

/* brk under u->lock: threads move one break. */
static long brk_locked(struct uvm *u, uint64_t addr)
{
	uint64_t old_end = PAGE_ALIGN_UP(u->brk), new_end = PAGE_ALIGN_UP(addr);

	/* Linux returns the current break for any request it refuses. */
	if (addr < u->brk_start || new_end > u->mmap_next || new_end < addr)
		return (long)u->brk;
	if (new_end > old_end &&
	    (!frame_spare((new_end - old_end) / PAGE_SIZE) ||
	     vm_map_anon(u->space, old_end, new_end - old_end, PTE_USER | PTE_WRITE | PTE_NX)))
		return (long)u->brk;
	if (new_end < old_end)
		vm_unmap_range(u->space, new_end, old_end - new_end);
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

/* Picks where a non-fixed mapping of len bytes goes, or 0. */
static uint64_t mmap_place(struct uvm *u, uint64_t len)
{
	uint64_t start = 0;

	spin_lock(&u->lock);
	if (len <= u->mmap_next && u->mmap_next - len >= PAGE_ALIGN_UP(u->brk)) {
		start = u->mmap_next - len;
		u->mmap_next = start;
	}
	spin_unlock(&u->lock);
	return start;
}

static bool range_in_user(uint64_t addr, uint64_t len)
{
	return addr >= USER_IMAGE_MIN && addr < USER_STACK_BOTTOM &&
	       len <= USER_STACK_BOTTOM - addr;
}

SYSCALL_DEFINE6(mmap, uint64_t, addr, uint64_t, len, int, prot, int, flags, int, fd, int64_t, off)
{
	struct task *t = current();
	uint64_t start;

	(void)fd;
	if (!len || (flags & ~MAP_KNOWN) || (off & (int64_t)PAGE_MASK))
		return -EINVAL;
	if (!!(flags & MAP_SHARED) == !!(flags & MAP_PRIVATE))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return -ENODEV; /* no file-backed mappings in fdkernel */
	if (len > USER_END)
		return -ENOMEM;
	len = PAGE_ALIGN_UP(len);
	if (flags & MAP_FIXED) {
		if ((addr & PAGE_MASK) || !range_in_user(addr, len))
			return -EINVAL;
		vm_unmap_range(t->vm, addr, len);
		start = addr;
	} else if (!(start = mmap_place(t->uvm, len))) {
		return -ENOMEM;
	}
	/* The frame reserve is for the kernel, page faults and execve. */
	if (!frame_spare(len / PAGE_SIZE) ||
	    vm_map_anon(t->vm, start, len,
			prot_to_pte(prot) | (flags & MAP_SHARED ? PTE_SHARED : 0)))
		return -ENOMEM;
	return (long)start;
}

SYSCALL_DEFINE3(mprotect, uint64_t, addr, uint64_t, len, int, prot)
{
	/* Linux's order of checks: alignment, empty, wrap-around, prot. */
	if (addr & PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	if (PAGE_ALIGN_UP(len) < len || addr + PAGE_ALIGN_UP(len) <= addr)
		return -ENOMEM;
	if (prot & ~PROT_KNOWN)
		return -EINVAL; /* PROT_GROWSDOWN/UP too: no grows-down regions here */
	return vm_protect(current()->vm, addr, PAGE_ALIGN_UP(len), prot_to_pte(prot));
}

SYSCALL_DEFINE2(munmap, uint64_t, addr, uint64_t, len)
{
	if ((addr & PAGE_MASK) || !len || len > USER_END || addr >= USER_END ||
	    PAGE_ALIGN_UP(len) > USER_END - addr)
		return -EINVAL;
	vm_unmap_range(current()->vm, addr, PAGE_ALIGN_UP(len));
	return 0;
}
