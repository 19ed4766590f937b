/*
 * rename(2) in the ramfs: one entry moves (or two swap) between two locked
 * directories, so no lookup ever sees the name missing or half-moved.
 *
 * Locking.  The VFS's rename lock (vfs_rename_lock, inode.h) serialises
 * renames: only a rename changes a directory's parent, so under it the
 * tree's shape holds still and the ancestor checks may follow dir.parent
 * without taking inode locks.  The
 * two directories are then locked ancestor first (the order every other
 * path uses: dir_remove locks a parent before its child) or, if neither
 * contains the other, by address; the moved and the replaced inode are
 * locked one at a time after them, as leaves.
 */
#include "fs/notify/fsnotify.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/ramfs/ramfs_priv.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

/* Under the rename lock: is a (a directory) b itself or one of b's ancestors? */
static bool is_ancestor(struct inode *a, struct inode *b)
{
	if (!S_ISDIR(a->mode))
		return false;
	for (;;) {
		if (b == a)
			return true;
		if (!RAMFS_I(b)->dir.parent || RAMFS_I(b)->dir.parent == b)
			return false;
		b = RAMFS_I(b)->dir.parent;
	}
}

static void lock_two(struct inode *a, struct inode *b)
{
	if (a == b) {
		spin_lock(&a->lock);
		return;
	}
	if (is_ancestor(b, a) || (!is_ancestor(a, b) && b < a)) {
		struct inode *t = a;
		a = b;
		b = t;
	}
	spin_lock(&a->lock);
	spin_lock(&b->lock);
}

static void unlock_two(struct inode *a, struct inode *b)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
}

/* The two names and the inodes found under both directory locks. */
struct rename_op {
	struct inode *olddir, *newdir;
	struct ramfs_dirent *old, *new; /* new is NULL if the name is free */
	unsigned int flags;
	/* Once committed: the moved inode and the replaced (or, exchanged,
	 * the other) one, referenced for the events sent after the locks. */
	struct inode *moved, *other;
};

/* Linux's do_renameat2 checks, in its order, once both entries are known. */
static int check_names(const struct rename_op *r)
{
	struct inode *src = r->old->ip, *dst = r->new ? r->new->ip : NULL;
	bool exchange = r->flags & RENAME_EXCHANGE;

	if (!S_ISDIR(src->mode) &&
	    ((r->flags & RENAME_OLD_SLASH) || (!exchange && (r->flags & RENAME_NEW_SLASH))))
		return -ENOTDIR;
	if ((r->flags & RENAME_NOREPLACE) && dst)
		return -EEXIST;
	if (exchange && !dst)
		return -ENOENT;
	if (exchange && !S_ISDIR(dst->mode) && (r->flags & RENAME_NEW_SLASH))
		return -ENOTDIR;
	if (is_ancestor(src, r->newdir))
		return -EINVAL; /* a directory into itself */
	if (dst && is_ancestor(dst, r->olddir))
		return exchange ? -EINVAL : -ENOTEMPTY;
	return 0;
}

/*
 * Under both directory locks: the directory ip now lives in `to`, no longer
 * in `from` (its ".." moves).  Returns the reference on `from` it held,
 * to drop once the locks are gone.
 */
static struct inode *reparent(struct inode *ip, struct inode *from, struct inode *to)
{
	if (!S_ISDIR(ip->mode) || from == to)
		return NULL;
	inode_get(to);
	spin_lock(&ip->lock);
	RAMFS_I(ip)->dir.parent = to;
	spin_unlock(&ip->lock);
	from->nlink--;
	to->nlink++;
	return from;
}

static void touch_ctime(struct inode *ip, uint64_t now)
{
	spin_lock(&ip->lock);
	ip->ctime_ns = now;
	spin_unlock(&ip->lock);
}

/*
 * Under both directory locks: may dst be replaced by src?  If so it loses
 * its name (and, a directory, its ".." in dir) in the same critical
 * section as the emptiness check, so nothing can be created in it between.
 */
static int drop_victim(struct inode *dir, struct inode *src, struct inode *dst, uint64_t now)
{
	int err = 0;

	spin_lock(&dst->lock);
	if (S_ISDIR(src->mode) && !S_ISDIR(dst->mode))
		err = -ENOTDIR;
	else if (!S_ISDIR(src->mode) && S_ISDIR(dst->mode))
		err = -EISDIR;
	else if (S_ISDIR(dst->mode) && !list_empty(&RAMFS_I(dst)->dir.entries))
		err = -ENOTEMPTY;
	if (!err) {
		dst->nlink = S_ISDIR(dst->mode) ? 0 : dst->nlink - 1;
		dst->ctime_ns = now;
	}
	spin_unlock(&dst->lock);
	if (!err && S_ISDIR(dst->mode))
		dir->nlink--;
	return err;
}

/* What to free once the locks are gone. */
struct rename_garbage {
	struct inode *put[2];		 /* references to drop */
	struct ramfs_dirent *entries[2]; /* entries no longer used */
};

/*
 * Under both locks, checks done (a replaced inode already dropped): moves
 * the entry, or swaps the two.  fresh is the new name's entry if needed.
 */
static void commit(struct rename_op *r, struct ramfs_dirent *fresh, struct rename_garbage *g,
		   uint64_t now)
{
	struct inode *src = r->old->ip, *dst = r->new ? r->new->ip : NULL;

	g->put[0] = reparent(src, r->olddir, r->newdir);
	if (r->flags & RENAME_EXCHANGE) {
		g->put[1] = reparent(dst, r->newdir, r->olddir);
		r->old->ip = dst;
		r->new->ip = src;
		touch_ctime(dst, now);
	} else {
		list_del(&r->old->link);
		dir_hash_del(r->olddir, r->old);
		r->olddir->size--;
		g->entries[1] = r->old;
		if (dst) {
			g->put[1] = dst; /* the replaced entry's reference */
			r->new->ip = src;
		} else {
			fresh->ip = src;
			fresh->pos = RAMFS_I(r->newdir)->dir.next_pos++;
			list_add_tail(&fresh->link, &RAMFS_I(r->newdir)->dir.entries);
			dir_hash_add(r->newdir, fresh);
			r->newdir->size++;
			g->entries[0] = NULL; /* fresh is in use */
		}
	}
	touch_ctime(src, now);
	r->olddir->mtime_ns = r->olddir->ctime_ns = now;
	r->newdir->mtime_ns = r->newdir->ctime_ns = now;
}

/* Under both directory locks: finds the entries, checks, commits. */
static int rename_locked(struct rename_op *r, const char *oldname, size_t oldlen,
			 const char *newname, size_t newlen, struct ramfs_dirent *fresh,
			 struct rename_garbage *g)
{
	uint64_t now = inode_now_ns();
	int err;

	r->old = find_entry(r->olddir, oldname, oldlen);
	if (!r->old)
		return -ENOENT;
	if (r->newdir->nlink == 0)
		return -ENOENT; /* the target directory was removed */
	r->new = find_entry(r->newdir, newname, newlen);
	err = check_names(r);
	if (err)
		return err;
	if (r->new && r->new->ip == r->old->ip)
		return 0; /* two names of one inode: Linux does nothing */
	if (mount_is_local(r->old->ip) || (r->new &&mount_is_local(r->new->ip)))
		return -EBUSY; /* a mount point stays where it is (Linux's vfs_rename) */
	if (r->new && !(r->flags & RENAME_EXCHANGE) &&
	    (err = drop_victim(r->newdir, r->old->ip, r->new->ip, now)))
		return err;
	r->moved = r->old->ip;
	inode_get(r->moved);
	if ((r->other = r->new ? r->new->ip : NULL))
		inode_get(r->other);
	vfs_rename_seq_begin();
	commit(r, fresh, g, now);
	vfs_rename_seq_end();
	return 0;
}

/* The events of a committed rename, sent without locks; drops r's references. */
static void notify_rename(struct rename_op *r, const char *oldname, size_t oldlen,
			  const char *newname, size_t newlen)
{
	fsnotify_move(r->olddir, oldname, oldlen, r->newdir, newname, newlen, r->moved);
	if (r->other && (r->flags & RENAME_EXCHANGE))
		fsnotify_move(r->newdir, newname, newlen, r->olddir, oldname, oldlen, r->other);
	else if (r->other)
		fsnotify_inode(r->other, IN_ATTRIB); /* it lost a name */
	inode_put(r->moved);
	if (r->other)
		inode_put(r->other);
}

int ramfs_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
		 const char *newname, size_t newlen, unsigned int flags)
{
	struct rename_op r = {.olddir = olddir, .newdir = newdir, .flags = flags};
	struct ramfs_dirent *fresh = dirent_alloc(newname, newlen);
	struct rename_garbage g = {.entries = {fresh, NULL}};
	int err;

	if (!fresh)
		return -ENOMEM;
	vfs_rename_lock();
	lock_two(olddir, newdir);
	err = rename_locked(&r, oldname, oldlen, newname, newlen, fresh, &g);
	unlock_two(olddir, newdir);
	vfs_rename_unlock();
	if (!err && !g.entries[0])
		dir_hash_grow(newdir); /* fresh joined it */
	if (!err && r.moved)
		notify_rename(&r, oldname, oldlen, newname, newlen);
	for (int i = 0; i < 2; i++) {
		kfree(g.entries[i]);
		if (g.put[i])
			inode_put(g.put[i]);
	}
	return err;
}
