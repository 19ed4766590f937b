/*
 * PID namespaces (Linux's pid_namespace): a namespace has a level (the
 * initial one 0), a parent and, once its first process exists, an init
 * (the process numbered 1 in it), which reaps the namespace's orphans
 * and whose death kills every other process in it.  A task in a
 * namespace of level L has a number in it and in each of its L
 * ancestors (struct pid_numbers); kernel code keeps using the global
 * number (task->pid, group->tgid, pgid, sid: the level-0 one), and every
 * number that crosses the user boundary is translated here, in one
 * place: pid_nr_ns going out, pid_from_nr_ns coming in.
 * docs/namespaces.md, "pid namespaces".
 */
#ifndef PROC_PID_NS_H
#define PROC_PID_NS_H

#include <stdbool.h>
#include <stddef.h>
#include "fs/nsfs.h"
#include "lib/list.h"
#include "proc/task.h"
#include "sched/task_sched.h"

struct task;
struct thread_group;
struct user_namespace;

#define MAX_PID_NS_LEVEL 32 /* Linux's: a namespace at level 33 is ENOSPC */

struct pid_namespace {
	struct ns_common ns;
	/* atomic: nsproxies (pid_ns_for_children), nsfs inodes, tasks'
	 * numbers and child namespaces.  The initial namespace's is never
	 * dropped to 0. */
	int refs;
	int level;		      /* constant */
	struct pid_namespace *parent; /* referenced; NULL for the initial one */
	struct user_namespace *owner; /* referenced; NULL: the initial one */
	/* Its init's process while it lives (proc_lock): set by the fork
	 * that gives number 1, cleared when that process dies.  NULL for
	 * the initial namespace (the global init, found by pid 1). */
	struct thread_group *reaper;
	int next_nr; /* the next number to try (pidns_lock) */
	/* No more processes (Linux's PIDNS_ADDING cleared): its init died
	 * or never started, fork gives ENOMEM (pidns_lock). */
	bool dead;
};

/* A task's numbers in its namespace and the ancestors (Linux's struct
 * pid's upid array): owned by the task, from clone to task_free;
 * de_thread swaps two tasks' with their pids.  On a list under
 * pidns_lock, which is how numbers are found. */
struct pid_numbers {
	struct list_head link;
	int pid;		      /* the global number (level 0) */
	struct pid_namespace *ns;     /* the innermost, referenced */
	int nr[MAX_PID_NS_LEVEL + 1]; /* nr[l]: the number at level l (nr[0] == pid) */
};

extern struct pid_namespace init_pid_ns;

/* The namespace a task's numbers are in (its "active" one; constant). */
struct pid_namespace *task_pid_ns(const struct task *t);
struct pid_namespace *current_pid_ns(void);
void pid_ns_get(struct pid_namespace *ns);
void pid_ns_put(struct pid_namespace *ns);
/* A child namespace of parent, referenced: -ENOSPC past
 * MAX_PID_NS_LEVEL, -ENOMEM (as ERR in *err; NULL returned). */
struct pid_namespace *pid_ns_create(struct pid_namespace *parent, struct user_namespace *owner,
				    int *err);
/* Whether ns is a (non-strict) descendant of anc. */
bool pid_ns_within(const struct pid_namespace *ns, const struct pid_namespace *anc);
/* setns's checks for a pid namespace: CAP_SYS_ADMIN (EPERM), and the
 * caller's own namespace or a descendant (EINVAL), as Linux's
 * pidns_install. */
int pid_ns_may_enter(struct ns_common *ns);
/* Namespaces alive but the initial one (the leak check's count). */
unsigned long pid_ns_count(void);

/* ---- numbers: the one translation ---- */

/* Global pid's number in ns, 0 if that task (alive, or a zombie) has none
 * there (it is outside ns, or gone).  Takes pidns_lock (a leaf lock:
 * proc_lock may be held). */
int pid_nr_ns(int pid, const struct pid_namespace *ns);
/* The same in the caller's namespace (Linux's pid_vnr); a task of the
 * initial namespace has no numbers of its own: a pid is its number. */
int pid_vnr_numbered(int pid);
static inline int pid_vnr(int pid)
{
	return current()->pidnums ? pid_vnr_numbered(pid) : pid;
}
/* t's (thread) number in its own namespace (gettid's). */
int task_nr(const struct task *t);
/* The global pid of the task numbered nr in ns, or 0 if none. */
int pid_from_nr_ns(int nr, const struct pid_namespace *ns);
/* The same in the caller's namespace (Linux's find_vpid). */
int pid_from_vnr(int nr);

/* Appends "name:" and pid's number in each namespace from the initial
 * one down to ns, tab-separated, and a newline (/proc status, pidfd
 * fdinfo). */
void pid_ns_append_nrs(char *buf, size_t size, size_t *len, const char *name, int pid,
		       const struct pid_namespace *ns);

/* clone: numbers for child in ns and each ancestor (child not yet
 * visible), the first ntid of them (ns's first, the global one last)
 * chosen by clone3's set_tid: 0, -ENOMEM (no memory, or ns's init is
 * dead), -EAGAIN (no free number), -EINVAL, -EPERM, -EEXIST (set_tid).
 * A task in the initial namespace needs none but its pid. */
int pid_numbers_attach(struct task *child, struct pid_namespace *ns, const int *set_tid, int ntid);
/* task_free (proc_lock held): t's numbers go (its pid with them);
 * number 1 going ends the namespace (no more forks). */
void pid_numbers_free(struct task *t);
/* de_thread: a and b trade numbers as they trade pids (proc_lock held). */
void pid_numbers_swap_locked(struct task *a, struct task *b);

/* ---- the namespace's init ---- */

/* clone (proc_lock held): child is the first process of its namespace
 * (number 1): it becomes the namespace's init. */
void pid_ns_new_process_locked(struct task *child);
/* Where g's orphans go (proc_lock held): the init of g's namespace, or of
 * the nearest ancestor namespace with a live init other than g; NULL for
 * the global init. */
struct thread_group *pid_ns_reaper_locked(struct thread_group *g);
/* Whether g is the init of a namespace other than the initial one. */
bool pid_ns_is_reaper(const struct thread_group *g);
/* g's last thread exits (proc_lock held): if it is a namespace's init,
 * the namespace loses it. */
void pid_ns_reaper_gone_locked(struct thread_group *g);
/* The last thread of a namespace's init exits (its resources released,
 * the group not yet a zombie): no more forks in it, SIGKILL to every
 * other process in it (and in its descendants), and the caller reaps
 * its children until none is left (Linux's zap_pid_ns_processes). */
void pid_ns_zap(struct thread_group *g);

#endif
