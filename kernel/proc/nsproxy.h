/*
 * The namespaces a task is in (Linux's nsproxy), but its mount namespace,
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

struct nsproxy {
	int refs;		   /* atomic: the tasks pointing here */
	struct uts_namespace *uts; /* referenced; constant */
};

/*
 * A task's nsproxy (t->nsproxy) is referenced, NULL for a kernel thread
 * and once the task has exited.  Own: only the task itself replaces it
 * (unshare, setns), under proc_lock (task_swap_nsproxy), so the task reads
 * it without a lock and others under proc_lock.
 */
extern struct nsproxy init_nsproxy;

/* clone: child's nsproxy, the parent's shared, or a new one with a new
 * namespace for each CLONE_NEW* of flags it covers: 0 or -ENOMEM. */
int nsproxy_clone(struct task *child, const struct task *parent, unsigned long flags);
/* unshare(flags): the caller enters new namespaces of flags' kinds (its
 * checks done): 0 or -ENOMEM. */
int nsproxy_unshare(unsigned long flags);
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
/* A copy of old's names in a new namespace, referenced, or NULL. */
struct uts_namespace *uts_ns_copy(struct uts_namespace *old);
void uts_ns_get(struct uts_namespace *uts);
void uts_ns_put(struct uts_namespace *uts);
struct ns_common *uts_ns_common(struct uts_namespace *uts);
/* Namespaces alive (the leak check's count). */
unsigned long uts_ns_count(void);
/* setns: the caller's nsproxy, but with uts: 0 or -ENOMEM. */
int nsproxy_enter_uts(struct uts_namespace *uts);

#endif
