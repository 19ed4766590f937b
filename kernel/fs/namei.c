/*
 * The operations that change the name space (mkdir, mknod, unlink, rmdir)
 * and getcwd, on top of path lookup (lookup.c).
 */
#include "fs/upath.h"
#include "fs/mount.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "lib/string.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* Under syscall_indirect(SYSIND_NOFOLLOW) a final link is ELOOP, as
 * Linux's execveat(AT_SYMLINK_NOFOLLOW). */
int vfs_lookup_exec(struct inode *start, const char *path, unsigned int flags, struct inode **out)
{
	int err = path_lookup_flags(start, path, flags | lookup_follow_flags(false), out);

	if (!err && (err = vfs_exec_check(*out)))
		inode_put(*out);
	return err;
}

int vfs_exec_check(struct inode *ip)
{
	if (inode_is_link(ip))
		return -ELOOP;
	if (!inode_is_reg(ip) || !(ip->mode & 0111))
		return -EACCES;
	return sb_mount_flags(ip->sb) & MNT_NOEXEC ? -EACCES : 0;
}

/* Creates the last component; "/", "." and ".." always exist. */
static int create_at(struct inode *start, const char *path, uint32_t mode, uint32_t rdev)
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
	else if (sb_want_write(last.dir->sb))
		err = (ip = dir_lookup(last.dir, last.name, last.len)) ? -EEXIST : -EROFS;
	else
		err = dir_create(last.dir, last.name, last.len, mode, rdev, &ip);
	if (ip)
		inode_put(ip);
	inode_put(last.dir);
	return err;
}

int vfs_mkdir(struct inode *start, const char *path, uint32_t mode)
{
	return create_at(start, path, S_IFDIR | (mode & 07777), 0);
}

int vfs_mknod(struct inode *start, const char *path, uint32_t mode, uint32_t rdev)
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

int vfs_unlink(struct inode *start, const char *path)
{
	struct path_last last;
	int err = path_lookup_parent(start, path, &last);

	if (err)
		return err;
	if (!last.len || is_dot(last.name, last.len) || is_dotdot(last.name, last.len))
		err = -EISDIR; /* Linux: these name directories */
	else if (last.trailing_slash)
		err = trailing_slash_error(last.dir, last.name, last.len);
	else if (!(err = sb_want_write(last.dir->sb)))
		err = dir_remove(last.dir, last.name, last.len, false);
	inode_put(last.dir);
	return err;
}

int vfs_rmdir(struct inode *start, const char *path)
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
	else if (!(err = sb_want_write(last.dir->sb)))
		err = dir_remove(last.dir, last.name, last.len, true);
	inode_put(last.dir);
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

/*
 * Walks up from dir naming each step, to root (NULL: the top of the
 * tree); a removed directory has no path.  Reaching the top without
 * meeting root, dir is outside it: the path then begins with
 * "(unreachable)", as Linux's getcwd says.
 */
long vfs_getcwd_at(struct inode *root, struct inode *dir, char *buf, size_t size)
{
	char name[NAME_MAX + 1];
	size_t at = size;
	struct inode *cur = dir, *parent;
	long len, err = 0;
	bool unreachable = false;

	if (size == 0)
		return -ERANGE;
	buf[--at] = '\0';
	inode_get(cur);
	while (!err && cur != root) {
		cur = mount_up(cur);
		parent = dir_parent(cur);
		if (parent == cur) {
			inode_put(parent);
			unreachable = root != NULL;
			break;
		}
		len = dir_name_of(parent, cur, name, sizeof(name));
		err = len < 0 ? len : prepend(buf, &at, name, len);
		inode_put(cur);
		cur = parent;
	}
	inode_put(cur);
	if (!err && unreachable && !(err = prepend(buf, &at, "(unreachable)", 13)))
		at++; /* "(unreachable)/a", without the "/" prepend put first */
	else if (!err && at == size - 1)
		err = prepend(buf, &at, "", 0);
	if (err)
		return err;
	memmove(buf, buf + at, size - at);
	return size - at;
}

long vfs_getcwd(struct inode *dir, char *buf, size_t size)
{
	return vfs_getcwd_at(NULL, dir, buf, size);
}

/*
 * buf (PATH_MAX bytes) = dir's path + "/" + name (len bytes, not in buf).
 * -ENAMETOOLONG, or vfs_getcwd's error.
 */
long vfs_join_name(struct inode *dir, const char *name, size_t len, char *buf)
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

long vfs_real_path(struct inode *start, const char *path, char *buf)
{
	struct path_last last;
	struct inode *ip;
	const char *target;
	long err = -ELOOP;

	if (strlcpy(buf, path, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int links = 0; links <= MAXSYMLINKS; links++) {
		/* After the first step buf is absolute: start no longer counts. */
		if ((err = path_lookup_parent(links ? NULL : start, buf, &last)))
			return err;
		ip = last.len ? dir_lookup(last.dir, last.name, last.len) : NULL;
		if (!ip || !inode_is_link(ip)) {
			err = vfs_join_name(last.dir, last.name, last.len, buf);
		} else if ((target = ip->link.target)[0] == '/') {
			err = strlcpy(buf, target, PATH_MAX) >= PATH_MAX ? -ENAMETOOLONG : 0;
		} else {
			err = vfs_join_name(last.dir, target, strlen(target), buf);
		}
		inode_put(last.dir);
		if (!ip || !inode_is_link(ip) || err) {
			if (ip)
				inode_put(ip);
			return err;
		}
		inode_put(ip);
		err = -ELOOP;
	}
	return err;
}
