/*
 * A task's file-system context: its root, working directory and umask,
 * shared by the tasks cloned with CLONE_FS (Linux's fs_struct).
 */
#ifndef FS_FS_STRUCT_H
#define FS_FS_STRUCT_H

#include "fs/path.h"
#include "lib/spinlock.h"

/*
 * Lifetime: refs counts the tasks whose ->fs points here (atomic); the
 * last fs_put drops the directories.  lock protects root and cwd, each of
 * which always holds references of its own: readers take others under
 * the lock (fs_get_root, fs_get_cwd), so a concurrent chdir or chroot in
 * another thread cannot free the directory they walk from, and a root
 * given up is put at once (umount right after pivot_root finds it free).
 * No interrupt handler takes lock: spin_lock_task, as every path walk
 * takes it once.
 */
struct fs_struct {
	int refs;
	struct spinlock lock;
	struct path root; /* chroot(2)'s: where "/" and ".." stop */
	struct path cwd;
	/* Its mount namespace (fs/mount.h), referenced.  Changed only by
	 * unshare(CLONE_NEWNS) and setns on an fs_struct of one task, under
	 * lock; that task reads it without the lock, others with it. */
	struct mnt_namespace *mnt_ns;
	/* umask(2): read and replaced with single atomic accesses, no lock
	 * (a create uses the value it read, as on Linux). */
	unsigned int umask;
};

/* A context with root and cwd in mount namespace ns (taking over the
 * caller's references) and umask 022 (Linux's init's), or NULL (the
 * references put). */
struct fs_struct *fs_create(struct path *root, struct path *cwd, struct mnt_namespace *ns);
/* fork without CLONE_FS: a copy (same directories, namespace and
 * umask), or NULL. */
struct fs_struct *fs_copy(struct fs_struct *fs);
/* CLONE_FS: one more task shares fs. */
struct fs_struct *fs_share(struct fs_struct *fs);
void fs_put(struct fs_struct *fs);
/* The working directory and the root, referenced (path_put them). */
void fs_get_cwd(struct fs_struct *fs, struct path *out);
void fs_get_root(struct fs_struct *fs, struct path *out);
/* Makes dir (referenced: taken over) the working directory, the root. */
void fs_set_cwd(struct fs_struct *fs, struct path *dir);
void fs_set_root(struct fs_struct *fs, struct path *dir);
/* pivot_root: a root or working directory at old becomes new. */
void fs_replace_dir(struct fs_struct *fs, const struct path *old, const struct path *new);
/* Whether p is the root (".." stops there), read without the lock: a
 * concurrent chroot may make the answer the old root's or the new one's. */
static inline bool fs_is_root(const struct fs_struct *fs, const struct path *p)
{
	return __atomic_load_n(&fs->root.inode, __ATOMIC_RELAXED) == p->inode &&
	       __atomic_load_n(&fs->root.mnt, __ATOMIC_RELAXED) == p->mnt;
}
/* The creation mask, and umask(2)'s exchange (returns the old one). */
unsigned int fs_umask(const struct fs_struct *fs);
unsigned int fs_set_umask(struct fs_struct *fs, unsigned int mask);

#endif
