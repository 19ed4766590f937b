/*
 * Path lookup and the operations that change the name space (mkdir, mknod,
 * unlink, rmdir, getcwd).  The walk holds one reference at a time and takes
 * each directory's lock only inside dir_lookup, so it never nests locks.
 */
#include "fs/vfs.h"
#include "fs/fs_struct.h"
#include "lib/string.h"
#include "proc/task.h"
#include <uapi/errno.h>

static bool is_dot(const char *name, size_t len)
{
	return len == 1 && name[0] == '.';
}

static bool is_dotdot(const char *name, size_t len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

/* The referenced directory a path starts from. */
static struct inode *start_dir(struct inode *start, const char *path)
{
	struct task *t = current();

	if (path[0] != '/') {
		if (start) {
			inode_get(start);
			return start;
		}
		if (t && t->fs)
			return fs_get_cwd(t->fs);
	}
	return vfs_root();
}

/* Next component after *p (slashes skipped): false at the end of the path. */
static bool next_component(const char **p, const char **name, size_t *len)
{
	const char *s = *p;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	*name = s;
	while (*s && *s != '/')
		s++;
	*len = s - *name;
	*p = s;
	return true;
}

/* Moves *cur (referenced) to its child name; on error *cur is unchanged. */
static int step(struct inode **cur, const char *name, size_t len)
{
	struct inode *dir = *cur, *next;

	if (!inode_is_dir(dir))
		return -ENOTDIR;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (is_dot(name, len))
		return 0;
	next = is_dotdot(name, len) ? dir_parent(dir) : dir_lookup(dir, name, len);
	if (!next)
		return -ENOENT;
	inode_put(dir);
	*cur = next;
	return 0;
}

int path_lookup_parent(struct inode *start, const char *path, struct path_last *last)
{
	const char *p = path, *name, *next_name;
	size_t len, next_len;
	struct inode *cur;
	int err = 0;

	if (!*path)
		return -ENOENT;
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return -ENAMETOOLONG;
	cur = start_dir(start, path);
	*last = (struct path_last){.name = "", .len = 0, .trailing_slash = true};
	if (next_component(&p, &name, &len)) {
		for (const char *q = p; next_component(&q, &next_name, &next_len); q = p) {
			err = step(&cur, name, len);
			if (err)
				goto bad;
			p = q;
			name = next_name;
			len = next_len;
		}
		last->name = name;
		last->len = len;
		last->trailing_slash = *p == '/';
	}
	if (!inode_is_dir(cur))
		err = -ENOTDIR;
	else if (last->len > NAME_MAX)
		err = -ENAMETOOLONG;
	if (err)
		goto bad;
	last->dir = cur;
	return 0;
bad:
	inode_put(cur);
	return err;
}

int path_lookup(struct inode *start, const char *path, struct inode **out)
{
	struct path_last last;
	int err = path_lookup_parent(start, path, &last);

	if (err)
		return err;
	if (last.len)
		err = step(&last.dir, last.name, last.len);
	if (!err && last.trailing_slash && !inode_is_dir(last.dir))
		err = -ENOTDIR;
	if (err) {
		inode_put(last.dir);
		return err;
	}
	*out = last.dir;
	return 0;
}

int vfs_lookup_exec(struct inode *start, const char *path, struct inode **out)
{
	int err = path_lookup(start, path, out);

	if (err)
		return err;
	if (!inode_is_reg(*out) || !((*out)->mode & 0111)) {
		inode_put(*out);
		return -EACCES;
	}
	return 0;
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
	else
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
	else
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

/* Walks up from dir naming each step; a removed directory has no path. */
long vfs_getcwd(struct inode *dir, char *buf, size_t size)
{
	char name[NAME_MAX + 1];
	size_t at = size;
	struct inode *cur = dir, *parent;
	long len, err = 0;

	if (size == 0)
		return -ERANGE;
	buf[--at] = '\0';
	inode_get(cur);
	while (!err) {
		parent = dir_parent(cur);
		if (parent == cur) {
			inode_put(parent);
			break;
		}
		len = dir_name_of(parent, cur, name, sizeof(name));
		err = len < 0 ? len : prepend(buf, &at, name, len);
		inode_put(cur);
		cur = parent;
	}
	inode_put(cur);
	if (!err && at == size - 1)
		err = prepend(buf, &at, "", 0);
	if (err)
		return err;
	memmove(buf, buf + at, size - at);
	return size - at;
}
