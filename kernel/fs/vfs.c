/*
 * The VFS's open-file layer: opening a path as a struct file, the file
 * operations of regular files and directories (every file system's, on
 * its inode operations: Linux's generic_file_* and generic_read_dir),
 * and bring-up (root, initrd, /dev, /proc, /tmp).
 */
#include "fs/vfs.h"
#include "block/bdev_file.h"
#include "fs/atime.h"
#include "fs/mount.h"
#include "fs/nsfs.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "fs/ramfs/ramfs.h"
#include "arch/x86_64/bootinfo.h"
#include "cmdline.h"
#include "arch/x86_64/uaccess.h"
#include "fs/pipe/fifo.h"
#include "fs/file.h"
#include "fs/notify/fsnotify.h"
#include "fs/locks/lease.h"
#include "fs/locks/reclock.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/dirent.h>
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

#define GETDENTS_BOUNCE (16 * 1024) /* most getdents64 output built per call */

void vfs_release_inode(struct file *f)
{
	inode_put(f->inode);
}

/* ---- Regular files ---- */

/* A read accesses the file even at its end (Linux's filemap_read). */
static long reg_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	long n = inode_read_iter(f->inode, to, *pos);

	if (n > 0)
		*pos += n;
	if (n >= 0)
		file_accessed(f);
	return n;
}

static long reg_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	return inode_write_iter(f->inode, from, pos, (f->flags & O_APPEND) || from->append);
}

/* A file opened for writing gives back the write access it took, one
 * opened for reading only its read count. */
static void reg_release(struct file *f)
{
	if (file_can_write(f))
		inode_put_write_access(f->inode);
	else if (file_can_read(f))
		__atomic_sub_fetch(&f->inode->readcount, 1, __ATOMIC_RELAXED);
	inode_put(f->inode);
}

const struct file_ops vfs_file_ops = {
    .read_iter = reg_read,
    .write_iter = reg_write,
    .release = reg_release,
};

bool vfs_is_ramfs_file(struct file *f)
{
	return f->ops == &vfs_file_ops && ramfs_is_file(f->inode);
}

/* ---- Directories ---- */

static long dir_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)f, (void)to, (void)pos;
	return -EISDIR;
}

/* Unreachable through open (directories open read-only); here for completeness of the table. */
static long dir_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)f, (void)from, (void)pos;
	return -EISDIR;
}

/* getdents64 output being built in a kernel buffer (no user access under the dir lock). */
struct dirent_buf {
	char *buf;
	size_t used, cap;
	bool full;
};

static bool emit_dirent(void *ctx, const char *name, size_t len, uint64_t ino, unsigned int dtype,
			uint64_t next_pos)
{
	struct dirent_buf *b = ctx;
	size_t reclen = (offsetof(struct uapi_dirent64, d_name) + len + 1 + 7) & ~7UL;
	struct uapi_dirent64 *d = (struct uapi_dirent64 *)(b->buf + b->used);

	if (b->used + reclen > b->cap) {
		b->full = true;
		return false;
	}
	memset(d, 0, reclen);
	d->d_ino = ino;
	d->d_off = next_pos;
	d->d_reclen = reclen;
	d->d_type = dtype;
	memcpy(d->d_name, name, len);
	b->used += reclen;
	return true;
}

/* Bytes stored, 0 at the end, -EINVAL if not even one entry fits, -EFAULT;
 * -ENOENT for a removed directory (nlink 0: Linux's IS_DEADDIR), before
 * anything else, as Linux's iterate_dir.  An rmdir racing the check leaves
 * an empty directory to list, so the unlocked read is enough. */
static long dir_getdents(struct file *f, void *ubuf, size_t len)
{
	struct dirent_buf b = {.cap = len < GETDENTS_BOUNCE ? len : GETDENTS_BOUNCE};
	uint64_t pos;
	bool locked;
	long ret;

	if (__atomic_load_n(&f->inode->nlink, __ATOMIC_RELAXED) == 0)
		return -ENOENT;
	b.buf = kmalloc(b.cap ? b.cap : 1);
	if (!b.buf)
		return -ENOMEM;
	locked = file_pos_lock(f);
	pos = file_pos_get(f);
	dir_iterate(f->inode, &pos, emit_dirent, &b);
	ret = b.used;
	if (!b.used && b.full)
		ret = -EINVAL;
	else if (b.used && copy_to_user(ubuf, b.buf, b.used))
		ret = -EFAULT;
	if (ret > 0)
		file_pos_set(f, pos);
	file_pos_unlock(f, locked);
	kfree(b.buf);
	return ret;
}

const struct file_ops vfs_dir_ops = {
    .read_iter = dir_read,
    .write_iter = dir_write,
    .getdents = dir_getdents,
    .release = vfs_release_inode,
};

/* ---- Opening ---- */

/* A file of ops for ip, taking over the caller's reference on ip. */
static int open_file(struct inode *ip, const struct file_ops *ops, unsigned int flags,
		     struct file **out)
{
	/* open's O_ASYNC is kept for F_GETFL but arms nothing, as on Linux
	 * (F_SETFL arms it: docs/fds.md). */
	struct file *f = file_alloc(
	    ops, flags & (O_ACCMODE | O_APPEND | O_NONBLOCK | O_ASYNC | O_NOATIME), NULL);

	if (!f)
		return -ENOMEM;
	f->inode = ip;
	*out = f;
	return 0;
}

int vfs_open_inode(struct inode *ip, unsigned int flags, struct file **out)
{
	const struct file_ops *ops = ip->fop;
	unsigned int acc;
	bool writer;
	int err;

	if (S_ISFIFO(ip->mode))
		return fifo_open(ip, flags, out);
	if (S_ISCHR(ip->mode))
		ops = chrdev_ops(ip->rdev);
	else if (S_ISBLK(ip->mode))
		ops = blkdev_file_ops(); /* block/bdev_file.c */
	else if (!inode_is_reg(ip) && !inode_is_dir(ip))
		ops = NULL; /* sockets: no driver, as Linux's ENXIO */
	if (!ops)
		return -ENXIO;
	if (!inode_is_reg(ip) && (err = open_file(ip, ops, flags, out)))
		return err;
	if ((S_ISCHR(ip->mode) && (err = chrdev_open(*out, flags))) ||
	    (S_ISBLK(ip->mode) && (err = blkdev_open(*out, flags)))) {
		inode_get(ip); /* the caller's reference, which the file's release puts */
		file_put(*out);
		return err;
	}
	if (!inode_is_reg(ip))
		return 0;
	/* A running program cannot be opened for writing (ETXTBSY); O_ACCMODE
	 * 3 (neither read nor write, as Linux's FMODE) is no writer. */
	acc = flags & O_ACCMODE;
	writer = acc == O_WRONLY || acc == O_RDWR;
	if (writer && (err = inode_get_write_access(ip)))
		return err;
	if (acc == O_RDONLY)
		__atomic_add_fetch(&ip->readcount, 1, __ATOMIC_RELAXED);
	/* Counted first, so that a lease being set meanwhile sees us. */
	if (!(err = lease_break(ip, flags)) && !(err = open_file(ip, ops, flags, out)))
		return 0;
	if (writer)
		inode_put_write_access(ip);
	if (acc == O_RDONLY)
		__atomic_sub_fetch(&ip->readcount, 1, __ATOMIC_RELAXED);
	return err;
}

/* Truncating by name: writers and leases as an open for writing. */
static int truncate_by_name(struct inode *ip, uint64_t size, bool break_leases)
{
	int err = inode_get_write_access(ip);

	if (err)
		return err;
	if (!break_leases || !(err = lease_break(ip, O_WRONLY)))
		err = inode_truncate(ip, size);
	inode_put_write_access(ip);
	return err;
}

int vfs_truncate(const struct path *p, uint64_t size)
{
	int err = path_want_write(p);

	if (!err)
		err = inode_permission(p->inode, MAY_WRITE);
	if (!err && inode_append_only(p->inode))
		err = -EPERM;
	return err ? err : truncate_by_name(p->inode, size, true);
}

/* O_PATH files (file.h): nothing to read, write or release but the inode. */
static const struct file_ops path_ops = {
    .release = vfs_release_inode,
};

/* An O_PATH file for ip: no driver opened, no FIFO partner waited for, a
 * link (O_NOFOLLOW) the file itself; F_GETFL shows O_PATH and the
 * O_DIRECTORY / O_NOFOLLOW it was opened with, as Linux. */
static int open_path(struct inode *ip, unsigned int flags, struct file **out)
{
	struct file *f;

	if ((flags & O_DIRECTORY) && !inode_is_dir(ip))
		return -ENOTDIR;
	if (!(f = file_alloc(&path_ops, flags & (O_PATH | O_DIRECTORY | O_NOFOLLOW), NULL)))
		return -ENOMEM;
	f->inode = ip;
	*out = f;
	return 0;
}

/* Linux's rules: directories open read-only, without O_CREAT or O_TRUNC;
 * a link (not followed: O_NOFOLLOW) cannot be opened. */
static int open_check(const struct path *p, unsigned int flags, bool created)
{
	struct inode *ip = p->inode;
	unsigned int acc = flags & O_ACCMODE;
	int mask = (acc == O_RDONLY || acc == O_RDWR ? MAY_READ : 0) |
		   (acc == O_WRONLY || acc == O_RDWR || (flags & O_TRUNC) ? MAY_WRITE : 0);
	int err;

	if ((flags & O_DIRECTORY) && !inode_is_dir(ip))
		return -ENOTDIR;
	if (inode_is_link(ip))
		return -ELOOP;
	if (inode_is_dir(ip) && ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC))))
		return -EISDIR;
	/* nodev refuses device nodes, character and block, before the device
	 * is looked for (Linux's may_open), but not /proc's files (devices
	 * here, regular files on Linux, in a proc mounted nodev there too). */
	if ((S_ISCHR(ip->mode) || S_ISBLK(ip->mode)) && ip->sb->type != &proc_type &&
	    (path_mnt_flags(p) & MNT_NODEV))
		return -EACCES;
	/* Devices, FIFOs and sockets write nothing to their file system;
	 * a truncation asks for the mount first (Linux's do_open), other
	 * writes after the permission. */
	if (inode_is_reg(ip) && (flags & O_TRUNC) && (err = path_want_write(p)))
		return err;
	if (!created && (err = inode_permission(ip, mask))) /* the creator may, whatever the mode */
		return err;
	/* An append-only file opens for writing only to append (Linux's may_open). */
	if (inode_append_only(ip) &&
	    (((mask & MAY_WRITE) && !(flags & O_APPEND)) || (flags & O_TRUNC)))
		return -EPERM;
	if ((flags & O_NOATIME) && !inode_owner_or_capable(ip))
		return -EPERM; /* Linux's may_open: only the owner may leave atime alone */
	if (inode_is_reg(ip) && (mask & MAY_WRITE))
		return path_want_write(p);
	return 0;
}

/* The file opened through p's mount takes over its reference; a
 * regular file open for writing counts as the mount's writer. */
static void file_set_mount(struct file *f, struct mount *mnt)
{
	f->mnt = mnt;
	if (mnt && inode_is_reg(f->inode) && file_can_write(f)) {
		f->mnt_writer = true;
		__atomic_add_fetch(&mnt->writers, 1, __ATOMIC_RELAXED);
	}
}

/*
 * O_TMPFILE: a regular file with no name in the directory path names,
 * open for writing, linkable later (linkat with AT_EMPTY_PATH or through
 * /proc/<pid>/fd) unless O_EXCL.  /proc/<pid>/fd shows it as
 * "DIR/#INO (deleted)", as Linux.  Linux's checks first: O_TMPFILE needs
 * its O_DIRECTORY bit and no O_CREAT, and write access (EINVAL).
 */
static int open_tmpfile(const struct path *start, const char *path, unsigned int flags,
			uint32_t mode, unsigned int lookup, struct file **out)
{
	struct inode *dir, *ip = NULL;
	struct path p;
	char name[24];
	int err;

	if ((flags & (O_TMPFILE | O_CREAT)) != O_TMPFILE || (flags & O_ACCMODE) == O_RDONLY)
		return -EINVAL;
	if ((err = path_lookup_path(start, path, lookup, &p)))
		return err;
	dir = p.inode;
	if (!inode_is_dir(dir))
		err = -ENOTDIR;
	else if (!dir->op->tmpfile)
		err = -EOPNOTSUPP; /* /proc makes no files */
	else if ((err = path_want_write(&p)) || (err = may_create(dir)))
		;
	else if ((err = dir_tmpfile(dir, mode, !(flags & O_EXCL), &ip)))
		;
	else if ((err = vfs_open_inode(ip, flags, out)))
		inode_put(ip);
	if (err) {
		path_put(&p);
		return err;
	}
	snprintk(name, sizeof(name), "#%lu", (unsigned long)ip->ino);
	file_set_mount(*out, p.mnt); /* the file takes over the path */
	(*out)->dir = dir;
	if (!((*out)->name = kstrdup(name))) {
		file_put(*out);
		return -ENOMEM;
	}
	return 0;
}

/*
 * O_TRUNC of an existing regular file, after the open as Linux's do_open
 * (so the open broke the leases first): the file's own write access, or
 * for O_RDONLY a write access of its own, breaking no lease, as Linux's
 * handle_truncate.  On failure the file is put.
 */
static int open_truncate(struct file *f)
{
	int err =
	    file_can_write(f) ? inode_truncate(f->inode, 0) : truncate_by_name(f->inode, 0, false);

	if (err)
		file_put(f);
	return err;
}

int vfs_open_at(const struct path *start, const char *path, unsigned int flags, uint32_t mode,
		unsigned int lookup, struct file **out)
{
	struct path_where where;
	struct path p;
	struct inode *ip;
	bool created = false;
	int err;

	if (flags & O_NOFOLLOW)
		lookup |= LOOKUP_NOFOLLOW;
	if (flags & O_PATH) /* it beats everything else (Linux's O_PATH_FLAGS) */
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW;
	else if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL; /* Linux 6.4: it once made regular files */
	else if (flags & __O_TMPFILE)
		return open_tmpfile(start, path, flags, mode, lookup, out);
	if (flags & O_CREAT)
		err = path_create(start, path, lookup | ((flags & O_EXCL) ? LOOKUP_EXCL : 0), mode,
				  &p, &created, &where);
	else
		err = path_lookup_where(start, path, lookup, &p, &where);
	if (err)
		return err;
	ip = p.inode;
	if (flags & O_PATH) {
		err = open_path(ip, flags, out);
	} else {
		err = open_check(&p, flags, created);
		if (!err)
			err = vfs_open_inode(ip, flags, out);
		if (!err)
			file_set_mount(*out, p.mnt);
		if (!err && (flags & O_TRUNC) && inode_is_reg(ip) && !created &&
		    (err = open_truncate(*out))) {
			path_where_put(&where);
			return err; /* the file's put let the path go */
		}
	}
	if (err) {
		path_put(&p);
		path_where_put(&where);
		return err;
	}
	if (flags & O_PATH)
		file_set_mount(*out, p.mnt);
	(*out)->dir = where.dir; /* the file takes them over */
	(*out)->name = where.name;
	if ((flags & O_TRUNC) && inode_is_reg(ip) && !created)
		fsnotify_file(*out, IN_MODIFY);
	fsnotify_file(*out, IN_OPEN);
	return 0;
}

/* ---- Bring-up ---- */

static void unpack_initrd(void)
{
	struct path root;

	for (int i = 0; i < boot_info.nmodules; i++) {
		struct boot_module *m = &boot_info.modules[i];
		if (strcmp(m->cmdline, "initrd"))
			continue;
		vfs_root_path(&root);
		long n = cpio_unpack(P2V(m->start), m->end - m->start, &root);
		path_put(&root);
		if (n < 0)
			printk("vfs: initrd malformed (%ld); kept what came before\n", n);
		else
			printk("vfs: initrd unpacked: %ld entries, %lu KiB\n", n,
			       (m->end - m->start) / 1024);
		return;
	}
	printk("vfs: no initrd module; empty root\n");
}

/*
 * The root is a tmpfs with the initrd unpacked in it (empty with root=,
 * which vfs_mount_root mounts over it); then the mounts a
 * Linux distribution's init makes: proc, devtmpfs (with /dev's nodes),
 * tmpfs on /dev/shm and /tmp, sysfs.
 */
void vfs_init(void)
{
	struct super_block *root_sb;
	int err;

	reclock_init();
	if (!sb_create(&internal_type, "", &err) ||
	    !(root_sb = sb_create(&tmpfs_type, "mode=0755", &err)))
		panic("vfs: no root file system (%d)", err);
	nsfs_init();
	mount_init(root_sb);
	if (!kopts.root[0]) /* else the device's file system is "/" (vfs_mount_root) */
		unpack_initrd();
	mount_boot("proc", "proc", "/proc", "", MNT_NOSUID | MNT_NODEV | MNT_NOEXEC);
	mount_boot("sysfs", "sysfs", "/sys", "", MNT_NOSUID | MNT_NODEV | MNT_NOEXEC);
	mount_boot("devtmpfs", "devtmpfs", "/dev", "mode=0755", MNT_NOSUID);
	mount_boot("tmpfs", "tmpfs", "/dev/shm", "", MNT_NOSUID | MNT_NODEV);
	mount_boot("tmpfs", "tmpfs", "/tmp", "", MNT_NOSUID); /* devices there, as on Debian 12 */
	if (vfs_mkdir(NULL, "/proc/sysvipc", 0555))
		panic("vfs: cannot make /proc/sysvipc");
	devices_init();
	proc_pid_init();
}
