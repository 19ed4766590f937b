/*
 * What the mount table (mount.c) shares with the copies of its trees and
 * the namespaces (mount_tree.c), and no one else.  mount_lock protects
 * every namespace's table and root, each mount's mountpoint, parent, ns
 * and flags, each instance's root and flags while it is mounted, and each
 * inode's mounted count (written under the inode's lock too, read
 * without either only as a hint).  Lock order: an inode's lock, then
 * mount_lock.
 */
#ifndef FS_MOUNT_TREE_H
#define FS_MOUNT_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/mount.h"
#include "fs/nsfs.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/wait.h"

extern struct spinlock mount_lock;

struct mnt_namespace {
	/* Its number, /proc/<pid>/ns/mnt's, and setns's operations
	 * (fs/nsfs.h); constant. */
	struct ns_common ns;
	struct user_namespace *owner; /* referenced, constant; NULL: the initial one */
	/* atomic: the fs_structs and nsfs inodes pointing here, and the
	 * open /proc/<pid>/mounts and mountinfo files reading it */
	uint32_t refs;
	struct list_head mounts; /* its table: attached mounts, oldest first */
	/* The mount with no mount point, "/" of its processes before any
	 * chroot (pivot_root changes it). */
	struct mount *root;
	/* Bumped (under mount_lock) at each change of its table, a mount,
	 * umount, move, pivot or flag change, when poll waits on it are
	 * woken: Linux's ns->event, for mounts_poll (fs/proc_mounts.c). */
	uint32_t event;
	struct wait_queue poll;
};

/* The first namespace: init's, and the kernel's own lookups'. */
extern struct mnt_namespace init_ns;
/* The caller's namespace (the first before any task): the only one its
 * mount calls may change (Linux's check_mnt). */
struct mnt_namespace *current_ns(void);
/* The hash chain of the mounts over mp. */
struct list_head *mount_bucket(const struct inode *mp);

/* Each under mount_lock.  attach: m goes into ns's table over (parent,
 * mp), whose references it takes over (NULLs: ns's root mount).
 * in_current_ns: whether p lies on a mount of the caller's namespace (a
 * detached tree or another namespace's mount takes no change).
 * attach_check (the mount point's lock held too): why a mount cannot go
 * over mp now (0 if it can).  detach_tree: m and every mount below it
 * leave the table (a lazy umount) for *gone, which release drops after
 * the lock.  mount_under: whether m is top or lies under it. */
void attach(struct mount *m, struct mnt_namespace *ns, struct mount *parent, struct inode *mp);
void ns_changed(struct mnt_namespace *ns);
bool in_current_ns(const struct path *p);
int attach_check(const struct path *mp);
void detach_tree(struct mount *top, struct list_head *gone);
void release(struct list_head *gone);
bool mount_under(const struct mount *m, const struct mount *top);

#endif
