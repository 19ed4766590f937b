/*
 * nsfs: the files /proc/<pid>/ns/<kind> lead to (Linux's nsfs), one kind
 * per namespace type.  Mount, uts, ipc and user namespaces are real (each
 * process is in one of each, clone and unshare make new ones, setns
 * enters one);
 * of the other kinds fdkernel has only the initial namespace, which the
 * files name with the numbers Linux gives its initial namespaces.  Their
 * ioctls (NS_GET_USERNS, NS_GET_PARENT, NS_GET_NSTYPE, NS_GET_OWNER_UID)
 * answer as Linux's.  docs/namespaces.md.
 */
#ifndef FS_NSFS_H
#define FS_NSFS_H

#include <stddef.h>
#include <stdint.h>

struct inode;
struct file;

enum ns_kind { NS_IPC, NS_UTS, NS_USER, NS_PID, NS_NET, NS_TIME, NS_MNT, NS_KINDS };

/* Linux's numbers of the initial namespaces (PROC_*_INIT_INO, net's
 * and mnt's fixed since Linux 6.11 as the others'); later namespaces of
 * every kind count up from NS_INUM_NEXT, Linux's first dynamic one. */
#define NS_IPC_INUM	 0xEFFFFFFFUL
#define NS_UTS_INUM	 0xEFFFFFFEUL
#define NS_USER_INUM	 0xEFFFFFFDUL
#define NS_PID_INUM	 0xEFFFFFFCUL
#define NS_TIME_INUM	 0xEFFFFFFAUL
#define NS_NET_INUM	 0xEFFFFFF9UL
#define NS_MNT_INIT_INUM 0xEFFFFFF8UL
#define NS_INUM_NEXT	 0xF0000000UL

struct ns_common;
struct user_namespace;

/* What a kind of namespace does for nsfs and setns (Linux's
 * proc_ns_operations). */
struct ns_ops {
	enum ns_kind kind;
	/* A reference more, or less (the last frees the namespace). */
	void (*get)(struct ns_common *ns);
	void (*put)(struct ns_common *ns);
	/* setns: the calling task enters ns (its checks first): 0 or
	 * -errno. */
	int (*install)(struct ns_common *ns);
	/* NS_GET_PARENT: the parent, referenced, or NULL with *err set;
	 * NULL for kinds without a hierarchy (EINVAL). */
	struct ns_common *(*parent)(struct ns_common *ns, int *err);
	/* The user namespace that owns ns (NS_GET_USERNS, setns's and
	 * sethostname's checks; proc/user_namespace.h: ns_owner), or NULL
	 * for the initial one; NULL op: always the initial one. */
	struct user_namespace *(*owner)(struct ns_common *ns);
};

/* What every namespace has (embedded in it; Linux's ns_common). */
struct ns_common {
	uint64_t inum; /* /proc/<pid>/ns's number, the nsfs file's st_ino; constant */
	const struct ns_ops *ops;
};

/* The kind's name in "<name>:[<inum>]" ("mnt", "uts", ...). */
const char *nsfs_kind_name(enum ns_kind kind);
/* The kind's CLONE_NEW* flag. */
unsigned long nsfs_clone_flag(enum ns_kind kind);
/* The one namespace of a kind fdkernel has only the initial one of
 * (net, time): never freed, references not counted. */
struct ns_common *nsfs_initial(enum ns_kind kind);
/* A number for a new namespace (never reused: 64 bits do not run out). */
uint64_t nsfs_alloc_inum(void);
/* A new nsfs inode for ns, referenced, holding a reference on ns (taken
 * here, dropped when the inode is freed): mode 0444, owned by root, its
 * file's only operations the ioctls.  NULL when memory runs out. */
struct inode *nsfs_inode(struct ns_common *ns);
/* The namespace f is a file of (its inode's reference keeps it while f
 * is open), or NULL when f is not an nsfs file. */
struct ns_common *nsfs_of_file(struct file *f);
/* Makes the instance (vfs_init). */
void nsfs_init(void);

#endif
