/*
 * Credentials (Linux's struct cred): who a process is -- real, effective,
 * saved and file-system user and group ids, supplementary groups -- and
 * what it may do beyond that -- capabilities.  One object per process
 * (thread_group->cred), shared by fork, replaced whole (copy on write),
 * never changed while anyone may read it.  docs/security.md.
 *
 * Reading: cred_current() and task_cred() return a pointer that stays
 * good until the caller sleeps, switches tasks or returns to user mode
 * (the grace-period rule of sched/grace.h: a replaced cred is freed only
 * after a grace period).  Keeping one longer takes a reference
 * (cred_get_current, cred_get_task) dropped with cred_put.  While an
 * io_uring request with a personality runs, the caller's are the
 * request's (task->cred_override), as Linux's override_creds.
 *
 * Changing: cred_prepare() gives the caller a private copy and holds its
 * process's cred_lock until cred_commit() publishes the copy (every
 * thread of the process sees it) or cred_abort() drops it.  Between the
 * two the caller may not copy user memory (a fault's wait would hold the
 * lock) -- do that first.
 */
#ifndef PROC_CRED_H
#define PROC_CRED_H

#include <stdbool.h>
#include <stdint.h>
#include "sched/grace.h"
#include <uapi/capability.h>

#define NGROUPS_MAX    65536
#define ID_UNCHANGED   ((uint32_t)-1) /* "leave it" for set*id; never a valid id */
#define CAP_VALID_MASK ((1ULL << (CAP_LAST_CAP + 1)) - 1)
#define CAP_TO_MASK(c) (1ULL << (c))

/* Supplementary groups, sorted (getgroups reports them so, as Linux),
 * shared by the creds that have the same list; constant once made. */
struct group_info {
	int refs; /* atomic: one per cred pointing here */
	int ngroups;
	uint32_t gid[];
};

struct cred {
	int refs; /* atomic: one per process and per holder; freed a grace period after the last */
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	struct group_info *groups; /* referenced, never NULL */
	/* Capability sets (bit n: capability n), Linux's five. */
	uint64_t cap_inheritable, cap_permitted, cap_effective, cap_bset, cap_ambient;
	/* SECBIT_* (uapi/capability.h): PR_SET_SECUREBITS, PR_SET_KEEPCAPS;
	 * execve clears SECBIT_KEEP_CAPS. */
	unsigned int securebits;
	/* The user namespace its ids are seen through and its capabilities
	 * count in (proc/user_namespace.h): referenced, constant. */
	struct user_namespace *user_ns;
	struct grace_head grace;
};

struct task;
struct thread_group;
struct user_namespace;

/* The calling process's credentials (the rules above). */
const struct cred *cred_current(void);
/* t's process's: the caller holds a reference on t or proc_lock. */
const struct cred *task_cred(const struct task *t);
/* g's: the caller keeps g alive (proc_lock, a task of g referenced). */
const struct cred *group_cred(const struct thread_group *g);
/* The same with a reference, for use across sleeps. */
const struct cred *cred_get_current(void);
const struct cred *cred_get_task(const struct task *t);
/* Another reference on c, which the caller already holds one on. */
void cred_get(const struct cred *c);
void cred_put(const struct cred *c);

/* A private copy of the caller's process's creds, its cred_lock held: NULL
 * (lock not held) when memory runs out. */
struct cred *cred_prepare(void);
/* Publishes new as its process's creds and releases cred_lock. */
void cred_commit(struct cred *new);
/* Drops an unpublished copy and releases cred_lock. */
void cred_abort(struct cred *new);

/* A new process's creds: parent's (NULL: the first process, root with
 * every capability).  Never fails: the object is shared. */
void cred_group_init(struct thread_group *g, const struct thread_group *parent);
/* The group is freed: its reference goes. */
void cred_group_free(struct thread_group *g);

/* Whether the caller has cap over the initial user namespace, which owns
 * every host object (user_namespace.h: ns_capable for others). */
bool capable(int cap);
/* The caller's creds, a private copy with one reference and no lock
 * held, for a process not yet visible (clone with CLONE_NEWUSER): NULL
 * on ENOMEM; cred_group_set gives it to that process's group. */
struct cred *cred_dup_current(void);
void cred_group_set(struct thread_group *g, struct cred *c);
/* Kernel id of uid 0 in c's namespace (INVALID_ID-like (uint32_t)-1 when
 * unmapped): the root whose ids grant capabilities at execve and set*id. */
uint32_t cred_root_uid(const struct cred *c);
/* Linux's check_same_owner: the caller's effective uid is t's real or
 * effective uid (sched_setaffinity, sched_setscheduler; the caller keeps
 * t alive). */
bool cred_same_owner(const struct task *t);
/*
 * Linux's ptrace_may_access: may the caller inspect t (kcmp,
 * get_robust_list, pidfd_getfd, /proc/<pid>'s guarded files)?  Its own
 * process; or its real ids (fscreds: its fs ids) equal to all of t's
 * uids and gids, t dumpable, and t's permitted capabilities within the
 * caller's (fscreds: effective, else permitted; commoncap's rule);
 * CAP_SYS_PTRACE passes all three.  No Yama here.  proc_lock held
 * (t->uvm).
 */
bool ptrace_may_access_locked(const struct task *t, bool fscreds);
/* Whether c's fsgid (in_group_p) or egid (in_egroup_p) or supplementary
 * groups hold gid. */
bool cred_in_group(const struct cred *c, uint32_t gid);
bool cred_in_egroup(const struct cred *c, uint32_t gid);

/* Supplementary group lists (setgroups): n gids, unsorted; NULL on ENOMEM. */
struct group_info *groups_alloc(int n);
void groups_sort(struct group_info *gi);
void groups_put(struct group_info *gi);
/* new's list becomes gi (the reference is taken over). */
void cred_set_groups(struct cred *new, struct group_info *gi);

/*
 * What execve's program grants (Linux's bprm_fill_uid): the file's owner
 * as the effective uid when it is set-user-ID, its group as the effective
 * gid when it is set-group-ID and group-executable; nothing on a nosuid
 * mount or under no_new_privs (exec_file_ids).
 */
struct exec_ids {
	bool setuid, setgid;
	uint32_t uid, gid;
};

/* Why an exec may not gain privilege (Linux's bprm->unsafe): the task's
 * no_new_privs, or its fs_struct shared with another process (CLONE_FS),
 * which could then steer the privileged program's lookups; the latter is
 * overridden by CAP_SETUID. */
#define EXEC_UNSAFE_NNP	  1U
#define EXEC_UNSAFE_SHARE 2U

/*
 * execve's new creds for t (Linux's cap_bprm_creds_from_file with no file
 * capabilities), made before the point of no return so that nothing fails
 * after it: NULL on ENOMEM; *secure is AT_SECURE.  cred_exec_commit gives
 * them to t's process once t is alone in it, computed again from the
 * creds it has then (another thread may have changed them meanwhile), and
 * returns AT_SECURE; cred_put drops them unused.
 */
struct cred *cred_exec_prepare(struct task *t, const struct exec_ids *file, unsigned unsafe,
			       bool *secure);
bool cred_exec_commit(struct task *t, struct cred *new, const struct exec_ids *file,
		      unsigned unsafe);

/* prctl's options on credentials (proc/capability.c): keepcaps, the
 * bounding and ambient sets, no_new_privs; EINVAL for any other. */
long prctl_cred(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);

/* Live creds and group lists (the leak check). */
unsigned long cred_count(void);

#endif
