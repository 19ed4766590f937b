/*
 * statfs/fstatfs and /proc/filesystems.  An inode's
 * instance answers statfs as Linux's does for its type: a tmpfs its
 * size and inode limits and what is in use, proc and sysfs nothing but
 * their magic.  Pipes, sockets and epoll files answer with the magic
 * numbers of Linux's pseudo file systems.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/super.h"
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

/* f_flags: the mount's flags (the first four MNT_* are ST_* values too). */
#define ST_RDONLY      0x0001
#define ST_RELATIME    0x1000
#define ST_NOSYMFOLLOW 0x2000
_Static_assert(MNT_READONLY == ST_RDONLY && MNT_NOSUID == 2 && MNT_NODEV == 4 && MNT_NOEXEC == 8 &&
		   MNT_NOATIME == 0x400 && MNT_NODIRATIME == 0x800,
	       "statfs's ST_* are mount(2)'s MS_* values");

static int64_t st_flags(const struct path *p)
{
	unsigned int mnt = path_mnt_flags(p);

	return ST_VALID |
	       (mnt & (MNT_READONLY | MNT_NOSUID | MNT_NODEV | MNT_NOEXEC | MNT_NOATIME |
		       MNT_NODIRATIME)) |
	       (mnt & MNT_RELATIME ? ST_RELATIME : 0) |
	       (mnt & MNT_NOSYMFOLLOW ? ST_NOSYMFOLLOW : 0) |
	       (p->inode->sb->flags & SB_RDONLY ? ST_RDONLY : 0);
}

/* p's instance, with its mount's flags: blocks are pages; an unlimited
 * count is shown as Linux's tmpfs shows it (0 blocks or files: "no limit"). */
static void sb_statfs(const struct path *p, struct statfs_k *st)
{
	struct super_block *sb = p->inode->sb;
	size_t max = sb->pages_max, used = __atomic_load_n(&sb->pages_used, __ATOMIC_RELAXED);
	size_t imax = sb->inodes_max, iused = __atomic_load_n(&sb->inodes_used, __ATOMIC_RELAXED);

	memset(st, 0, sizeof(*st));
	st->f_type = sb->type->magic;
	st->f_bsize = st->f_frsize = PAGE_SIZE;
	st->f_namelen = NAME_MAX;
	st->f_fsid[0] = (int32_t)sb->dev;
	st->f_flags = st_flags(p);
	if (sb->op->statfs) {
		struct kstatfs k = {0};

		sb->op->statfs(sb, &k);
		st->f_bsize = st->f_frsize = k.bsize;
		st->f_blocks = k.blocks, st->f_bfree = k.bfree, st->f_bavail = k.bavail;
		st->f_files = k.files, st->f_ffree = k.ffree, st->f_namelen = k.namelen;
		return;
	}
	if (sb->type->magic != 0x01021994)
		return; /* proc, sysfs: no blocks, no files */
	if (max != SIZE_MAX) {
		st->f_blocks = max;
		st->f_bfree = st->f_bavail = used < max ? max - used : 0;
	}
	if (imax != SIZE_MAX) {
		st->f_files = imax;
		st->f_ffree = iused < imax ? imax - iused : 0;
	}
}

uint32_t sb_block_size(struct super_block *sb)
{
	struct kstatfs k = {0};

	if (!sb->op->statfs)
		return PAGE_SIZE;
	sb->op->statfs(sb, &k);
	return k.bsize;
}

static long put_statfs(struct statfs_k *st, void *ubuf)
{
	return copy_to_user(ubuf, st, sizeof(*st)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(statfs, const char *, upath, void *, ubuf)
{
	struct statfs_k st;
	struct path p;
	long err = upath_lookup_path(AT_FDCWD, upath, false, &p);

	if (err)
		return err;
	sb_statfs(&p, &st);
	path_put(&p);
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
	if (f->inode)
		sb_statfs(&(struct path){f->mnt, f->inode}, &st);
	else {
		memset(&st, 0, sizeof(st));
		st.f_bsize = st.f_frsize = PAGE_SIZE;
		st.f_namelen = NAME_MAX;
		st.f_flags = ST_VALID;
		if (f->ops->stat)
			f->ops->stat(f, &ust);
		st.f_type = S_ISFIFO(ust.st_mode)   ? PIPEFS_MAGIC
			    : S_ISSOCK(ust.st_mode) ? SOCKFS_MAGIC
						    : ANON_INODE_MAGIC;
	}
	file_put(f);
	return put_statfs(&st, ubuf);
}

/* The file system types there are, as Linux lists its registered ones:
 * those mount(2) knows ("nodev" unless on a block device: what mount
 * tries when no type is given), and the pseudo file systems of pipes
 * and sockets. */
static void format_filesystems(char *buf, size_t size)
{
	const struct fs_type *t;
	size_t n = 0;

	for (size_t i = 0; (t = fs_type_at(i)) && n < size; i++)
		n += snprintk(buf + n, size - n, "%s\t%s\n", t->requires_dev ? "" : "nodev",
			      t->name);
	if (n < size)
		strlcpy(buf + n, "nodev\tpipefs\nnodev\tsockfs\n", size - n);
}

SNAPSHOT_OPS(filesystems, 256);
