/* Process exit, wait status encoding and reaping. */
#ifndef PROC_EXIT_H
#define PROC_EXIT_H

#include <uapi/signal.h>
#include <uapi/wait.h>

/* wait(2) status words, as Linux encodes them. */
#define W_EXITED(code)	(((code)&0xff) << 8)
#define W_SIGNALED(sig) ((sig)&0x7f)
#define W_CORE		0x80 /* with W_SIGNALED: a core was dumped */
#define W_STOPPED(sig)	(((sig)&0xff) << 8 | 0x7f)
#define W_CONTINUED	0xffff

/* The si_code (CLD_*) of SIGCHLD and waitid for a wait status. */
static inline int wait_status_code(int status)
{
	if (status == W_CONTINUED)
		return CLD_CONTINUED;
	if ((status & 0x7f) == 0x7f)
		return CLD_STOPPED;
	if (!(status & 0x7f))
		return CLD_EXITED;
	return status & W_CORE ? CLD_DUMPED : CLD_KILLED;
}

/* Their si_status: the exit code, the terminating or stopping signal, or
 * SIGCONT for a continued process. */
static inline int wait_status_value(int status)
{
	if (status == W_CONTINUED)
		return SIGCONT;
	if ((status & 0x7f) == 0x7f)
		return (status >> 8) & 0xff;
	return status & 0x7f ? status & 0x7f : (status >> 8) & 0xff;
}

struct task;
struct thread_group;

/* Ends the calling thread with a wait status (the process's if it is the
 * leader, or the last thread and the group was not killed); never returns. */
__attribute__((noreturn)) void task_exit(int status);
/* Ends every thread of the calling process; the status is the process's
 * unless another exit_group or fatal signal came first. */
__attribute__((noreturn)) void group_exit(int status);
/* SIGKILL to every thread of g but keep (proc_lock held). */
void group_kill_others_locked(struct thread_group *g, struct task *keep);
/* g dies (SIGKILL sent to it, or group_kill_others_locked; proc_lock
 * held): the calls its engines' workers and its SQ threads run are
 * interrupted and no more start (async.h, io_uring.h), as Linux's io
 * threads, threads of the process, take its SIGKILL. */
void group_kill_io_locked(struct thread_group *g);
/* Drops t's files, fs context and user memory (exit; clone's failures). */
void task_release_resources(struct task *t);
/* Reaps the caller's children until it has none, not interruptible
 * (reap.c): a dying pid namespace's init (proc/pid_ns.h). */
void reap_all_children(void);

#endif
