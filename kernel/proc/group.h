/*
 * Thread groups: what the threads of one process share beyond memory,
 * files and handlers (Linux's signal_struct plus the process's place in
 * the process tree).  wait4, kill, process groups and itimers deal in
 * groups; the scheduler in tasks.  docs/processes.md, "Threads".
 */
#ifndef PROC_GROUP_H
#define PROC_GROUP_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"
#include "proc/itimer.h"
#include "proc/rlimit.h"
#include "proc/signal.h"
#include "proc/task_io.h"
#include "sched/mutex.h"
#include "sched/wait.h"

struct cred;
struct pid_ident;
struct task;

enum group_state {
	GROUP_LIVE,   /* some thread has not exited */
	GROUP_ZOMBIE, /* every thread exited; waiting for the parent's wait4 */
	GROUP_DEAD,   /* reaped, or never to be (autoreap): off the parent's list */
};

/*
 * Everything here is read and written under proc_lock unless noted.
 * Lifetime: one reference (refs) per task whose ->group points here,
 * dropped by task_free; the leader task stays allocated until the group
 * is reaped, so every thread, the parent and kill can use ->leader.
 */
struct thread_group {
	int refs;
	int tgid;		  /* the process id: the first thread's tid, constant */
	struct task *leader;	  /* the task whose tid is tgid (de_thread changes it) */
	struct list_head threads; /* tasks not yet exited, via task->group_link */
	int live;		  /* how many are on threads */
	/* The real uid the live threads count for (proc/nproc.h): set by
	 * the first, moved with a change of the real uid. */
	uint32_t nproc_uid;
	/*
	 * The whole group is dying (exit_group, a fatal signal: exit_status
	 * is its wait status from then on) or a thread is exec'ing
	 * (de_thread, which clears it again): every other thread got
	 * SIGKILL.  A zombie's exit_status is its wait status.
	 */
	bool exiting;
	/* Chosen by the OOM killer (proc_lock): until live is 0 its threads
	 * may still be giving its memory back, on other CPUs too. */
	bool oom_victim;
	int exit_status;
	struct wait_queue thread_exit; /* de_thread waits here for the others to go */
	/* A core dump in progress (proc/coredump.c): its writer, and how many
	 * other threads stopped at their exit to wait for it (both under
	 * proc_lock, both waiting on thread_exit).  NULL, 0 otherwise. */
	struct task *core_dumper;
	int core_parked;
	enum group_state state;

	/* Family: the parent process (alive while we are on its children
	 * list: a dying parent hands its children to init first), its
	 * children list, our link in it. */
	struct thread_group *parent;
	struct list_head children;
	struct list_head sibling;
	struct wait_queue child_exit; /* wait4 sleeps here (any thread may wait) */
	int pgid, sid;		      /* process group and session (inherited) */
	/* Has run execve since fork (proc_lock): its parent may no longer
	 * move it to another group (setpgid's EACCES, Linux's
	 * PF_FORKNOEXEC).  Not inherited. */
	bool execed;
	int exit_signal; /* sent to the parent at exit (clone's low byte; 0: none) */
	/* The thread of parent that forked us (its tid): its exit sends our
	 * threads' PR_SET_PDEATHSIG signals.  Moved to another thread of
	 * the parent, or the new parent's leader, when that one exits. */
	int parent_tid;
	/* PR_SET_CHILD_SUBREAPER: orphaned descendants come here, not to init. */
	bool child_subreaper;

	/* Process-directed signals, with their information (proc/sigqueue.h),
	 * taken by whichever thread delivers them first.  siglock protects
	 * shared and the pending queue of every thread of the group (Linux's
	 * siglock); it nests inside proc_lock and takes no other lock. */
	struct sigpending shared;
	struct spinlock siglock;
	/* POSIX timers (proc/posix_timer.c, siglock): the list, the next id
	 * to try, and how many CPU-clock timers are armed (atomic read by the
	 * tick, proc/cpu_timer.c). */
	struct list_head timers;
	int timer_next_id;
	int cpu_timers_armed;
	/*
	 * signalfd readers and pollers of this process sleep here (woken by
	 * every signal queued for the group or one of its threads): a
	 * signalfd reads its reader's signals, so the queue is the reader's,
	 * not the file's.  Lives as long as the group; a signalfd file does
	 * not pin it: poll() and read() sleepers are threads of the group,
	 * and group_free cuts epoll's hooks off (fs/event/signalfd.c).
	 */
	struct wait_queue signalfd_wq;
	/*
	 * Job control (proc/jobctl.c): stopped by a stop signal until a
	 * SIGCONT or SIGKILL; its threads sleep on stop_wq meanwhile.
	 * report is the stop (W_STOPPED) or continue (W_CONTINUED) wait4
	 * has yet to report to the parent, or 0.
	 */
	bool stopped;
	int report;
	struct wait_queue stop_wq;
	struct itimers itimers; /* alarm, setitimer (itimer_lock, proc/itimer.c) */
	/* Resource limits but RLIMIT_NOFILE (proc/rlimit.c: rlimit_lock,
	 * atomic reads). */
	struct rlimit rlim[RLIM_NLIMITS];
	uint64_t exited_utime, exited_stime; /* CPU ticks of its threads that exited */
	/* The I/O of its threads that exited and of the children it reaped
	 * (proc_lock: added by exit and reap). */
	struct task_io exited_io;
	/* CPU ticks of the children it reaped, theirs included (proc_lock:
	 * added by reap.c, read by times and getrusage). */
	uint64_t children_utime, children_stime;
	/* Pages: the high-water resident size of the address spaces it has
	 * left (exec, exit: task_swap_uvm), and the most of any child it
	 * reaped, theirs included (Linux's signal->maxrss, cmaxrss;
	 * proc_lock). */
	size_t maxrss, children_maxrss;
	/* Credentials (proc/cred.h), referenced: shared by every thread,
	 * replaced whole by cred_commit under cred_lock (a release store),
	 * read without a lock by cred.h's rules.  cred_lock serializes the
	 * changes (cred_prepare to cred_commit). */
	const struct cred *cred;
	struct mutex cred_lock;
	/* The identity pidfds and /proc/<pid> hold (proc/pidfd.c), made by
	 * the first pidfd_open, CLONE_PIDFD or /proc lookup, under
	 * proc_lock; no reference: the identity's last put clears it (under
	 * proc_lock).  NULL while nothing names the process so. */
	struct pid_ident *ident;
	/* Its SYSIND_ASYNC calls outstanding or unread, in any queue
	 * (async/sysind_async.c, atomic): bounded per process. */
	int async_calls;
	/* Its SYSIND_ASYNC calls with a mask that run on a worker now
	 * (async/sysind_async.c, under siglock): a signal to the process or
	 * to a call's submitter may interrupt them (async_signal_sent). */
	struct list_head async_masked;
};

/* A new group for leader, not joined yet (group_add_thread_locked does,
 * or group_free_unused gives it back): NULL on ENOMEM. */
struct thread_group *group_create(struct task *leader);
void group_free_unused(struct thread_group *g);
/* Adds t, a new task, to g: sets t->group, takes a reference (proc_lock held). */
void group_add_thread_locked(struct thread_group *g, struct task *t);
/* Drops t's reference (task_free, proc_lock held): true after the last
 * task's, and then the caller calls group_free once it dropped proc_lock. */
bool group_put_locked(struct thread_group *g);
/* Frees a group no task references (epoll locks nest outside proc_lock). */
void group_free(struct thread_group *g);
/* True if t leads its group (its tid is the process id). */
static inline bool task_is_leader(const struct task *t);

#include "proc/task.h"

static inline bool task_is_leader(const struct task *t)
{
	return t->group->leader == t;
}

/* signal_work (proc/signal.h) for thread t: its own pending set and its
 * process's.  Tested on every return to user mode. */
static inline bool task_signal_work(const struct task *t, const struct trapframe *tf)
{
	return signal_work(&t->sig, &t->group->shared.set, tf);
}

#endif
