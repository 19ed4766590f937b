/* File-system contexts (see root_cwd.h). */
#include "fs/root_cwd.h"
#include "fs/inode.h"
#include "mm/heap.h"

struct fs_struct *fs_create(struct inode *root, struct inode *cwd)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs) {
		inode_put(root);
		inode_put(cwd);
		return NULL;
	}
	fs->refs = 1;
	spin_init(&fs->lock, "fs");
	fs->root = root;
	fs->cwd = cwd;
	fs->umask = 022;
	return fs;
}

struct fs_struct *fs_copy(struct fs_struct *fs)
{
	struct fs_struct *copy = fs_create(fs_get_root(fs), fs_get_cwd(fs));

	if (copy)
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
	inode_put(fs->root);
	inode_put(fs->cwd);
	kfree(fs);
}

static struct inode *get_dir(struct fs_struct *fs, struct inode **slot)
{
	struct inode *dir;

	spin_lock(&fs->lock);
	dir = *slot;
	inode_get(dir);
	spin_unlock(&fs->lock);
	return dir;
}

static void set_dir(struct fs_struct *fs, struct inode **slot, struct inode *dir)
{
	struct inode *old;

	spin_lock(&fs->lock);
	old = *slot;
	__atomic_store_n(slot, dir, __ATOMIC_RELAXED); /* fs_root_hint reads it unlocked */
	spin_unlock(&fs->lock);
	inode_put(old);
}

struct inode *fs_get_cwd(struct fs_struct *fs)
{
	return get_dir(fs, &fs->cwd);
}

struct inode *fs_get_root(struct fs_struct *fs)
{
	return get_dir(fs, &fs->root);
}

void fs_set_cwd(struct fs_struct *fs, struct inode *dir)
{
	set_dir(fs, &fs->cwd, dir);
}

void fs_set_root(struct fs_struct *fs, struct inode *dir)
{
	set_dir(fs, &fs->root, dir);
}

unsigned int fs_umask(const struct fs_struct *fs)
{
	return __atomic_load_n(&fs->umask, __ATOMIC_RELAXED);
}

unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask)
{
	return __atomic_exchange_n(&fs->umask, mask & 0777, __ATOMIC_RELAXED);
}

int fs_replace_dir(struct fs_struct *fs, const struct inode *old, struct inode *new)
{
	int replaced = 0;

	spin_lock(&fs->lock);
	if (fs->root == old) {
		inode_get(new);
		__atomic_store_n(&fs->root, new, __ATOMIC_RELAXED);
		replaced++;
	}
	if (fs->cwd == old) {
		inode_get(new);
		fs->cwd = new;
		replaced++;
	}
	spin_unlock(&fs->lock);
	return replaced;
}
