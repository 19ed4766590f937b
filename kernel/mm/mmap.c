/*
 * mmap, munmap and mprotect: argument checks in Linux's order, then the
 * mapping list (mm/vma.c) under the uvm lock.  Anonymous private and
 * file mappings are filled on first touch (mm/uvm.c).  Anonymous shared
 * memory is a file of its own, so a fork before the first touch shares
 * the pages touched after.  /dev/zero maps as anonymous memory (file_ops
 * mmap_anonymous).
 */
#include "fs/atime.h"
#include "fs/file.h"
#include "fs/mount.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/ramfs/memfd.h"
#include "fs/super.h"
#include "mm/commit.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/mman.h>

/* Flags with a meaning here or none on x86 (Linux ignores them too). */
#define MAP_IGNORED                                                                                \
	(MAP_NORESERVE | MAP_DENYWRITE | MAP_EXECUTABLE | MAP_LOCKED | MAP_POPULATE |              \
	 MAP_NONBLOCK | MAP_STACK)

/* The lock bits a new mapping gets: mlockall(MCL_FUTURE)'s, MAP_LOCKED's
 * (u locked). */
static unsigned int mapping_lock(struct uvm *u, int flags)
{
	unsigned int lock = u->lock_future | (flags & MAP_LOCKED ? VMA_LOCKED : 0);

	if (lock)
		u->ever_locked = true;
	return lock;
}

/* A locked mapping is populated at once (unless on fault), and so is one
 * asked for with MAP_POPULATE; best effort, as Linux's mm_populate: the
 * mapping stands even if memory runs out first. */
static void mapping_populate(struct uvm *u, const struct vma *v, int flags)
{
	if (((v->flags & VMA_LOCKED) && !(v->flags & VMA_LOCKONFAULT)) ||
	    ((flags & MAP_POPULATE) && !(flags & MAP_NONBLOCK)))
		uvm_populate(u, v->start, v->end);
}
#define MAP_KNOWN                                                                                  \
	(MAP_TYPE | MAP_FIXED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN | MAP_IGNORED)
#define PROT_KNOWN (PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM)

/*
 * The mapping's kind from flags and, for a file, its fd (f referenced):
 * VMA_* flags in *tmpl.  -EINVAL, -EACCES, -ENODEV, -EOPNOTSUPP, or
 * -EPERM (a sealed memfd).  A writable shared file mapping holds a count
 * on the file's writable mappings until memfd_mmap_done.
 */
static int mapping_kind(int flags, int prot, struct file *f, struct vma *tmpl, uint64_t len)
{
	int type = flags & MAP_TYPE;
	int err;

	if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (type == MAP_SHARED_VALIDATE && (flags & ~MAP_KNOWN))
		return -EOPNOTSUPP;
	if (flags & ~MAP_KNOWN)
		return -EINVAL; /* Linux ignores them; fdkernel refuses what it lacks */
	tmpl->flags = type == MAP_PRIVATE ? 0 : VMA_SHARED;
	/* Strict overcommit charges even MAP_NORESERVE (as Linux). */
	if ((flags & MAP_NORESERVE) &&
	    __atomic_load_n(&vm_overcommit_memory, __ATOMIC_RELAXED) != OVERCOMMIT_NEVER)
		tmpl->flags |= VMA_NORESERVE;
	if (!f) {
		/* Only private anonymous memory grows down (Linux). */
		if ((flags & MAP_GROWSDOWN) && (tmpl->flags & VMA_SHARED))
			return -EINVAL;
		tmpl->flags |= tmpl->flags & VMA_SHARED ? VMA_MAYWRITE : 0;
		tmpl->flags |= flags & MAP_GROWSDOWN ? VMA_GROWSDOWN : 0;
		return 0;
	}
	if ((tmpl->flags & VMA_SHARED) && (prot & PROT_WRITE) &&
	    (!file_can_write(f) || (f->flags & O_APPEND)))
		return -EACCES;
	if (!file_can_read(f))
		return -EACCES;
	if ((tmpl->flags & VMA_SHARED) && file_can_write(f) && !(f->flags & O_APPEND))
		tmpl->flags |= VMA_MAYWRITE;
	if (f->ops->mmap_region && !(flags & MAP_GROWSDOWN)) /* io_uring's rings */
		return (tmpl->file = f->ops->mmap_region(f, &tmpl->off, len)) ? 0 : -EINVAL;
	if (!f->ops->mmap_anonymous && (!f->inode || !inode_is_reg(f->inode)))
		return -ENODEV; /* pipes, sockets, other devices, directories */
	if (flags & MAP_GROWSDOWN)
		return -EINVAL; /* a file mapping never grows, /dev/zero's neither (Linux) */
	if (f->ops->mmap_anonymous)
		return 0; /* /dev/zero: anonymous, writable later only if the fd is */
	if ((prot & PROT_EXEC) && (path_mnt_flags(&(struct path){f->mnt, f->inode}) & MNT_NOEXEC))
		return -EPERM; /* Linux's path_noexec */
	tmpl->file = f->inode;
	if ((err = memfd_mmap_check(f->inode, prot, &tmpl->flags))) /* a memfd's seals */
		return err;
	file_accessed(f); /* as Linux's generic_file_mmap */
	return 0;
}

/* Where the mapping goes (u locked): its start in *start, or -errno.  A
 * fixed one first unmaps what is there. */
static int mapping_place(struct uvm *u, uint64_t addr, uint64_t len, int flags, uint64_t *start)
{
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (len > USER_STACK_TOP || addr > USER_STACK_TOP - len)
			return -ENOMEM; /* Linux's order: past the top, then unaligned */
		if ((addr & PAGE_MASK) || !uvm_range_ok(addr, len))
			return -EINVAL;
		*start = addr;
		if (flags & MAP_FIXED)
			return vma_remove(u, addr, addr + len);
		return vma_range_free(u, addr, addr + len) ? 0 : -EEXIST;
	}
	return (*start = vma_place(u, len, addr)) ? 0 : -ENOMEM;
}

/*
 * Shared anonymous memory (MAP_SHARED of MAP_ANONYMOUS or /dev/zero) maps
 * an unlinked ramfs file of len bytes, as Linux's shmem_zero_setup: pages
 * come at the first touch, a fork shares them, and maps names it as Linux
 * does.  The file is *anon, one reference the caller drops once the vma
 * holds its own.  0 or -ENOMEM.
 */
static int shared_anon_file(struct vma *tmpl, int prot, uint64_t len, struct inode **anon)
{
	struct inode *ip = inode_alloc(internal_sb, S_IFREG | 0777, 0);

	if (!ip)
		return -ENOMEM;
	if (inode_truncate(ip, len) || !(tmpl->name = vma_name_new("/dev/zero (deleted)"))) {
		inode_put(ip);
		return -ENOMEM;
	}
	*anon = tmpl->file = ip;
	tmpl->off = 0;
	return memfd_mmap_check(ip, prot, &tmpl->flags); /* counts the writable mapping */
}

/* The name /proc/<pid>/maps gives the mapping of f: its fd link's text
 * (a path, "/memfd:x (deleted)", "anon_inode:[io_uring]"), taken before
 * the uvm's lock (it sleeps).  0 or -ENOMEM. */
static int mapping_name(struct file *f, struct vma *tmpl)
{
	char *buf = kmalloc(PATH_MAX);
	long err = buf ? file_path_text(f, buf) : -ENOMEM;

	if (!err && !(tmpl->name = vma_name_new(buf)))
		err = -ENOMEM;
	kfree(buf);
	return err == -ENOMEM ? -ENOMEM : 0; /* a file without a path: no name */
}

static long do_mmap(uint64_t addr, uint64_t len, int prot, int flags, struct file *f, uint64_t off)
{
	struct uvm *u = current()->uvm;
	struct vma tmpl = {.prot = prot & ~PROT_SEM, .off = off};
	struct inode *anon = NULL;
	int err;

	if (!len)
		return -EINVAL;
	if (len > USER_END)
		return -ENOMEM;
	len = PAGE_ALIGN_UP(len);
	if (off + len < off)
		return -EOVERFLOW;
	if ((err = mapping_kind(flags, prot, f, &tmpl, len)))
		return err;
	if (!tmpl.file && (tmpl.flags & VMA_SHARED))
		err = shared_anon_file(&tmpl, prot, len, &anon);
	else if (tmpl.file)
		err = mapping_name(f, &tmpl);
	if (!err) {
		spin_lock(&u->lock);
		err = mapping_place(u, addr, len, flags, &tmpl.start);
		tmpl.end = tmpl.start + len;
		tmpl.flags |= mapping_lock(u, flags);
		if (!err)
			err = vma_insert(u, &tmpl);
		spin_unlock(&u->lock);
	}
	if (tmpl.file) /* the vma holds its own counts now, if it was made */
		memfd_mmap_done(tmpl.file, tmpl.flags);
	if (anon)
		inode_put(anon);
	if (tmpl.name)
		vma_name_put(tmpl.name);
	if (!err)
		mapping_populate(u, &tmpl, flags);
	return err ? err : (long)tmpl.start;
}

SYSCALL_DEFINE6(mmap, uint64_t, addr, uint64_t, len, int, prot, int, flags, int, fd, int64_t, off)
{
	struct file *f = NULL;
	long ret;

	if (off & (int64_t)PAGE_MASK)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS) && !(f = files_lookup(current()->files, fd)))
		return -EBADF;
	ret = do_mmap(addr, len, prot, flags, f, f ? (uint64_t)off : 0);
	if (f)
		file_put(f);
	return ret;
}

/*
 * PROT_GROWSDOWN (u locked): the change starts at the bottom of the
 * grows-down vma at *start (the stack, a MAP_GROWSDOWN mapping), as Linux;
 * -ENOMEM if no vma meets [*start, end), -EINVAL if it does not grow.  PROT_GROWSUP: -EINVAL
 * (nothing grows up on x86), after the same -ENOMEM.
 */
static int grows_start(struct uvm *u, uint64_t *start, uint64_t end, int grows)
{
	struct vma *v = vma_find(u, *start);

	if (!v || v->start >= end || (!(grows & PROT_GROWSDOWN) && v->start > *start))
		return -ENOMEM;
	if (!(grows & PROT_GROWSDOWN) || !(v->flags & VMA_GROWSDOWN))
		return -EINVAL;
	*start = v->start;
	return 0;
}

SYSCALL_DEFINE3(mprotect, uint64_t, addr, uint64_t, len, int, prot)
{
	struct uvm *u = current()->uvm;
	int grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP), err = 0;

	/* Linux's order of checks: both grows, alignment, empty, wrap-around, prot. */
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP) || (addr & PAGE_MASK))
		return -EINVAL;
	if (!len)
		return 0;
	if (PAGE_ALIGN_UP(len) < len || addr + PAGE_ALIGN_UP(len) <= addr)
		return -ENOMEM;
	if ((prot &= ~grows) & ~PROT_KNOWN)
		return -EINVAL;
	len = PAGE_ALIGN_UP(len);
	spin_lock(&u->lock);
	if (grows)
		err = grows_start(u, &addr, addr + len, grows);
	if (!err)
		err = vma_protect(u, addr, addr + len, prot & ~PROT_SEM);
	spin_unlock(&u->lock);
	return err;
}

SYSCALL_DEFINE2(munmap, uint64_t, addr, uint64_t, len)
{
	struct uvm *u = current()->uvm;
	int err;

	if ((addr & PAGE_MASK) || !len || len > USER_END || addr >= USER_END ||
	    PAGE_ALIGN_UP(len) > USER_END - addr)
		return -EINVAL;
	spin_lock(&u->lock);
	err = vma_remove(u, addr, addr + PAGE_ALIGN_UP(len));
	spin_unlock(&u->lock);
	return err;
}
