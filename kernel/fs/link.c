/*
 * The name-space calls that make or move names for existing things:
 * symlink, link and rename.  Path work here; the entry changes are the
 * ramfs's (dir_link, dir_rename).
 */
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
static int new_name(struct inode *start, const char *path, struct path_last *last)
{
	struct inode *ip;
	int err = path_lookup_parent(start, path, last);

	if (err)
		return err;
	if (is_special(last))
		err = -EEXIST;
	else if ((ip = dir_lookup(last->dir, last->name, last->len))) {
		inode_put(ip);
		err = -EEXIST;
	} else if (last->trailing_slash) {
		err = -ENOENT;
	}
	if (err)
		inode_put(last->dir);
	return err;
}

int vfs_symlink(struct inode *start, const char *path, const char *target)
{
	struct path_last last;
	struct inode *ip;
	size_t len = strnlen(target, PATH_MAX);
	int err;

	if (!len)
		return -ENOENT;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	err = new_name(start, path, &last);
	if (err)
		return err;
	err = sb_want_write(last.dir->sb);
	if (!err)
		err = inode_alloc_symlink(last.dir->sb, target, len, &ip);
	if (!err) {
		err = dir_add_new(last.dir, last.name, last.len, ip);
		inode_put(ip); /* the entry holds it now, or nothing does */
	}
	inode_put(last.dir);
	return err;
}

int vfs_link_inode(struct inode *ip, struct inode *newstart, const char *newpath)
{
	struct path_last last;
	int err = new_name(newstart, newpath, &last);

	if (!err) {
		/* No new name is ever found in /proc (its lookups say ENOENT,
		 * before Linux looks at mounts).  Hard links to directories
		 * would make loops. */
		err = last.dir->sb->type == &proc_type ? -ENOENT
		      : sb_want_write(last.dir->sb)	   ? -EROFS
		      : ip->sb != last.dir->sb		   ? -EXDEV
		      : inode_is_dir(ip)		   ? -EPERM
							   : dir_link(last.dir, last.name, last.len, ip);
		inode_put(last.dir);
	}
	return err;
}

int vfs_link(struct inode *oldstart, const char *oldpath, struct inode *newstart,
	     const char *newpath, bool follow)
{
	struct inode *ip;
	int err = path_lookup_flags(oldstart, oldpath, follow ? 0 : LOOKUP_NOFOLLOW, &ip);

	if (err)
		return err;
	err = vfs_link_inode(ip, newstart, newpath);
	inode_put(ip);
	return err;
}

int vfs_rename(struct inode *oldstart, const char *oldpath, struct inode *newstart,
	       const char *newpath, unsigned int flags)
{
	struct path_last old, new;
	int err = path_lookup_parent(oldstart, oldpath, &old);

	if (err)
		return err;
	err = path_lookup_parent(newstart, newpath, &new);
	if (err)
		goto out_old;
	if (old.dir->sb != new.dir->sb)
		err = -EXDEV;
	else if (is_special(&old))
		err = -EBUSY;
	else if (is_special(&new))
		err = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	else if (!(err = sb_want_write(old.dir->sb)))
		err = dir_rename(old.dir, old.name, old.len, new.dir, new.name, new.len,
				 flags | (old.trailing_slash ? RENAME_OLD_SLASH : 0) |
				     (new.trailing_slash ? RENAME_NEW_SLASH : 0));
	inode_put(new.dir);
out_old:
	inode_put(old.dir);
	return err;
}
