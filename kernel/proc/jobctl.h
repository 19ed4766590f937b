/*
 * Job control: stop signals stop every thread of a process, SIGCONT
 * resumes it, and the parent hears of both (SIGCHLD, wait4's WUNTRACED and
 * WCONTINUED).  docs/processes.md, "Job control".
 */
#ifndef PROC_JOBCTL_H
#define PROC_JOBCTL_H

#include <stdbool.h>

struct task;
struct thread_group;

/* sig is being sent to g (proc_lock held), blocked, ignored or not: a
 * stop signal discards g's pending SIGCONT; SIGCONT discards its pending
 * stop signals and resumes it if it is stopped; SIGKILL takes back a stop
 * or continue its parent has not been told of by wait yet. */
void jobctl_signal_sent(struct thread_group *g, int sig);
/* t (current) took stop signal sig with its default action: stops its
 * process, and sleeps until a SIGCONT or SIGKILL.  SIGTSTP, SIGTTIN and
 * SIGTTOU are ignored in an orphaned process group. */
void jobctl_stop(struct task *t, int sig);
/* Another thread stopped t's process: t sleeps until it resumes. */
void jobctl_join_stop(struct task *t);
/* Process group pgid has no member whose parent is in another group of
 * the same session: nobody is left to resume it (proc_lock held). */
bool jobctl_pgrp_orphaned_locked(int pgid);
/* gone, exiting, may have orphaned group pgid (its own, or a child's of
 * its session): if so and a member is stopped, nobody could resume it,
 * so the group gets SIGHUP and SIGCONT (Linux's kill_orphaned_pgrp;
 * proc_lock held). */
void jobctl_orphaned_locked(int pgid, const struct thread_group *gone);

#endif
