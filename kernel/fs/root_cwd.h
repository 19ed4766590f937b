/*
 * A task's file-system context: its working directory and umask, shared
 * by the tasks cloned with CLONE_FS (Linux's fs_struct).
 */
#ifndef FS_FS_STRUCT_H
#define FS_FS_STRUCT_H

#include "lib/spinlock.h"

struct inode;

/*
 * Lifetime: refs counts the tasks whose ->fs points here (atomic); the
 * last fs_put drops the directories.  lock serialises changes of root and
 * cwd, each of which always holds a reference of its own: readers of cwd
 * take another under the lock (fs_get_cwd), so a concurrent chdir in
 * another thread cannot free the directory they walk from; readers of
 * root take theirs without it (fs_get_root: a replaced root is put after
 * a grace period).
 */
struct fs_struct {
	int refs;
	struct spinlock lock;
	struct inode *root; /* chroot(2)'s: where "/" and ".." stop */
	struct inode *cwd;
	/* umask(2): read and replaced with single atomic accesses, no lock
	 * (a create uses the value it read, as on Linux). */
	unsigned int umask;
};

/* A context with root and cwd (taking over the caller's references)
 * and umask 022 (Linux's init's), or NULL. */
struct fs_struct *fs_create(struct inode *root, struct inode *cwd);
/* fork without CLONE_FS: a copy (same directory and umask), or NULL. */
struct fs_struct *fs_copy(struct fs_struct *fs);
/* CLONE_FS: one more task shares fs. */
struct fs_struct *fs_share(struct fs_struct *fs);
void fs_put(struct fs_struct *fs);
/* The working directory and the root, with a reference (inode_put it). */
struct inode *fs_get_cwd(struct fs_struct *fs);
struct inode *fs_get_root(struct fs_struct *fs);
/* Makes dir (referenced: taken over) the working directory, the root. */
void fs_set_cwd(struct fs_struct *fs, struct inode *dir);
int fs_set_root(struct fs_struct *fs, struct inode *dir); /* 0 or -ENOMEM */
/* pivot_root: root and cwd that are old become new (referenced here);
 * the references to old dropped, which the caller puts (it may hold a
 * spinlock here). */
int fs_replace_dir(struct fs_struct *fs, const struct inode *old, struct inode *new);
/* The root without a reference, only to compare with (".." stops there):
 * it may change at once. */
static inline const struct inode *fs_root_hint(const struct fs_struct *fs)
{
	return __atomic_load_n(&fs->root, __ATOMIC_RELAXED);
}
/* The creation mask, and umask(2)'s exchange (returns the old one). */
unsigned int fs_umask(const struct fs_struct *fs);
unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask);

#endif
