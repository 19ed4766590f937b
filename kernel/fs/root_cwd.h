/*
 * A task's file-system context: its working directory and umask, shared
 * by the tasks cloned with CLONE_FS (Linux's fs_struct; fdkernel has no
 * per-process root).
 */
#ifndef FS_FS_STRUCT_H
#define FS_FS_STRUCT_H

#include "lib/spinlock.h"

struct inode;

/*
 * Lifetime: refs counts the tasks whose ->fs points here (atomic); the
 * last fs_put drops the directory.  lock protects cwd, which always holds
 * a reference of its own: readers take another under the lock
 * (fs_get_cwd), so a concurrent chdir in another thread cannot free the
 * directory they walk from.
 */
struct fs_struct {
	int refs;
	struct spinlock lock;
	struct inode *cwd;
	/* umask(2): read and replaced with single atomic accesses, no lock
	 * (a create uses the value it read, as on Linux). */
	unsigned int umask;
};

/* A context at cwd (taking over the caller's reference) with umask 022
 * (Linux's init's), or NULL. */
struct fs_struct *fs_create(struct inode *cwd);
/* fork without CLONE_FS: a copy (same directory and umask), or NULL. */
struct fs_struct *fs_copy(struct fs_struct *fs);
/* CLONE_FS: one more task shares fs. */
struct fs_struct *fs_share(struct fs_struct *fs);
void fs_put(struct fs_struct *fs);
/* The working directory with a reference (inode_put it). */
struct inode *fs_get_cwd(struct fs_struct *fs);
/* Makes dir (referenced: taken over) the working directory. */
void fs_set_cwd(struct fs_struct *fs, struct inode *dir);
/* The creation mask, and umask(2)'s exchange (returns the old one). */
unsigned int fs_umask(const struct fs_struct *fs);
unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask);

#endif
