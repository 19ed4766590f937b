/*
 * rename(2) on ext2, as Linux's ext2_rename: RENAME_NOREPLACE, no
 * RENAME_EXCHANGE (EINVAL, Linux's ext2 has none).  Under the instance's
 * ns_lock, which every namespace change takes, so the tree's shape
 * (each directory's "..") holds still while the ancestry is checked.
 * Order: the new name points at the inode (added, or an entry replaced)
 * before the old name goes, so a crash leaves two names and a low count
 * at worst, which e2fsck repairs; a moved directory's ".." follows.
 */
#include "fs/ext2/ext2.h"
#include "fs/mount.h"
#include "fs/notify/fsnotify.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

#define ANCESTRY_MAX 65536 /* ".." steps before a loop is damage */

/* Under ns_lock: is directory a b itself or one of b's ancestors?  The
 * walk reads ".." up to the root: 1, 0, or -EIO (a loop, a bad entry). */
static int is_ancestor(struct inode *a, struct inode *b)
{
	uint32_t ino = b->ino;

	if (!S_ISDIR(a->mode))
		return 0;
	for (int steps = 0; steps < ANCESTRY_MAX; steps++) {
		struct inode *cur;
		long up;

		if (ino == a->ino)
			return 1;
		if (ino == EXT2_ROOT_INO)
			return 0;
		if (ext2_iget(a->sb, ino, &cur))
			return -EIO;
		up = S_ISDIR(cur->mode) ? ext2_find_ino(cur, "..", 2) : 0;
		inode_put(cur);
		if (up <= 0)
			return -EIO;
		ino = up;
	}
	ext2_error(a->sb, "directory loop above inode", b->ino);
	return -EIO;
}

struct rename_op {
	struct inode *olddir, *newdir, *src, *dst; /* dst NULL: the name is free */
	const char *oldname, *newname;
	size_t oldlen, newlen;
	unsigned int flags;
};

/* Linux's checks once both names are known, in its order. */
static int check(const struct rename_op *r)
{
	int anc;

	if (!S_ISDIR(r->src->mode) && (r->flags & (RENAME_OLD_SLASH | RENAME_NEW_SLASH)))
		return -ENOTDIR;
	if ((r->flags & RENAME_NOREPLACE) && r->dst)
		return -EEXIST;
	if (r->flags & RENAME_EXCHANGE)
		return -EINVAL; /* Linux's ext2 does not exchange */
	if ((anc = is_ancestor(r->src, r->newdir)))
		return anc < 0 ? anc : -EINVAL; /* a directory into itself */
	if (r->dst && (anc = is_ancestor(r->dst, r->olddir)))
		return anc < 0 ? anc : -ENOTEMPTY;
	if (r->dst == r->src)
		return 0;
	if (mount_is_local(r->src) || (r->dst && mount_is_local(r->dst)))
		return -EBUSY;
	if (r->dst && S_ISDIR(r->src->mode) != S_ISDIR(r->dst->mode))
		return S_ISDIR(r->src->mode) ? -ENOTDIR : -EISDIR;
	if (r->dst && S_ISDIR(r->dst->mode) && (anc = ext2_dir_empty(r->dst)) <= 0)
		return anc ? anc : -ENOTEMPTY;
	if (!r->dst && S_ISDIR(r->src->mode) && r->olddir != r->newdir &&
	    r->newdir->nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	return 0;
}

/* Under ns_lock, checks done: the move itself. */
static int commit(struct rename_op *r)
{
	bool isdir = S_ISDIR(r->src->mode);
	uint32_t ino;
	int err;

	if (r->dst) {
		if ((err = ext2_set_entry(r->newdir, r->newname, r->newlen, r->src->ino,
					  r->src->mode)))
			return err;
		spin_lock(&r->dst->lock);
		r->dst->nlink = isdir ? 0 : r->dst->nlink - 1;
		if (isdir)
			r->dst->size = 0;
		r->dst->ctime_ns = ext2_now();
		spin_unlock(&r->dst->lock);
		ext2_write_inode(r->dst);
	} else {
		if ((err = ext2_add_entry(r->newdir, r->newname, r->newlen, r->src->ino,
					  r->src->mode)))
			return err;
		if (isdir) { /* written with the old directory's below */
			spin_lock(&r->newdir->lock);
			r->newdir->nlink++;
			spin_unlock(&r->newdir->lock);
		}
	}
	spin_lock(&r->src->lock);
	r->src->ctime_ns = ext2_now();
	spin_unlock(&r->src->lock);
	ext2_write_inode(r->src);
	err = ext2_remove_entry(r->olddir, r->oldname, r->oldlen, &ino);
	if (isdir) {
		if (r->olddir != r->newdir)
			err = ext2_set_entry(r->src, "..", 2, r->newdir->ino, S_IFDIR) ?: err;
		spin_lock(&r->olddir->lock);
		r->olddir->nlink--;
		spin_unlock(&r->olddir->lock);
		ext2_write_inode(r->olddir);
		ext2_write_inode(r->newdir);
	}
	return err;
}

/* Under ns_lock: finds both inodes, checks, commits. */
static int rename_locked(struct rename_op *r)
{
	long ino = ext2_find_ino(r->olddir, r->oldname, r->oldlen);
	int err;

	if (ino <= 0)
		return ino ? (int)ino : -ENOENT;
	if ((err = ext2_iget(r->olddir->sb, ino, &r->src)))
		return err;
	if (r->newdir->nlink == 0)
		return -ENOENT; /* the target directory was removed */
	if ((ino = ext2_find_ino(r->newdir, r->newname, r->newlen)) < 0)
		return ino;
	if (ino && (err = ext2_iget(r->olddir->sb, ino, &r->dst)))
		return err;
	if ((err = check(r)) || r->dst == r->src)
		return err; /* two names of one inode: Linux does nothing */
	/* Walks that must stay beneath a directory see a rename ran
	 * (inode.h's sequence, bumped under its lock around the change). */
	vfs_rename_lock();
	vfs_rename_seq_begin();
	vfs_rename_unlock();
	err = commit(r);
	vfs_rename_lock();
	vfs_rename_seq_end();
	vfs_rename_unlock();
	return err ? err : 1;
}

int ext2_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
		const char *newname, size_t newlen, unsigned int flags)
{
	struct ext2_sb_info *si = EXT2_SB(olddir->sb);
	struct rename_op r = {olddir, newdir, NULL, NULL, oldname, newname, oldlen, newlen, flags};
	int ret;

	if (ext2_rdonly(olddir->sb))
		return -EROFS;
	mutex_lock(&si->ns_lock);
	ret = rename_locked(&r);
	mutex_unlock(&si->ns_lock);
	if (ret > 0) {
		fsnotify_move(olddir, oldname, oldlen, newdir, newname, newlen, r.src);
		if (r.dst)
			fsnotify_inode(r.dst, IN_ATTRIB); /* it lost a name */
	}
	if (r.src)
		inode_put(r.src);
	if (r.dst)
		inode_put(r.dst); /* maybe its last reference: its blocks go */
	return ret > 0 ? 0 : ret;
}
