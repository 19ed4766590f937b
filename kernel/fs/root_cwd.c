/* File-system contexts (see root_cwd.h). */
#include "fs/root_cwd.h"
#include "fs/mount.h"
#include "mm/heap.h"
#include <uapi/errno.h>

struct fs_struct *fs_create(struct path *root, struct path *cwd, struct mnt_namespace *ns)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs) {
		path_put(root);
		path_put(cwd);
		mnt_ns_put(ns);
		return NULL;
	}
	fs->mnt_ns = ns;
	fs->refs = 1;
	spin_init(&fs->lock, "fs");
	fs->root = *root;
	fs->cwd = *cwd;
	fs->umask = 022;
	return fs;
}

struct fs_struct *fs_copy(struct fs_struct *fs)
{
	struct path root, cwd;
	struct fs_struct *copy;

	fs_get_root(fs, &root);
	fs_get_cwd(fs, &cwd);
	mnt_ns_get(fs->mnt_ns); /* constant while fs is shared, as here */
	if ((copy = fs_create(&root, &cwd, fs->mnt_ns)))
		copy->umask = fs_umask(fs);
	return copy;
}

struct fs_struct *fs_share(struct fs_struct *fs)
{
	__atomic_add_fetch(&fs->refs, 1, __ATOMIC_RELAXED);
	return fs;
}

void fs_put(struct fs_struct *fs)
{
	if (!fs || __atomic_sub_fetch(&fs->refs, 1, __ATOMIC_ACQ_REL))
		return;
	path_put(&fs->root);
	path_put(&fs->cwd);
	mnt_ns_put(fs->mnt_ns);
	kfree(fs);
}

/* *out = a copy of *p (root or cwd), with references. */
static void fs_get(struct fs_struct *fs, const struct path *p, struct path *out)
{
	spin_lock_task(&fs->lock);
	*out = *p;
	path_get(out);
	spin_unlock_task(&fs->lock);
}

void fs_get_cwd(struct fs_struct *fs, struct path *out)
{
	fs_get(fs, &fs->cwd, out);
}

void fs_get_root(struct fs_struct *fs, struct path *out)
{
	fs_get(fs, &fs->root, out);
}

/* *p (root or cwd) becomes *dir, whose references it takes over. */
static void fs_set(struct fs_struct *fs, struct path *p, struct path *dir)
{
	struct path old;

	spin_lock_task(&fs->lock);
	old = *p;
	__atomic_store_n(&p->inode, dir->inode, __ATOMIC_RELAXED); /* fs_is_root's */
	__atomic_store_n(&p->mnt, dir->mnt, __ATOMIC_RELAXED);
	spin_unlock_task(&fs->lock);
	path_put(&old);
}

void fs_set_cwd(struct fs_struct *fs, struct path *dir)
{
	fs_set(fs, &fs->cwd, dir);
}

void fs_set_root(struct fs_struct *fs, struct path *dir)
{
	fs_set(fs, &fs->root, dir);
}

unsigned int fs_umask(const struct fs_struct *fs)
{
	return __atomic_load_n(&fs->umask, __ATOMIC_RELAXED);
}

unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask)
{
	return __atomic_exchange_n(&fs->umask, mask & 0777, __ATOMIC_RELAXED);
}

/* Under fs->lock: *p becomes new if it is old; the old references go to
 * *gone (put by the caller after the lock). */
static void replace_if(struct path *p, const struct path *old, const struct path *new,
		       struct path *gone)
{
	if (!path_equal(p, old))
		return;
	*gone = *p;
	path_get(new);
	__atomic_store_n(&p->inode, new->inode, __ATOMIC_RELAXED);
	__atomic_store_n(&p->mnt, new->mnt, __ATOMIC_RELAXED);
}

void fs_replace_dir(struct fs_struct *fs, const struct path *old, const struct path *new)
{
	struct path root = {NULL, NULL}, cwd = {NULL, NULL};

	spin_lock_task(&fs->lock);
	replace_if(&fs->root, old, new, &root);
	replace_if(&fs->cwd, old, new, &cwd);
	spin_unlock_task(&fs->lock);
	if (root.inode)
		path_put(&root);
	if (cwd.inode)
		path_put(&cwd);
}
