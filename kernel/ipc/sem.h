/*
 * System V semaphores, inside kernel/ipc/: the set (sem.c: semget, semctl,
 * /proc/sysvipc/sem), the operations and their waiters (semop.c: semop,
 * semtimedop) and the undo lists (sem_undo.c: SEM_UNDO, applied at exit).
 *
 * sem_ids.lock protects every set, its semaphores, its pending operations
 * and its undo structures, and every process's undo list: a set found under
 * it stays alive until the lock is dropped, and a waiter still queued on a
 * set holds it (removal dequeues and wakes every waiter first).  Nothing
 * is allocated, freed (a set or an undo may be a large allocation: its
 * free may shoot TLBs down) or copied to user memory under it.
 */
#ifndef IPC_SEM_H
#define IPC_SEM_H

#include <stdbool.h>
#include <stdint.h>
#include "ipc/ids.h"
#include "lib/list.h"

struct task;

struct sem {
	int semval;
	int sempid; /* the process of the last operation */
};

struct sem_array {
	struct kern_ipc_perm perm;
	int64_t otime, ctime;
	int nsems;
	struct list_head pending; /* struct sem_queue: blocked operations, oldest first */
	struct list_head undos;	  /* struct sem_undo of every process for this set */
	struct sem sems[];
};

/* A process's undo structure for one set (Linux's sem_undo). */
struct sem_undo {
	struct list_head list_proc; /* in its list's undos */
	struct list_head list_id;   /* in its set's undos */
	struct sem_undo_list *ulp;
	int semid;
	int nsems;
	short semadj[]; /* what exit adds to each semaphore */
};

/*
 * The undo structures of the processes sharing it (CLONE_SYSVSEM; a
 * process by default).  Lifetime: refs counts the tasks whose sysvsem
 * points here (atomic); the last task to drop it applies and frees the
 * undos.  undos is under sem_ids.lock.
 */
struct sem_undo_list {
	int refs;
	struct list_head undos;
	/* The namespace of its sets (constant): the one of every task
	 * sharing the list, which leaves the list before the namespace
	 * (exit, unshare and setns of CLONE_NEWIPC), so it outlives it. */
	struct ipc_namespace *ns;
};

/* A blocked semop, on its caller's stack while queued on a set. */
struct sem_queue {
	struct list_head link; /* in the set's pending */
	struct task *task;
	const struct sembuf *sops;
	int nsops;
	int blocking;	       /* index of the op it waits on: GETNCNT/GETZCNT count it */
	struct sem_undo *undo; /* with SEM_UNDO, the caller's for the set */
	int pid;
	int status; /* IPC_WAITING until an operation completes it or the set goes */
};

#define SEMMSL_CTL(ns) (ns)->sem_ctl[0]
#define SEMMNS_CTL(ns) (ns)->sem_ctl[1]
#define SEMOPM_CTL(ns) (ns)->sem_ctl[2]

/* The set with this id in ns (its sem_ids.lock held), or NULL. */
struct sem_array *sem_find(struct ipc_namespace *ns, int semid);
/*
 * Tries q's operations on sma, all or none (sem_ids.lock held): 0 done,
 * 1 would block (q->blocking says where), -EAGAIN if it would block with
 * IPC_NOWAIT, -ERANGE past SEMVMX or the undo range.
 */
int sem_perform(struct sem_array *sma, struct sem_queue *q);
/* Values changed: completes and wakes the pending operations that can
 * now go, oldest first (sem_ids.lock held). */
void sem_update_queue(struct sem_array *sma);
/* Wakes q's task with status (q dequeued; sem_ids.lock held). */
void sem_wake(struct sem_queue *q, int status);

/* The caller's undo list, made if it has none; NULL when memory runs out. */
struct sem_undo_list *sem_undo_list_current(void);
/* ulp's undo for the set semid, or NULL (sem_ids.lock held). */
struct sem_undo *sem_undo_find(struct sem_undo_list *ulp, int semid);
/* A zeroed undo for a set of nsems (no lock held), or NULL; and its free. */
struct sem_undo *sem_undo_alloc(int nsems);
void sem_undo_free(struct sem_undo *un);
/* Links un (made for sma's size) into ulp and sma (sem_ids.lock held). */
void sem_undo_link(struct sem_undo_list *ulp, struct sem_array *sma, struct sem_undo *un);
/* sma goes: its undos are unlinked into *dead, freed by sem_undo_free_all
 * once sem_ids.lock is dropped. */
void sem_undo_unlink_set(struct sem_array *sma, struct list_head *dead);
void sem_undo_free_all(struct list_head *dead);
/* SETVAL (semnum) or SETALL (-1): the undo values of those semaphores are
 * reset (sem_ids.lock held). */
void sem_undo_clear(struct sem_array *sma, int semnum);

#endif
