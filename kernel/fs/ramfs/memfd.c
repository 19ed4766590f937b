/*
 * memfd_create and file sealing (docs/memfd.md).  A memfd is a ramfs
 * regular file that no directory names: it lives as long as an fd, a
 * mapping or a /proc/<pid>/fd opening holds its inode, and its pages are
 * charged to the ramfs size limit like any file's (ENOSPC), so memfds
 * cannot take memory without bound.  The seals are the inode's
 * (inode.h, file.seals); this file adds them, the ramfs enforces them.
 */
#include "fs/ramfs/memfd.h"
#include "fs/permission.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/fcntl.h>
#include <uapi/mman.h>

#define MFD_PREFIX     "memfd:"
#define MFD_PREFIX_LEN (sizeof(MFD_PREFIX) - 1)
#define MFD_KNOWN      (MFD_CLOEXEC | MFD_CLOFORK | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL | MFD_EXEC)
#define F_ALL_SEALS                                                                                \
	(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE |          \
	 F_SEAL_EXEC)
#define WRITE_SEALS (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

static unsigned long live_memfds; /* atomic */

unsigned long memfd_count(void)
{
	return __atomic_load_n(&live_memfds, __ATOMIC_RELAXED);
}

void memfd_inode_gone(void)
{
	__atomic_sub_fetch(&live_memfds, 1, __ATOMIC_RELAXED);
}

/* ---- The writable-mapping count (Linux's i_mmap_writable) ---- */

/* One more writable shared mapping, unless F_SEAL_WRITE denies them. */
static bool writable_get(struct inode *ip)
{
	int32_t n = __atomic_load_n(&RAMFS_I(ip)->file.mmap_writable, __ATOMIC_RELAXED);

	do {
		if (n < 0)
			return false;
	} while (!__atomic_compare_exchange_n(&RAMFS_I(ip)->file.mmap_writable, &n, n + 1, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return true;
}

/* F_SEAL_WRITE: denies writable shared mappings for good, unless one exists. */
static bool writable_deny(struct inode *ip)
{
	int32_t zero = 0;

	return __atomic_compare_exchange_n(&RAMFS_I(ip)->file.mmap_writable, &zero, -1, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static bool counts_writable(unsigned int vflags)
{
	return (vflags & (VMA_SHARED | VMA_MAYWRITE)) == (VMA_SHARED | VMA_MAYWRITE);
}

/* A vma exists only while its mmap's count or a copied vma's is held, so
 * the count is positive here and cannot be denied under it. */
void inode_mmap_writable_add(struct inode *ip, unsigned int vflags, int delta)
{
	if (counts_writable(vflags) && ramfs_is_file(ip))
		__atomic_add_fetch(&RAMFS_I(ip)->file.mmap_writable, delta, __ATOMIC_ACQ_REL);
}

int memfd_mmap_check(struct inode *ip, int prot, unsigned int *vflags)
{
	uint32_t seals;

	if (!(*vflags & VMA_SHARED) || !ramfs_is_file(ip))
		return 0; /* seals are the ramfs's */
	spin_lock(&ip->lock);
	seals = RAMFS_I(ip)->file.seals;
	spin_unlock(&ip->lock);
	if (seals & WRITE_SEALS) {
		if (prot & PROT_WRITE)
			return -EPERM;
		*vflags &= ~VMA_MAYWRITE;
	}
	if (counts_writable(*vflags) && !writable_get(ip))
		return -EPERM; /* F_SEAL_WRITE was added since */
	return 0;
}

void memfd_mmap_done(struct inode *ip, unsigned int vflags)
{
	inode_mmap_writable_add(ip, vflags, -1);
}

/* ---- fcntl ---- */

static long add_seals(struct file *f, unsigned long arg)
{
	struct inode *ip = f->inode;
	uint32_t seals = (uint32_t)arg; /* Linux reads an int: the upper half is ignored */
	long err = 0;

	if (!file_can_write(f))
		return -EPERM;
	if (seals & ~F_ALL_SEALS)
		return -EINVAL;
	if (!ip || !ramfs_is_file(ip) || !RAMFS_I(ip)->file.memfd)
		return -EINVAL;
	spin_lock(&ip->lock);
	/* F_SEAL_EXEC on an executable memfd makes it W^X: no writing either. */
	if ((seals & F_SEAL_EXEC) && (ip->mode & 0111))
		seals |= F_SEAL_SHRINK | F_SEAL_GROW | WRITE_SEALS;
	if (RAMFS_I(ip)->file.seals & F_SEAL_SEAL)
		err = -EPERM;
	else if ((seals & F_SEAL_WRITE) && !(RAMFS_I(ip)->file.seals & F_SEAL_WRITE) &&
		 !writable_deny(ip))
		err = -EBUSY; /* a shared mapping may still write */
	else
		RAMFS_I(ip)->file.seals |= seals;
	spin_unlock(&ip->lock);
	return err;
}

static long get_seals(struct file *f)
{
	struct inode *ip = f->inode;
	long seals;

	if (!ip || !ramfs_is_file(ip) || !RAMFS_I(ip)->file.memfd)
		return -EINVAL;
	spin_lock(&ip->lock);
	seals = RAMFS_I(ip)->file.seals;
	spin_unlock(&ip->lock);
	return seals;
}

long memfd_fcntl(struct file *f, unsigned int cmd, unsigned long arg)
{
	return cmd == F_ADD_SEALS ? add_seals(f, arg) : get_seals(f);
}

/* ---- memfd_create ---- */

/* "memfd:" + the user's name, kmalloc'd, in *out: 0, -EFAULT, -EINVAL
 * (longer than MFD_NAME_MAX_LEN), -ENOMEM. */
static long memfd_name(const char *uname, char **out)
{
	char *name = kmalloc(MFD_PREFIX_LEN + MFD_NAME_MAX_LEN + 1);
	long len;

	if (!name)
		return -ENOMEM;
	memcpy(name, MFD_PREFIX, MFD_PREFIX_LEN);
	len = strncpy_from_user(name + MFD_PREFIX_LEN, uname, MFD_NAME_MAX_LEN + 1);
	if (len < 0) {
		kfree(name);
		return len == -ENAMETOOLONG ? -EINVAL : len;
	}
	*out = name;
	return 0;
}

/* The unlinked inode of a new memfd: mode 0777, or 0666 sealed against
 * exec with MFD_NOEXEC_SEAL; sealable only if asked (else F_SEAL_SEAL). */
static struct inode *memfd_inode(unsigned int flags)
{
	struct inode *ip =
	    inode_alloc(internal_sb, S_IFREG | (flags & MFD_NOEXEC_SEAL ? 0666 : 0777), 0);

	if (!ip)
		return NULL;
	inode_init_owner(ip, NULL);
	RAMFS_I(ip)->file.memfd = true;
	if (flags & MFD_NOEXEC_SEAL)
		RAMFS_I(ip)->file.seals = F_SEAL_EXEC;
	else if (!(flags & MFD_ALLOW_SEALING))
		RAMFS_I(ip)->file.seals = F_SEAL_SEAL;
	__atomic_add_fetch(&live_memfds, 1, __ATOMIC_RELAXED);
	return ip;
}

SYSCALL_DEFINE2(memfd_create, const char *, uname, unsigned int, flags)
{
	struct inode *ip;
	struct file *f;
	char *name;
	long err;
	int fd;

	if (flags & ~MFD_KNOWN)
		return -EINVAL; /* MFD_HUGETLB included: no hugetlbfs */
	if ((flags & MFD_EXEC) && (flags & MFD_NOEXEC_SEAL))
		return -EINVAL;
	if ((err = memfd_name(uname, &name)))
		return err;
	if (!(ip = memfd_inode(flags))) {
		kfree(name);
		return -ENOMEM;
	}
	if ((err = vfs_open_inode(ip, O_RDWR, &f))) {
		inode_put(ip);
		kfree(name);
		return err;
	}
	f->name = name; /* no directory: /proc/<pid>/fd shows "/memfd:NAME (deleted)" */
	fd = fd_install_new(f, (flags & MFD_CLOEXEC ? O_CLOEXEC : 0) | (flags & MFD_CLOFORK));
	if (fd < 0)
		file_put(f); /* drops the inode and the name */
	return fd;
}
