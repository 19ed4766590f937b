/*
 * ramfs directories: entries in creation order (getdents's cookies), a
 * hash table by name once there are many, the "." and ".." a directory
 * has, and the directory operations of ramfs_dir_iops (rename is
 * ramfs_rename.c's).  Lock order: a directory before its children (the
 * tree has no cycles); ramfs_rename.c's rename_lock before both.
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/ramfs_priv.h"
#include "fs/mount.h"
#include "fs/notify/fsnotify.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/dirent.h>
#include <uapi/errno.h>
#include <uapi/inotify.h>

/*
 * A name's hash (FNV-1a) and length in one word.  A lookup compares it
 * before any byte of a name, so its cost in a directory of n entries is
 * n compares and, nearly always, one memcmp (exec's /bin/<program> among
 * 83 names compared every name of its length: 1,800 instructions,
 * docs/bench.md).
 */
static uint64_t name_key(const char *name, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return (uint64_t)h << 32 | len;
}

/* Under dir->lock: the chain key's entries are on (the hash half of
 * the key: its low half is the length). */
static struct ramfs_dirent **bucket_of(struct inode *dir, uint64_t key)
{
	return &RAMFS_I(dir)->dir.buckets[(key >> 32) & RAMFS_I(dir)->dir.mask];
}

struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len)
{
	uint64_t key = name_key(name, len);
	struct ramfs_dirent *e;

	if (RAMFS_I(dir)->dir.buckets) {
		for (e = *bucket_of(dir, key); e; e = e->hnext)
			if (e->key == key && e->len == len && !memcmp(e->name, name, len))
				return e;
		return NULL;
	}
	list_for_each_entry(e, &RAMFS_I(dir)->dir.entries, link)
	{
		if (e->key == key && !memcmp(e->name, name, len))
			return e;
	}
	return NULL;
}

/* Below this many entries the list is as quick as a table. */
#define DIR_HASH_MIN 32

void dir_hash_add(struct inode *dir, struct ramfs_dirent *e)
{
	if (RAMFS_I(dir)->dir.buckets) {
		struct ramfs_dirent **b = bucket_of(dir, e->key);
		e->hnext = *b;
		*b = e;
	}
}

/* Called before dir->size drops for e.  A directory that falls back
 * below DIR_HASH_MIN gives its table back (the list is as quick there),
 * so a directory that grew for a while and shrank again holds no more
 * memory than before (the leak check compares the heap's bytes). */
void dir_hash_del(struct inode *dir, struct ramfs_dirent *e)
{
	struct ramfs_inode *ri = RAMFS_I(dir);

	if (ri->dir.buckets) {
		struct ramfs_dirent **p = bucket_of(dir, e->key);
		while (*p != e)
			p = &(*p)->hnext;
		*p = e->hnext;
	}
	if (ri->dir.buckets && dir->size <= DIR_HASH_MIN) {
		kfree(ri->dir.buckets);
		ri->dir.buckets = NULL;
		ri->dir.mask = 0;
	}
}

/*
 * As many buckets as entries, a power of two, so chains stay short; the
 * table is made with no lock held and swapped in under it, the entries
 * rehashed there.  Without memory the old table (or the list) stays:
 * slower, still right.
 */
void dir_hash_grow(struct inode *dir)
{
	struct ramfs_inode *ri = RAMFS_I(dir);
	size_t n = __atomic_load_n(&dir->size, __ATOMIC_RELAXED), want = DIR_HASH_MIN * 2;
	struct ramfs_dirent **buckets, **old, *e;

	if (n < DIR_HASH_MIN)
		return;
	while (want < n)
		want *= 2;
	if (__atomic_load_n(&ri->dir.mask, __ATOMIC_RELAXED) + 1 >= want ||
	    !(buckets = kzalloc(want * sizeof(*buckets))))
		return;
	spin_lock(&dir->lock);
	old = ri->dir.buckets;
	if (ri->dir.mask + 1 >= want) {
		old = buckets; /* another grew it meanwhile */
	} else {
		ri->dir.buckets = buckets;
		ri->dir.mask = want - 1;
		list_for_each_entry(e, &ri->dir.entries, link) dir_hash_add(dir, e);
	}
	spin_unlock(&dir->lock);
	kfree(old);
}

int ramfs_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct ramfs_dirent *e;

	*out = NULL;
	spin_lock(&dir->lock);
	if ((e = find_entry(dir, name, len))) {
		*out = e->ip;
		inode_get(*out);
	}
	spin_unlock(&dir->lock);
	return *out ? 0 : -ENOENT;
}

/*
 * Under dir->lock: e (name filled in) names ip in dir from now on.  A new
 * inode (fresh) gets its first name; an existing one must still have one,
 * or it could come back from an unlink (Linux's linkat: ENOENT), unless it
 * is an O_TMPFILE file still waiting for its first (file.linkable).
 */
static int link_entry(struct inode *dir, struct ramfs_dirent *e, struct inode *ip, bool fresh)
{
	spin_lock(&ip->lock); /* a leaf or a new directory: nothing below it is locked */
	if (!fresh && ip->nlink == 0 && !(S_ISREG(ip->mode) && RAMFS_I(ip)->file.linkable)) {
		spin_unlock(&ip->lock);
		return -ENOENT;
	}
	if (S_ISREG(ip->mode))
		RAMFS_I(ip)->file.linkable = false;
	ip->nlink++;
	if (S_ISDIR(ip->mode)) {
		ip->nlink = 2; /* its own "." */
		RAMFS_I(ip)->dir.parent = dir;
		inode_get(dir);
		dir->nlink++; /* the child's ".." */
	}
	ip->ctime_ns = inode_now_ns();
	spin_unlock(&ip->lock);
	e->ip = ip;
	e->pos = RAMFS_I(dir)->dir.next_pos++;
	inode_get(ip); /* the entry's reference */
	list_add_tail(&e->link, &RAMFS_I(dir)->dir.entries);
	dir_hash_add(dir, e);
	dir->size++;
	dir->mtime_ns = dir->ctime_ns = inode_now_ns();
	return 0;
}

struct ramfs_dirent *dirent_alloc(const char *name, size_t len)
{
	struct ramfs_dirent *e = kmalloc(sizeof(*e) + len + 1);

	if (!e)
		return NULL;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->len = len;
	e->key = name_key(name, len);
	return e;
}

/* Under dir->lock: can dir take a new entry name?  *old is set on EEXIST. */
static int can_add(struct inode *dir, const char *name, size_t len, struct ramfs_dirent **old)
{
	if (dir->nlink == 0)
		return -ENOENT; /* removed while we walked to it */
	if ((*old = find_entry(dir, name, len)))
		return -EEXIST;
	return 0;
}

static int add_entry(struct inode *dir, const char *name, size_t len, struct inode *ip, bool fresh)
{
	struct ramfs_dirent *e = dirent_alloc(name, len), *old;
	int err;

	if (!e)
		return -ENOMEM;
	spin_lock(&dir->lock);
	err = can_add(dir, name, len, &old);
	if (!err)
		err = link_entry(dir, e, ip, fresh);
	spin_unlock(&dir->lock);
	if (err) {
		kfree(e);
		return err;
	}
	dir_hash_grow(dir);
	if (!fresh)
		fsnotify_inode(ip, IN_ATTRIB); /* its link count (Linux's fsnotify_link) */
	fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
	return 0;
}

int ramfs_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	return add_entry(dir, name, len, ip, false);
}

/* The target is charged as one page of the size limit, as tmpfs charges a
 * long symlink's page: links cannot take the heap without bound. */
int ramfs_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen)
{
	struct inode *ip;
	int err;

	if (!sb_charge_pages(dir->sb, 1))
		return -ENOSPC;
	if (!(ip = inode_alloc(dir->sb, S_IFLNK | 0777, 0))) {
		sb_uncharge_pages(dir->sb, 1);
		return inode_alloc_error(dir->sb);
	}
	inode_init_owner(ip, dir);
	if (!(ip->link.target = kmalloc(tlen + 1))) {
		inode_put(ip); /* uncharges */
		return -ENOMEM;
	}
	memcpy(ip->link.target, target, tlen);
	ip->link.target[tlen] = '\0';
	ip->size = tlen;
	err = add_entry(dir, name, len, ip, true);
	inode_put(ip); /* the entry holds it now, or nothing does */
	return err;
}

int ramfs_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		 struct inode **out)
{
	struct inode *ip = inode_alloc(dir->sb, mode, rdev);
	struct ramfs_dirent *e = dirent_alloc(name, len), *old;
	int err = ip ? -ENOMEM : inode_alloc_error(dir->sb);

	*out = NULL;
	if (!ip || !e)
		goto bad;
	inode_init_owner(ip, dir);
	spin_lock(&dir->lock);
	err = can_add(dir, name, len, &old);
	if (!err) {
		link_entry(dir, e, ip, true);
		*out = ip;
	} else if (err == -EEXIST) {
		inode_get(old->ip);
		*out = old->ip;
	}
	spin_unlock(&dir->lock);
	if (!err) {
		dir_hash_grow(dir);
		fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
		return 0;
	}
bad:
	if (ip)
		inode_put(ip);
	kfree(e);
	return err;
}

/* Under dir->lock and child's: may e's inode go?  rmdir needs an empty directory. */
static int removable(struct ramfs_dirent *e, bool want_dir)
{
	bool is_dir = S_ISDIR(e->ip->mode);

	if (want_dir && !is_dir)
		return -ENOTDIR;
	if (!want_dir && is_dir)
		return -EISDIR;
	if (is_dir && !list_empty(&RAMFS_I(e->ip)->dir.entries))
		return -ENOTEMPTY;
	return mount_is_local(e->ip) ? -EBUSY : 0;
}

/* Lock order: a directory before its children (the tree has no cycles). */
static int remove_entry(struct inode *dir, const char *name, size_t len, bool want_dir)
{
	struct ramfs_dirent *e;
	int err = -ENOENT;

	spin_lock(&dir->lock);
	e = find_entry(dir, name, len);
	if (e) {
		struct inode *ip = e->ip;
		spin_lock(&ip->lock);
		err = removable(e, want_dir);
		if (!err) {
			ip->nlink = S_ISDIR(ip->mode) ? 0 : ip->nlink - 1;
			ip->ctime_ns = inode_now_ns();
		}
		spin_unlock(&ip->lock);
	}
	if (!err) {
		list_del(&e->link);
		dir_hash_del(dir, e);
		dir->size--;
		if (want_dir)
			dir->nlink--;
		dir->mtime_ns = dir->ctime_ns = inode_now_ns();
	}
	spin_unlock(&dir->lock);
	if (err)
		return err;
	if (!want_dir)
		fsnotify_inode(e->ip, IN_ATTRIB); /* its link count, as Linux's unlink */
	mount_detach_at(e->ip); /* other namespaces' mounts on it */
	bool watched = fsnotify_watched(dir);	  /* e->ip may go now */
	uint32_t isdir = S_ISDIR(e->ip->mode) ? IN_ISDIR : 0;
	inode_put(e->ip); /* the last name and user: IN_DELETE_SELF, before IN_DELETE (Linux) */
	if (watched)
		__fsnotify_name(dir, IN_DELETE | isdir, e->name, e->len, 0);
	kfree(e);
	return 0;
}

int ramfs_unlink(struct inode *dir, const char *name, size_t len)
{
	return remove_entry(dir, name, len, false);
}

int ramfs_rmdir(struct inode *dir, const char *name, size_t len)
{
	return remove_entry(dir, name, len, true);
}

/* Takes dir's first entry out, its reference passing to the caller:
 * the inode, or NULL when dir is empty. */
static struct inode *take_first(struct inode *dir)
{
	struct ramfs_dirent *e = NULL;
	struct inode *ip;

	spin_lock(&dir->lock);
	if (!list_empty(&RAMFS_I(dir)->dir.entries)) {
		e = list_first_entry(&RAMFS_I(dir)->dir.entries, struct ramfs_dirent, link);
		list_del(&e->link);
		dir_hash_del(dir, e);
		dir->size--;
		ip = e->ip;
		spin_lock(&ip->lock);
		/* A directory is dead from here on (dir_create refuses it), as
		 * dir is already: its own nlink stays 0. */
		ip->nlink = S_ISDIR(ip->mode) ? 0 : ip->nlink - 1;
		spin_unlock(&ip->lock);
	}
	spin_unlock(&dir->lock);
	if (!e)
		return NULL;
	kfree(e);
	return ip;
}

/*
 * Depth first, holding one walking reference: going down, the child's
 * ".." keeps its directory; coming back up, the walk takes the parent
 * before it lets the emptied directory go.
 */
void ramfs_kill_tree(struct inode *root)
{
	struct inode *cur = root, *child, *parent;

	/* Dead first: a walk still inside (a lazy umount's) may not add to
	 * it, or its entries and their ".." would hold each other forever. */
	spin_lock(&root->lock);
	root->nlink = 0;
	spin_unlock(&root->lock);
	for (;;) {
		if ((child = take_first(cur))) {
			if (!S_ISDIR(child->mode)) {
				inode_put(child);
				continue;
			}
			inode_put(cur); /* child's ".." holds it */
			cur = child;
			continue;
		}
		if (cur == root)
			break;
		parent = RAMFS_I(cur)->dir.parent;
		inode_get(parent);
		inode_put(cur);
		cur = parent;
	}
	inode_put(root);
}

struct inode *ramfs_parent(struct inode *dir)
{
	spin_lock(&dir->lock);
	struct inode *p = RAMFS_I(dir)->dir.parent ? RAMFS_I(dir)->dir.parent : dir;
	inode_get(p);
	spin_unlock(&dir->lock);
	return p;
}

long ramfs_name_of(struct inode *dir, struct inode *child, char *buf, size_t size)
{
	struct ramfs_dirent *e;
	long len = -ENOENT;

	spin_lock(&dir->lock);
	list_for_each_entry(e, &RAMFS_I(dir)->dir.entries, link)
	{
		if (e->ip == child) {
			len = e->len;
			strlcpy(buf, e->name, size);
			break;
		}
	}
	spin_unlock(&dir->lock);
	return len;
}

bool ramfs_iterate_entries(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	struct ramfs_inode *ri = RAMFS_I(dir);
	struct ramfs_dirent *e;
	bool full = false;

	spin_lock(&dir->lock);
	if (*pos == 0 && emit(ctx, ".", 1, dir->ino, DT_DIR, 1))
		*pos = 1;
	if (*pos == 1) {
		struct inode *p = ri->dir.parent ? ri->dir.parent : dir;
		if (emit(ctx, "..", 2, p->ino, DT_DIR, 2))
			*pos = 2;
	}
	if (*pos < 2) {
		full = true;
		goto out;
	}
	list_for_each_entry(e, &ri->dir.entries, link)
	{
		if (e->pos < *pos)
			continue;
		/* S_IFMT >> 12 is the d_type, as in Linux. */
		if (!emit(ctx, e->name, e->len, e->ip->ino, (e->ip->mode & S_IFMT) >> 12,
			  e->pos + 1)) {
			full = true;
			break;
		}
		*pos = e->pos + 1;
	}
out:
	spin_unlock(&dir->lock);
	return !full;
}

/* The entries of a directory being freed (its last reference gone): each
 * entry's reference, then its "..". */
void ramfs_free_dir(struct inode *dir)
{
	struct ramfs_inode *ri = RAMFS_I(dir);
	struct ramfs_dirent *e, *n;

	list_for_each_entry_safe(e, n, &ri->dir.entries, link)
	{
		inode_put(e->ip);
		kfree(e);
	}
	kfree(ri->dir.buckets);
	if (ri->dir.parent && ri->dir.parent != dir)
		inode_put(ri->dir.parent);
}

void ramfs_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	ramfs_iterate_entries(dir, pos, emit, ctx);
}
