/*
 * Tasks per real user id, for RLIMIT_NPROC (Linux's ucounts): every live
 * task (thread) counts for the real uid of its process, so that one user
 * cannot take every task slot from the others.  Under proc_lock.
 */
#ifndef PROC_NPROC_H
#define PROC_NPROC_H

#include <stdbool.h>
#include <stdint.h>

struct thread_group;

/* A task joins g (group_add_thread_locked), or leaves it at exit. */
void nproc_join_locked(struct thread_group *g);
void nproc_leave_locked(struct thread_group *g);
/* g's real uid became uid: its live tasks now count for uid. */
void nproc_move_locked(struct thread_group *g, uint32_t uid);
/* The live tasks of uid. */
int nproc_tasks_locked(uint32_t uid);
/* Whether a fork by g must fail (EAGAIN): its user has RLIMIT_NPROC tasks
 * or more, is not root, and the caller has neither CAP_SYS_RESOURCE nor
 * CAP_SYS_ADMIN (exempt, asked before proc_lock was taken). */
bool nproc_fork_refused_locked(struct thread_group *g, bool exempt);

#endif
