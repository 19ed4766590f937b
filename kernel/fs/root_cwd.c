/* File-system contexts (see root_cwd.h). */
#include "fs/root_cwd.h"
#include "fs/inode.h"
#include "mm/heap.h"
#include "sched/grace.h"
#include <uapi/errno.h>

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

struct inode *fs_get_cwd(struct fs_struct *fs)
{
	struct inode *cwd;

	spin_lock(&fs->lock);
	cwd = fs->cwd;
	inode_get(cwd);
	spin_unlock(&fs->lock);
	return cwd;
}

/*
 * Lock-free, as every absolute path starts here: a root that chroot
 * replaces is put only after a grace period (fs_set_root), so the one
 * loaded here is alive until this CPU next schedules, and the reference
 * taken before that keeps it.
 */
struct inode *fs_get_root(struct fs_struct *fs)
{
	struct inode *root = __atomic_load_n(&fs->root, __ATOMIC_ACQUIRE);

	inode_get(root);
	return root;
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

/* The old root, waiting out a grace period (fs_get_root's readers). */
struct root_put {
	struct grace_head head;
	struct inode *root;
};

static void root_put_now(struct grace_head *head)
{
	struct root_put *p = (struct root_put *)head;

	inode_put(p->root);
	kfree(p);
}

int fs_set_root(struct fs_struct *fs, struct inode *dir)
{
	struct root_put *p = kmalloc(sizeof(*p));

	if (!p) {
		inode_put(dir);
		return -ENOMEM;
	}
	spin_lock(&fs->lock);
	p->root = fs->root;
	__atomic_store_n(&fs->root, dir, __ATOMIC_RELEASE);
	spin_unlock(&fs->lock);
	grace_defer(&p->head, root_put_now);
	return 0;
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
	if (fs->root == old) { /* old is a mounted root: alive for fs_get_root's readers */
		inode_get(new);
		__atomic_store_n(&fs->root, new, __ATOMIC_RELEASE);
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
