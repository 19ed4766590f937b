/*
 * The operations that change the name space (mkdir, mknod, unlink, rmdir)
 * and getcwd, on top of path lookup (lookup.c).
 */
#include "fs/upath.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "fs/atime.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* Under syscall_indirect(SYSIND_NOFOLLOW) a final link is ELOOP, as
 * Linux's execveat(AT_SYMLINK_NOFOLLOW). */
int vfs_lookup_exec(const struct path *start, const char *path, unsigned int flags,
		    struct inode **out, bool *nosuid)
{
	struct path p;
	int err = path_lookup_path(start, path, flags | lookup_follow_flags(false), &p);

	if (err)
		return err;
	if ((err = vfs_exec_check(&p)))
		path_put(&p);
	else {
		*out = p.inode;
		if (nosuid)
			*nosuid = path_mnt_flags(&p) & MNT_NOSUID;
		mnt_put(p.mnt);
	}
	return err;
}

/* A program that may run is accessed: exec reads it (Linux's atime
 * from kernel_read of the program). */
int vfs_exec_check(const struct path *p)
{
	struct inode *ip = p->inode;
	int err;

	if (inode_is_link(ip))
		return -ELOOP;
	if (!inode_is_reg(ip) || (path_mnt_flags(p) & MNT_NOEXEC))
		return -EACCES;
	if ((err = inode_permission(ip, MAY_EXEC))) /* root too needs an execute bit */
		return err;
	touch_atime(p->mnt, ip);
	return 0;
}

/* Device nodes take CAP_MKNOD, after the directory's checks (Linux's
 * vfs_mknod); a whiteout (character device 0:0) does not. */
static int may_mknod(uint32_t mode, uint32_t rdev)
{
	if (!S_ISBLK(mode) && !(S_ISCHR(mode) && rdev != 0))
		return 0;
	return capable(CAP_MKNOD) ? 0 : -EPERM;
}

/* Creates the last component; "/", "." and ".." always exist. */
static int create_at(const struct path *start, const char *path, uint32_t mode, uint32_t rdev)
{
	struct path_last last;
	struct inode *ip = NULL;
	int err = path_lookup_parent(start, path, &last);

	if (err)
		return err;
	if (!last.len || is_dot(last.name, last.len) || is_dotdot(last.name, last.len))
		err = -EEXIST;
	else if (last.trailing_slash && !S_ISDIR(mode))
		err = -ENOENT; /* Linux: mknod("x/") names no directory to create */
	else if ((ip = dir_lookup(last.dir.inode, last.name, last.len)))
		err = -EEXIST;
	else if (!(err = path_want_write(&last.dir)) && !(err = may_create(last.dir.inode)) &&
		 !(err = may_mknod(mode, rdev)))
		err = dir_create(last.dir.inode, last.name, last.len, mode, rdev, &ip);
	if (ip)
		inode_put(ip);
	path_put(&last.dir);
	return err;
}

int vfs_mkdir(const struct path *start, const char *path, uint32_t mode)
{
	return create_at(start, path, S_IFDIR | (mode & 07777), 0);
}

int vfs_mknod(const struct path *start, const char *path, uint32_t mode, uint32_t rdev)
{
	return create_at(start, path, mode, rdev);
}

/* unlink("x/"): nothing is removed; the error says what x is. */
static int trailing_slash_error(struct inode *dir, const char *name, size_t len)
{
	struct inode *ip = dir_lookup(dir, name, len);
	int err;

	if (!ip)
		return -ENOENT;
	err = inode_is_dir(ip) ? -EISDIR : -ENOTDIR;
	inode_put(ip);
	return err;
}

/* unlink and rmdir's checks of what name names in dir: -ENOENT, or
 * may_delete's (write and search on dir, the sticky bit's rule). */
static int remove_check(struct inode *dir, const char *name, size_t len)
{
	struct inode *victim = dir_lookup(dir, name, len);
	int err = victim ? may_delete(dir, victim) : -ENOENT;

	if (victim)
		inode_put(victim);
	return err;
}

int vfs_unlink(const struct path *start, const char *path)
{
	struct path_last last;
	int err = path_lookup_parent(start, path, &last);

	if (err)
		return err;
	if (!last.len || is_dot(last.name, last.len) || is_dotdot(last.name, last.len))
		err = -EISDIR; /* Linux: these name directories */
	else if (last.trailing_slash)
		err = trailing_slash_error(last.dir.inode, last.name, last.len);
	else if (!(err = path_want_write(&last.dir)) &&
		 !(err = remove_check(last.dir.inode, last.name, last.len)))
		err = dir_remove(last.dir.inode, last.name, last.len, false);
	path_put(&last.dir);
	return err;
}

int vfs_rmdir(const struct path *start, const char *path)
{
	struct path_last last;
	int err = path_lookup_parent(start, path, &last);

	if (err)
		return err;
	if (!last.len)
		err = -EBUSY; /* the root */
	else if (is_dot(last.name, last.len))
		err = -EINVAL;
	else if (is_dotdot(last.name, last.len))
		err = -ENOTEMPTY;
	else if (!(err = path_want_write(&last.dir)) &&
		 !(err = remove_check(last.dir.inode, last.name, last.len)))
		err = dir_remove(last.dir.inode, last.name, last.len, true);
	path_put(&last.dir);
	return err;
}

/* Prepends "/name" to the path being built backwards at buf[*at..]. */
static int prepend(char *buf, size_t *at, const char *name, size_t len)
{
	if (*at < len + 1)
		return -ERANGE;
	*at -= len + 1;
	buf[*at] = '/';
	memcpy(buf + *at + 1, name, len);
	return 0;
}

/* One step up from cur (referenced, changed in place) inside its mount:
 * its name in its parent prepended to buf.  False at the mount's top. */
static bool step_up(struct path *cur, char *buf, size_t *at, long *err)
{
	char name[NAME_MAX + 1];
	struct inode *parent;
	long len;

	if (cur->mnt ? cur->inode == cur->mnt->root : cur->inode == cur->inode->sb->root)
		return false;
	parent = dir_parent(cur->inode);
	if (parent == cur->inode) { /* the top of a tree no mount shows whole */
		inode_put(parent);
		return false;
	}
	len = dir_name_of(parent, cur->inode, name, sizeof(name));
	*err = len < 0 ? len : prepend(buf, at, name, len);
	inode_put(cur->inode);
	cur->inode = parent;
	return true;
}

/* The path built at buf[at..] moved to buf's start: its length. */
static long path_done(char *buf, size_t at, size_t size, long err)
{
	if (!err && at == size - 1)
		err = prepend(buf, &at, "", 0);
	if (err)
		return err;
	memmove(buf, buf + at, size - at);
	return size - at;
}

/*
 * Walks up from dir naming each step, through mount points, to root
 * (NULL: the top of the tree); a removed directory has no path.  Reaching
 * the top without meeting root, dir is outside it: the path then begins
 * with "(unreachable)", as Linux's getcwd says.
 */
long vfs_getcwd_at(const struct path *root, const struct path *dir, char *buf, size_t size)
{
	struct path cur = *dir;
	size_t at = size;
	long err = 0;
	bool unreachable = false;

	if (size == 0)
		return -ERANGE;
	buf[--at] = '\0';
	path_get(&cur);
	while (!err && !(root && path_equal(&cur, root))) {
		mount_up(&cur);
		if (root && path_equal(&cur, root))
			break;
		if (!step_up(&cur, buf, &at, &err)) {
			unreachable = root != NULL;
			break;
		}
	}
	path_put_keep_mark(&cur); /* a walk up: no use (mount.h) */
	if (!err && unreachable && !(err = prepend(buf, &at, "(unreachable)", 13)))
		return path_done(buf, at + 1, size, 0); /* without the "/" prepend put first */
	return path_done(buf, at, size, err);
}

long vfs_getcwd(const struct path *dir, char *buf, size_t size)
{
	return vfs_getcwd_at(NULL, dir, buf, size);
}

long vfs_mount_root_path(const struct path *mnt_root, char *buf, size_t size)
{
	struct path cur = {NULL, mnt_root->inode};
	size_t at = size;
	long err = 0;

	if (size == 0)
		return -ERANGE;
	buf[--at] = '\0';
	inode_get(cur.inode);
	while (!err && step_up(&cur, buf, &at, &err))
		;
	inode_put(cur.inode);
	return path_done(buf, at, size, err);
}

/*
 * buf (PATH_MAX bytes) = dir's path + "/" + name (len bytes, not in buf).
 * -ENAMETOOLONG, or vfs_getcwd's error.
 */
long vfs_join_name(const struct path *dir, const char *name, size_t len, char *buf)
{
	long n = vfs_getcwd(dir, buf, PATH_MAX);
	if (n < 0)
		return n;
	n = strlen(buf);
	if (n > 1)
		buf[n++] = '/';
	if (n + len >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf + n, name, len);
	buf[n + len] = '\0';
	return 0;
}

long vfs_real_path(const struct path *start, const char *path, char *buf)
{
	struct path_last last;
	/* A relative link's directory, where its target is looked up next;
	 * held while set.  Its absolute path would not do: that is the
	 * global one, and the lookup starts at a chroot's root. */
	struct path from = {0};
	struct inode *ip;
	const char *target;
	long err = -ELOOP;

	if (strlcpy(buf, path, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int links = 0; links <= MAXSYMLINKS; links++) {
		/* After the first step start no longer counts. */
		err = path_lookup_parent(from.inode ? &from : links ? NULL : start, buf, &last);
		if (from.inode)
			path_put(&from); /* zeroes it */
		if (err)
			return err;
		ip = last.len ? dir_lookup(last.dir.inode, last.name, last.len) : NULL;
		if (!ip || !inode_is_link(ip)) {
			err = vfs_join_name(&last.dir, last.name, last.len, buf);
		} else if (ip->link.denied) {
			err = -EACCES;
		} else {
			target = ip->link.target;
			err = strlcpy(buf, target, PATH_MAX) >= PATH_MAX ? -ENAMETOOLONG : 0;
			if (target[0] != '/') {
				from = last.dir;
				path_get(&from);
			}
		}
		path_put(&last.dir);
		if (!ip || !inode_is_link(ip) || err) {
			if (ip)
				inode_put(ip);
			if (from.inode)
				path_put(&from);
			return err;
		}
		inode_put(ip);
		err = -ELOOP;
	}
	if (from.inode)
		path_put(&from);
	return err;
}
