/*
 * The name-space calls that make or move names for existing things:
 * symlink, link and rename.  Path work here; the entry changes are the
 * file system's (dir_symlink, dir_link, dir_rename: inode.h).
 */
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/* "/", "." and "..": names that always exist and can never be made. */
static bool is_special(const struct path_last *last)
{
	return !last->len || is_dot(last->name, last->len) || is_dotdot(last->name, last->len);
}

/*
 * Linux's filename_create: where a new non-directory name may go.  EEXIST
 * if the name exists (or is special), ENOENT for "name/".
 */
static int new_name(const struct path *start, const char *path, struct path_last *last)
{
	struct inode *ip;
	int err = path_lookup_parent(start, path, last);

	if (err)
		return err;
	if (is_special(last))
		err = -EEXIST;
	else if ((ip = dir_lookup(last->dir.inode, last->name, last->len))) {
		inode_put(ip);
		err = -EEXIST;
	} else if (last->trailing_slash) {
		err = -ENOENT;
	}
	if (err)
		path_put(&last->dir);
	return err;
}

int vfs_symlink(const struct path *start, const char *path, const char *target)
{
	struct path_last last;
	size_t len = strnlen(target, PATH_MAX);
	int err;

	if (!len)
		return -ENOENT;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	err = new_name(start, path, &last);
	if (err)
		return err;
	err = path_want_write(&last.dir);
	if (!err)
		err = may_create(last.dir.inode);
	if (!err)
		err = dir_symlink(last.dir.inode, last.name, last.len, target, len);
	path_put(&last.dir);
	return err;
}

/* Linux's rule: a link or rename stays inside one mount (EXDEV across
 * two, even two of one instance); a file with no mount (O_TMPFILE's
 * own is set) only inside its instance. */
static bool same_mount(const struct path *a, const struct path *b)
{
	return a->mnt ? a->mnt == b->mnt : a->inode->sb == b->inode->sb;
}

int vfs_link_inode(const struct path *old, const struct path *newstart, const char *newpath)
{
	struct path_last last;
	struct inode *ip = old->inode;
	int err = new_name(newstart, newpath, &last);

	if (!err) {
		/* No new name is ever found in /proc (its lookups say ENOENT,
		 * before Linux looks at mounts).  Hard links to directories
		 * would make loops. */
		err = last.dir.inode->sb->type == &proc_type ? -ENOENT
		      : path_want_write(&last.dir)	     ? -EROFS
		      : !same_mount(old, &last.dir)	     ? -EXDEV
							     : may_create(last.dir.inode);
		if (!err)
			err = inode_is_dir(ip) || inode_may_setattr(ip)
				  ? -EPERM /* a directory, an immutable or append-only file */
				  : dir_link(last.dir.inode, last.name, last.len, ip);
		path_put(&last.dir);
	}
	return err;
}

int vfs_link(const struct path *oldstart, const char *oldpath, const struct path *newstart,
	     const char *newpath, bool follow)
{
	struct path old;
	int err = path_lookup_path(oldstart, oldpath, follow ? 0 : LOOKUP_NOFOLLOW, &old);

	if (err)
		return err;
	err = vfs_link_inode(&old, newstart, newpath);
	path_put(&old);
	return err;
}

/* A directory that changes parent needs write permission on itself: its
 * ".." changes. */
static int may_reparent(const struct inode *ip, const struct path_last *old,
			const struct path_last *new)
{
	if (!ip || !inode_is_dir(ip) || old->dir.inode == new->dir.inode)
		return 0;
	return inode_permission(ip, MAY_WRITE);
}

/*
 * Linux's vfs_rename permission checks: the source may leave its
 * directory, the target may be replaced there (or a name made), and a
 * directory changing parent (either one, for RENAME_EXCHANGE) may be
 * written.  -ENOENT for a missing source; the file system's own checks
 * come after.
 */
static int rename_check(const struct path_last *old, const struct path_last *new,
			unsigned int flags)
{
	struct inode *src = dir_lookup(old->dir.inode, old->name, old->len);
	struct inode *dst = src ? dir_lookup(new->dir.inode, new->name, new->len) : NULL;
	int err = src ? may_delete(old->dir.inode, src) : -ENOENT;

	if (!err)
		err = dst ? may_delete(new->dir.inode, dst) : may_create(new->dir.inode);
	if (!err)
		err = may_reparent(src, old, new);
	if (!err && (flags & RENAME_EXCHANGE))
		err = may_reparent(dst, new, old);
	if (src)
		inode_put(src);
	if (dst)
		inode_put(dst);
	return err;
}

int vfs_rename(const struct path *oldstart, const char *oldpath, const struct path *newstart,
	       const char *newpath, unsigned int flags)
{
	struct path_last old, new;
	int err = path_lookup_parent(oldstart, oldpath, &old);

	if (err)
		return err;
	err = path_lookup_parent(newstart, newpath, &new);
	if (err)
		goto out_old;
	if (!same_mount(&old.dir, &new.dir))
		err = -EXDEV;
	else if (is_special(&old))
		err = -EBUSY;
	else if (is_special(&new))
		err = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	else if (!(err = path_want_write(&old.dir)) && !(err = rename_check(&old, &new, flags)))
		err = dir_rename(old.dir.inode, old.name, old.len, new.dir.inode, new.name, new.len,
				 flags | (old.trailing_slash ? RENAME_OLD_SLASH : 0) |
				     (new.trailing_slash ? RENAME_NEW_SLASH : 0));
	path_put(&new.dir);
out_old:
	path_put(&old.dir);
	return err;
}
