/* File-system contexts (see root_cwd.h). */
#include "fs/root_cwd.h"
#include "fs/inode.h"
#include "mm/heap.h"

struct fs_struct *fs_create(struct inode *cwd)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs) {
		inode_put(cwd);
		return NULL;
	}
	fs->refs = 1;
	spin_init(&fs->lock, "fs");
	fs->cwd = cwd;
	fs->umask = 022;
	return fs;
}

struct fs_struct *fs_copy(struct fs_struct *fs)
{
	struct fs_struct *copy = fs_create(fs_get_cwd(fs));

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
	inode_put(fs->cwd);
	kfree(fs);
}

struct inode *fs_get_cwd(struct fs_struct *fs)
{
	struct inode *cwd;

	spin_lock(&fs->lock);
	cwd = fs->cwd;
	inode_get(cwd);
	spin_unlock(&fs->lock);
	return cwd;
}

void fs_set_cwd(struct fs_struct *fs, struct inode *dir)
{
	struct inode *old;

	spin_lock(&fs->lock);
	old = fs->cwd;
	fs->cwd = dir;
	spin_unlock(&fs->lock);
	inode_put(old);
}

unsigned int fs_umask(const struct fs_struct *fs)
{
	return __atomic_load_n(&fs->umask, __ATOMIC_RELAXED);
}

unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask)
{
	return __atomic_exchange_n(&fs->umask, mask & 0777, __ATOMIC_RELAXED);
}
