/*
 * memfd: an unlinked ramfs file behind an fd, with Linux's file seals
 * (docs/memfd.md).  The seals live on the inode (fs/ramfs/ramfs.h, file.seals):
 * the ramfs checks them where data and size change, mmap where a shared
 * mapping could write, chmod where the exec bits change.
 */
#ifndef FS_MEMFD_H
#define FS_MEMFD_H

#include "fs/ramfs/ramfs.h"
#include <uapi/errno.h>
#include <uapi/memfd.h>

struct file;

/* Under ip->lock: -EPERM when the seals refuse writing len bytes at off
 * (any write under F_SEAL_WRITE or F_SEAL_FUTURE_WRITE; one that would
 * grow the file under F_SEAL_GROW), else 0. */
static inline int seals_deny_write(const struct inode *ip, uint64_t off, size_t len)
{
	uint32_t s = RAMFS_I(ip)->file.seals;

	if (__builtin_expect(!s, 1))
		return 0;
	if ((s & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) ||
	    ((s & F_SEAL_GROW) && off + len > ip->size))
		return -EPERM;
	return 0;
}

/* Under ip->lock: -EPERM when the seals refuse changing the size to size. */
static inline int seals_deny_resize(const struct inode *ip, uint64_t size)
{
	uint32_t s = RAMFS_I(ip)->file.seals;

	if ((size < ip->size && (s & F_SEAL_SHRINK)) || (size > ip->size && (s & F_SEAL_GROW)))
		return -EPERM;
	return 0;
}

/* Under ip->lock: -EPERM when F_SEAL_EXEC fixes the exec bits mode changes. */
static inline int seals_deny_chmod(const struct inode *ip, uint32_t mode)
{
	if ((RAMFS_I(ip)->file.seals & F_SEAL_EXEC) && ((ip->mode ^ mode) & 0111))
		return -EPERM;
	return 0;
}

/*
 * mmap of a regular file, shared: *vflags (VMA_*) as mapping_kind made
 * them.  Refuses PROT_WRITE under a write seal (-EPERM) and drops
 * VMA_MAYWRITE there (mprotect cannot add it later: EACCES); a mapping
 * that keeps VMA_MAYWRITE takes a count on the file's mmap_writable
 * (-EPERM if F_SEAL_WRITE came first), which the caller gives back with
 * memfd_mmap_done once its vma holds its own.
 */
int memfd_mmap_check(struct inode *ip, int prot, unsigned int *vflags);
void memfd_mmap_done(struct inode *ip, unsigned int vflags);
/* A vma's count on its file's writable mappings (vflags: its VMA_*). */
void inode_mmap_writable_add(struct inode *ip, unsigned int vflags, int delta);

/* fcntl F_ADD_SEALS and F_GET_SEALS on f. */
long memfd_fcntl(struct file *f, unsigned int cmd, unsigned long arg);
/* memfds alive (leak accounting): their inodes. */
unsigned long memfd_count(void);
/* The last reference to a memfd's inode went (ramfs_file.c). */
void memfd_inode_gone(void);

#endif
