/*
 * The namespaces a task is in (Linux's nsproxy: uts, ipc, time), but its mount namespace,
 * which its fs_struct holds (fs/root_cwd.h), and the kinds fdkernel has
 * only the initial namespace of (fs/nsfs.h).  Tasks share one nsproxy
 * until one of them enters or makes another namespace: then it gets a
 * new nsproxy, so the struct itself never changes.  docs/namespaces.md.
 */
#ifndef PROC_NSPROXY_H
#define PROC_NSPROXY_H

#include <stddef.h>

struct task;
struct ns_common;
struct uts_namespace;
struct user_namespace;

struct ipc_namespace;
struct time_namespace;
struct pid_namespace;

struct nsproxy {
	int refs;		   /* atomic: the tasks pointing here */
	struct uts_namespace *uts; /* referenced; constant once switched to */
	struct ipc_namespace *ipc; /* the same */
	/* The same: the task's time namespace, and the one its children
	 * enter at fork (another after unshare(CLONE_NEWTIME)). */
	struct time_namespace *time, *time_for_children;
	/* The same: where the task's children's pids go (proc/pid_ns.h);
	 * its own namespace, or a child of it after unshare(CLONE_NEWPID)
	 * or setns. */
	struct pid_namespace *pid_ns_for_children;
};

/*
 * A task's nsproxy (t->nsproxy) is referenced, NULL for a kernel thread
 * and once the task has exited.  Own: only the task itself replaces it
 * (unshare, setns), under proc_lock (task_swap_nsproxy), so the task reads
 * it without a lock and others under proc_lock.
 */
extern struct nsproxy init_nsproxy;

/* clone: child's nsproxy, the parent's shared, or a new one with a new
 * namespace, owned by owner, for each CLONE_NEW* of flags it covers: 0
 * or -ENOMEM (CLONE_NEWPID's -ENOSPC is nsproxy_check's). */
int nsproxy_clone(struct task *child, const struct task *parent, unsigned long flags,
		  struct user_namespace *owner);
/* clone, unshare: -ENOSPC if flags ask for a pid namespace deeper than
 * MAX_PID_NS_LEVEL, else 0. */
int nsproxy_check(unsigned long flags);
/* exec: the nsproxy the caller takes at its point of no return (Linux's
 * exec_task_namespaces), in *out: a copy whose time namespace is its
 * time_for_children when the two differ, else NULL.  0 or -ENOMEM. */
int nsproxy_for_exec(struct nsproxy **out);
/* unshare(flags): the caller enters new namespaces of flags' kinds owned
 * by owner (its checks done): 0 or -ENOMEM. */
int nsproxy_unshare(unsigned long flags, struct user_namespace *owner);
/* setns: a copy of the caller's nsproxy (NULL without memory), in
 * which the caller replaces one namespace before nsproxy_switch makes it
 * the caller's (its reference taken over, the old one dropped). */
struct nsproxy *nsproxy_copy_current(void);
void nsproxy_switch(struct nsproxy *n);
/* One more task shares n (the caller holds a reference). */
struct nsproxy *nsproxy_share(struct nsproxy *n);
void nsproxy_put(struct nsproxy *n);
/* t leaves its nsproxy: its exit, or a clone that failed. */
void nsproxy_release(struct task *t);
/* The caller's nsproxy (init's for a kernel thread). */
struct nsproxy *current_nsproxy(void);

/* ---- uts namespaces (proc/uts.c) ---- */

/* The caller's uts namespace, kept by its nsproxy for the call. */
struct uts_namespace *current_uts(void);
extern struct uts_namespace init_uts_ns;
/* A copy of old's names in a new namespace owned by owner, referenced,
 * or NULL. */
struct uts_namespace *uts_ns_copy(struct uts_namespace *old, struct user_namespace *owner);
void uts_ns_get(struct uts_namespace *uts);
void uts_ns_put(struct uts_namespace *uts);
struct ns_common *uts_ns_common(struct uts_namespace *uts);
/* Namespaces alive (the leak check's count). */
unsigned long uts_ns_count(void);

/* ---- ipc namespaces (ipc/namespace.c; the struct is ipc/ids.h's) ---- */

/* The caller's ipc namespace, kept by its nsproxy for the call. */
struct ipc_namespace *current_ipc(void);
extern struct ipc_namespace init_ipc_ns;
/* A new namespace owned by owner, empty, referenced, or NULL. */
struct ipc_namespace *ipc_ns_new(struct user_namespace *owner);
void ipc_ns_get(struct ipc_namespace *ns);
void ipc_ns_put(struct ipc_namespace *ns);
struct ns_common *ipc_ns_common(struct ipc_namespace *ns);
unsigned long ipc_ns_count(void);

#endif
