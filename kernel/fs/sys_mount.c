/*
 * mount(2), umount2(2) and pivot_root(2): Linux's argument checks in
 * Linux's order (fs/namespace.c's path_mount, do_new_mount, do_loopback,
 * do_remount, can_umount, pivot_root); the table's changes are mount.c's.
 */
#include "arch/x86_64/uaccess.h"
#include "block/blkdev.h"
#include "fs/mount_table.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define MS_NOSUID      2UL
#define MS_NODEV       4UL
#define MS_NOEXEC      8UL
#define MS_SYNCHRONOUS 16UL
#define MS_REMOUNT     32UL
#define MS_NOATIME     1024UL
#define MS_NODIRATIME  2048UL
#define MS_BIND	       4096UL
#define MS_MOVE	       8192UL
#define MS_REC	       16384UL
#define MS_UNBINDABLE  (1UL << 17)
#define MS_PRIVATE     (1UL << 18)
#define MS_SLAVE       (1UL << 19)
#define MS_SHARED      (1UL << 20)
#define MS_RELATIME    (1UL << 21)
#define MS_STRICTATIME (1UL << 24)
#define MS_ATIME       (MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME)
#define MS_NOUSER      (1UL << 31)
#define MS_MGC_VAL     0xC0ED0000UL
#define MS_MGC_MSK     0xffff0000UL
#define MS_PROPAGATION (MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE)

/* A string argument of mount(2): NULL stays NULL; at most a page. */
static int copy_mount_string(const char *u, char **out)
{
	long n;

	*out = NULL;
	if (!u)
		return 0;
	if (!(*out = kmalloc(PAGE_SIZE)))
		return -ENOMEM;
	n = strncpy_from_user(*out, u, PAGE_SIZE);
	if (n < 0 || n >= (long)PAGE_SIZE) {
		kfree(*out);
		*out = NULL;
		return n < 0 ? (int)n : -EINVAL;
	}
	return 0;
}

/* The options page: up to a page, as much as is readable (Linux's
 * copy_mount_options), NUL-terminated; "" for NULL. */
static int copy_mount_options(const void *u, char **out)
{
	char *page = kzalloc(PAGE_SIZE);

	if (!(*out = page))
		return -ENOMEM;
	if (!u)
		return 0;
	for (size_t off = 0; off < PAGE_SIZE - 1;) {
		size_t chunk = PAGE_SIZE - ((uintptr_t)u + off) % PAGE_SIZE;
		if (chunk > PAGE_SIZE - 1 - off)
			chunk = PAGE_SIZE - 1 - off;
		if (copy_from_user(page + off, (const char *)u + off, chunk)) {
			if (off)
				break;
			kfree(page);
			*out = NULL;
			return -EFAULT;
		}
		off += chunk;
	}
	return 0;
}

/*
 * The MNT_* flags MS_* ask for (their values agree).  atime as Linux's
 * path_mount: relatime unless MS_NOATIME, MS_STRICTATIME takes relatime
 * and noatime away, and a remount that names no atime flag keeps the
 * mount's (old's).
 */
static unsigned int mnt_flags_of(unsigned long flags, unsigned int old)
{
	unsigned int mnt = flags & (MNT_READONLY | MNT_NOSUID | MNT_NODEV | MNT_NOEXEC |
				    MNT_NOSYMFOLLOW | MNT_NOATIME | MNT_NODIRATIME);

	if (!(flags & MS_NOATIME))
		mnt |= MNT_RELATIME;
	if (flags & MS_STRICTATIME)
		mnt &= ~(MNT_RELATIME | MNT_NOATIME);
	if ((flags & MS_REMOUNT) && !(flags & MS_ATIME))
		mnt = (mnt & ~MNT_ATIME_MASK) | (old & MNT_ATIME_MASK);
	return mnt;
}

/*
 * MS_REMOUNT: with MS_BIND only the mount's flags change (Linux's
 * do_reconfigure_mnt), its own read-only one too; without, the
 * instance's options and read-only flag as well.  EBUSY for read-only
 * while files are open for writing through the mount, or in the
 * instance for the instance's flag.
 */
static int do_remount(const struct path *p, unsigned long flags, const char *data)
{
	struct super_block *sb = p->inode->sb;
	bool bind = flags & MS_BIND;
	int err;

	if (!path_is_mount_root(p))
		return -EINVAL;
	if ((flags & MS_RDONLY) && __atomic_load_n(&p->mnt->writers, __ATOMIC_RELAXED))
		return -EBUSY;
	if (!bind && (flags & MS_RDONLY) && !(sb->flags & SB_RDONLY) && sb_has_writers(sb))
		return -EBUSY;
	if (!bind && !(flags & MS_RDONLY) && sb->type->read_only)
		return -EROFS;
	if (!bind && sb->type->remount && (err = sb->type->remount(sb, flags, data)))
		return err;
	return mount_set_flags(p, mnt_flags_of(flags, path_mnt_flags(p)), !bind);
}

/* The source of MS_BIND and MS_MOVE: a path (links followed), EINVAL
 * when there is none. */
static int source_path(const char *source, struct path *out)
{
	if (!source || !*source)
		return -EINVAL;
	return path_lookup_path(NULL, source, 0, out);
}

/*
 * MS_BIND: what source names (a directory or a file, links followed) is
 * shown at p as well, with the flags of the mount it was reached
 * through (Linux's clone_mnt); a directory only over a directory and a
 * file over a file (ENOTDIR).  The mounts under source are taken along
 * with MS_REC only (Linux's copy_tree).
 */
static int do_bind(const struct path *p, const char *source, unsigned long flags)
{
	struct path from;
	int err = source_path(source, &from);

	if (err)
		return err;
	if (!mount_in_current_ns(&from))
		err = -EINVAL;
	else if (inode_is_dir(from.inode) != inode_is_dir(p->inode))
		err = -ENOTDIR;
	else if (inode_is_link(p->inode) && p->inode->link.magic)
		err = -ENOENT; /* a /proc magic link itself (through an O_PATH fd): Linux 6.10 */
	if (!err)
		err = mount_bind(&from, p, flags & MS_REC);
	path_put(&from);
	return err;
}

/* MS_MOVE: the mount whose root source names goes over p. */
static int do_move(const struct path *p, const char *source)
{
	struct path from;
	int err = source_path(source, &from);

	if (err)
		return err;
	err = inode_is_dir(p->inode) ? mount_move(&from, p) : -EINVAL;
	path_put(&from);
	return err;
}

/* MS_SHARED/SLAVE/PRIVATE/UNBINDABLE: exactly one; there is no
 * propagation here, so every mount is private already and shared or
 * slave ones cannot be made (docs/vfs.md). */
static int do_change_type(const struct path *p, unsigned long flags)
{
	unsigned long type = flags & MS_PROPAGATION;

	if (!path_is_mount_root(p))
		return -EINVAL;
	if (type & (type - 1))
		return -EINVAL;
	return type & (MS_SHARED | MS_SLAVE) ? -EINVAL : 0;
}

/*
 * A new instance of a type on a block device: source names the device
 * (links followed), which the instance opens and holds (Linux's
 * mount_bdev).  ENOTBLK for another kind of file, EACCES through a
 * nodev mount or for a read-write mount of a read-only device (Linux's
 * bdev open for writing; mount(8) retries read-only), ENXIO without a
 * registered device.
 */
static struct super_block *bdev_sb_create(const struct fs_type *fst, const char *source,
					  unsigned long flags, const char *data, int *err)
{
	struct block_device *bdev;
	struct path from;
	uint32_t rdev = 0;

	if ((*err = source_path(source, &from)))
		return NULL;
	if (!S_ISBLK(from.inode->mode))
		*err = -ENOTBLK;
	else if (path_mnt_flags(&from) & MNT_NODEV)
		*err = -EACCES;
	rdev = from.inode->rdev;
	path_put(&from);
	if (*err || (*err = bdev_open(rdev, &bdev)))
		return NULL;
	if (!(flags & MS_RDONLY) && bdev_read_only(bdev)) {
		bdev_close(bdev);
		*err = -EACCES;
		return NULL;
	}
	return sb_create_bdev(fst, bdev,
			      (flags & MS_RDONLY ? SB_RDONLY : 0) |
				  (flags & MS_SYNCHRONOUS ? SB_SYNCHRONOUS : 0),
			      data, err);
}

int do_new_mount(const struct path *p, const char *type, const char *source, unsigned long flags,
		 const char *data)
{
	const struct fs_type *fst;
	struct super_block *sb;
	struct mount *m;
	int err;

	if (!type)
		return -EINVAL;
	if (!(fst = fs_type_find(type)))
		return -ENODEV;
	if (!inode_is_dir(p->inode))
		return -ENOTDIR;
	if (fst->read_only && !(flags & MS_RDONLY))
		return -EROFS;
	sb = fst->requires_dev ? bdev_sb_create(fst, source, flags, data, &err)
			       : sb_create(fst, data, &err);
	if (!sb)
		return err;
	/* A new instance takes the read-only flag; a single one keeps its
	 * own, and the mount is read-only on its own. */
	if ((flags & MS_RDONLY) && !fst->single)
		sb->flags |= SB_RDONLY;
	inode_get(sb->root);
	if (!(m = mount_alloc(sb, sb->root, source ? source : "none", mnt_flags_of(flags, 0)))) {
		inode_put(sb->root);
		sb_put(sb);
		return -ENOMEM;
	}
	if ((err = mount_attach(m, p)))
		mount_discard(m); /* its tree too, which no other mount shows */
	return err;
}

static long path_mount(const char *source, const char *target, const char *type,
		       unsigned long flags, const char *data)
{
	struct path p;
	long err;

	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if ((err = upath_lookup_path(AT_FDCWD, target, false, &p)))
		return err;
	if (flags & MS_NOUSER)
		err = -EINVAL;
	else if (!capable(CAP_SYS_ADMIN)) /* after the lookup's errors, as Linux */
		err = -EPERM;
	else if (flags & MS_REMOUNT)
		err = do_remount(&p, flags, data);
	else if (flags & MS_BIND)
		err = do_bind(&p, source, flags);
	else if (flags & MS_PROPAGATION)
		err = do_change_type(&p, flags);
	else if (flags & MS_MOVE)
		err = do_move(&p, source);
	else
		err = do_new_mount(&p, type, source, flags, data);
	path_put(&p);
	return err;
}

SYSCALL_DEFINE5(mount, const char *, usource, const char *, utarget, const char *, utype,
		unsigned long, flags, const void *, udata)
{
	char *type, *source = NULL, *data = NULL;
	long err = copy_mount_string(utype, &type);

	if (!err)
		err = copy_mount_string(usource, &source);
	if (!err)
		err = copy_mount_options(udata, &data);
	if (!err)
		err = path_mount(source, utarget, type, flags, data);
	kfree(data);
	kfree(source);
	kfree(type);
	return err;
}

/* MNT_EXPIRE's own EINVALs (Linux's do_umount, after the lookup): with
 * MNT_FORCE or MNT_DETACH, or on the caller's root's mount. */
static bool bad_expire(const struct path *p, int flags)
{
	struct fs_struct *fs = current()->fs;

	if (!(flags & MNT_EXPIRE))
		return false;
	return (flags & (MNT_FORCE | MNT_DETACH)) ||
	       (fs && __atomic_load_n(&fs->root.mnt, __ATOMIC_RELAXED) == p->mnt);
}

SYSCALL_DEFINE2(umount2, const char *, utarget, int, flags)
{
	struct path p;
	long err;

	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	if ((err = upath_lookup_path(AT_FDCWD, utarget, flags & UMOUNT_NOFOLLOW, &p)))
		return err;
	mount_down(&p); /* the top mount there (pivot_root's ". ." leaves one on "/") */
	if (!capable(CAP_SYS_ADMIN))
		err = -EPERM;
	else if (!path_is_mount_root(&p) || bad_expire(&p, flags))
		err = -EINVAL;
	else
		err = mount_umount(&p, flags);
	path_put_keep_mark(&p); /* naming the mount is no use of it */
	return err;
}

/* pivot_root's move for each process: root and working directory. */
struct pivot {
	const struct path *old, *new;
};

static bool pivot_task(struct task *t, void *arg)
{
	struct pivot *p = arg;

	if (t->fs)
		fs_replace_dir(t->fs, p->old, p->new);
	return true;
}

/*
 * Linux's checks, in its order: both directories (ENOTDIR...), the new
 * root and put_old not on the caller's root mount (EBUSY), the caller's
 * root a mount's root (EINVAL), new_root a mount's root (EINVAL), put_old
 * at or under new_root and new_root under the root (EINVAL).  Then the
 * root mount moves to put_old and new_root's mount takes its place; every
 * process whose root or working directory was the old root gets the new
 * one (Linux's chroot_fs_refs).  Unlike Linux, the first root mount
 * (Linux's rootfs, EINVAL) may be pivoted away: here it is a tmpfs like
 * any other, which umount can then take.
 */
static long do_pivot_root(const struct path *new, const struct path *old, const struct path *root)
{
	long err;

	if (!inode_is_dir(new->inode) || !inode_is_dir(old->inode))
		return -ENOTDIR;
	if (new->inode->nlink == 0)
		return -ENOENT;
	if (new->mnt == root->mnt || old->mnt == root->mnt)
		return -EBUSY;
	if (!path_is_mount_root(root) || !path_is_mount_root(new))
		return -EINVAL;
	if (!path_reaches(old, new) || !path_reaches(new, root))
		return -EINVAL;
	if (!(err = mount_pivot(new, old, root)))
		task_for_each(pivot_task, &(struct pivot){root, new});
	return err;
}

SYSCALL_DEFINE2(pivot_root, const char *, unew, const char *, uold)
{
	struct path new, old, root;
	long err = capable(CAP_SYS_ADMIN) ? upath_lookup_path(AT_FDCWD, unew, false, &new) : -EPERM;

	if (err)
		return err;
	if ((err = upath_lookup_path(AT_FDCWD, uold, false, &old))) {
		path_put(&new);
		return err;
	}
	fs_get_root(current()->fs, &root);
	err = do_pivot_root(&new, &old, &root);
	path_put(&root);
	path_put(&old);
	path_put(&new);
	return err;
}
