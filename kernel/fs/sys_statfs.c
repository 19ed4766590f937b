/*
 * statfs/fstatfs, /proc/<pid>/mounts and mountinfo, /proc/filesystems
 * and /proc/partitions: fdkernel has one file system, the
 * ramfs mounted at /, which reports itself as Linux's tmpfs does (its size
 * limit and the pages in use).  Pipes, sockets and epoll files answer
 * with the magic numbers of Linux's pseudo file systems.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/ramfs/ramfs_space.h"
#include "fs/snapshot.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/stat.h>

#define TMPFS_MAGIC	 0x01021994
#define PIPEFS_MAGIC	 0x50495045
#define SOCKFS_MAGIC	 0x534f434b
#define ANON_INODE_MAGIC 0x09041934
#define ST_VALID	 0x0020 /* f_flags is meaningful */

/* Linux's struct statfs on x86_64. */
struct statfs_k {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags, f_spare[4];
};

/* The ramfs: blocks are pages of its size limit; no inode limit, so
 * f_files and f_ffree are 0, as tmpfs with nr_inodes=0. */
static void ramfs_statfs(struct statfs_k *st)
{
	size_t max = ramfs_pages_max(), used = ramfs_pages_used();

	memset(st, 0, sizeof(*st));
	st->f_type = TMPFS_MAGIC;
	st->f_bsize = st->f_frsize = PAGE_SIZE;
	st->f_blocks = max;
	st->f_bfree = st->f_bavail = used < max ? max - used : 0;
	st->f_namelen = NAME_MAX;
	st->f_flags = ST_VALID;
}

static long put_statfs(struct statfs_k *st, void *ubuf)
{
	return copy_to_user(ubuf, st, sizeof(*st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(statfs, const char *, upath, void *, ubuf)
{
	struct statfs_k st;
	struct inode *ip;
	long err = upath_lookup(AT_FDCWD, upath, false, &ip);

	if (err)
		return err;
	inode_put(ip);
	ramfs_statfs(&st);
	return put_statfs(&st, ubuf);
}

/* A file without an inode is a pipe, a socket or an anonymous one
 * (epoll): its type says which, as its stat shows it. */
SYSCALL_DEFINE2(fstatfs, int, fd, void *, ubuf)
{
	struct file *f = files_lookup_raw(current()->files, fd); /* O_PATH too */
	struct uapi_stat ust = {0};
	struct statfs_k st;

	if (!f)
		return -EBADF;
	ramfs_statfs(&st);
	if (!f->inode) {
		if (f->ops->stat)
			f->ops->stat(f, &ust);
		st.f_type = S_ISFIFO(ust.st_mode)   ? PIPEFS_MAGIC
			    : S_ISSOCK(ust.st_mode) ? SOCKFS_MAGIC
						    : ANON_INODE_MAGIC;
	}
	file_put(f);
	return put_statfs(&st, ubuf);
}

/* /proc/<pid>/mounts (and /proc/mounts, a link to self/mounts): the one
 * mount.  Named tmpfs, not rootfs: busybox df and mount skip rootfs lines. */
long mounts_text(char *buf, size_t size)
{
	return snprintk(buf, size, "tmpfs / tmpfs rw 0 0\n");
}

/* Linux's /proc/<pid>/mountinfo line for the one mount: its id (1, as
 * fdinfo's mnt_id), its parent (itself), st_dev's major:minor, the root
 * within the file system, the mount point, options, "-", type, source,
 * super-block options. */
long mountinfo_text(char *buf, size_t size)
{
	struct uapi_stat st;
	struct inode *root = vfs_root();

	inode_stat(root, &st);
	inode_put(root);
	return snprintk(buf, size, "1 1 %lu:%lu / / rw - tmpfs tmpfs rw\n", st.st_dev >> 8,
			st.st_dev & 0xff);
}

/* The file system types there are, as Linux lists its registered ones:
 * the ramfs (tmpfs to statfs) and the pseudo file systems of pipes and
 * sockets; none needs a device. */
static void format_filesystems(char *buf, size_t size)
{
	strlcpy(buf, "nodev\ttmpfs\nnodev\tpipefs\nnodev\tsockfs\n", size);
}

SNAPSHOT_OPS(filesystems, 64);

/* No block devices: Linux's header alone. */
static void format_partitions(char *buf, size_t size)
{
	strlcpy(buf, "major minor  #blocks  name\n\n", size);
}

SNAPSHOT_OPS(partitions, 64);
