/*
 * A place in the tree: an inode as reached through a mount.  The same
 * directory can be reached through several mounts (bind mounts), and
 * where ".." leads, what getcwd prints and which mount flags apply
 * (read-only, noexec, nodev) depend on the mount, so walks, working
 * directories, roots and open files hold both (Linux's struct path).
 */
#ifndef FS_PATH_H
#define FS_PATH_H

#include <stdbool.h>

struct mount;
struct inode;

/* Both referenced by whoever holds the path (path_get, path_put).  mnt
 * is NULL only for an inode reached through no mount (a file of the
 * internal instance): such a path crosses no mount and has no flags. */
struct path {
	struct mount *mnt;
	struct inode *inode;
};

/* path_get and path_put (which drops both and clears *p) are mount.h's. */

static inline bool path_equal(const struct path *a, const struct path *b)
{
	return a->mnt == b->mnt && a->inode == b->inode;
}

#endif
