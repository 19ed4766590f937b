/*
 * nsfs: the files /proc/<pid>/ns/<kind> lead to (Linux's nsfs), one kind per
 * namespace type.  fdkernel has one namespace of each kind but mount
 * ones (every process is in the initial ipc, uts, user, pid, net and time
 * namespace: clone and unshare refuse CLONE_NEW* but CLONE_NEWNS), so the
 * files name those, with the numbers Linux gives its initial namespaces,
 * and the process's own mount namespace.  Their ioctls (NS_GET_USERNS,
 * NS_GET_PARENT, NS_GET_NSTYPE, NS_GET_OWNER_UID) answer as Linux's do
 * for initial namespaces.  docs/vfs.md, "Namespace files".
 */
#ifndef FS_NSFS_H
#define FS_NSFS_H

#include <stddef.h>
#include <stdint.h>

struct inode;

enum ns_kind { NS_IPC, NS_UTS, NS_USER, NS_PID, NS_NET, NS_TIME, NS_MNT, NS_KINDS };

/* Linux's numbers of the initial namespaces (PROC_*_INIT_INO, net's
 * and mnt's fixed since Linux 6.11 as the others'); later mount
 * namespaces count up from NS_MNT_INUM_NEXT, Linux's first dynamic one. */
#define NS_NET_INUM	 0xEFFFFFF9UL
#define NS_MNT_INIT_INUM 0xEFFFFFF8UL
#define NS_MNT_INUM_NEXT 0xF0000000UL

/* The kind's name in "<name>:[<inum>]" ("mnt", "uts", ...). */
const char *nsfs_kind_name(enum ns_kind kind);
/* The number of the kind's one namespace (not for NS_MNT). */
uint64_t nsfs_inum(enum ns_kind kind);
/* A new nsfs inode for the namespace of kind numbered inum, referenced:
 * mode 0444, owned by root, its file's only operations the ioctls.
 * NULL when memory runs out. */
struct inode *nsfs_inode(enum ns_kind kind, uint64_t inum);
/* Makes the instance (vfs_init). */
void nsfs_init(void);

#endif
