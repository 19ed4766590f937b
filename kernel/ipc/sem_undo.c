/*
 * SEM_UNDO: each process (or the processes sharing a list through
 * CLONE_SYSVSEM, as threads do) keeps per set the sum of what its undoable
 * operations did, negated; when the last of them exits (or unshares
 * CLONE_SYSVSEM) each is added back, clamped to [0, SEMVMX], as Linux's
 * exit_sem.  A fork child starts with no undo list.  An undo lives while
 * its set does: IPC_RMID frees every process's undo for the set.
 */
#include "ipc/ipc.h"
#include "ipc/sem.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

static unsigned long live_undos; /* atomic: struct sem_undo, for the leak check */

static struct sem_undo_list *list_alloc(void)
{
	struct sem_undo_list *ulp = kzalloc(sizeof(*ulp));

	if (ulp) {
		ulp->refs = 1;
		list_init(&ulp->undos);
		ulp->ns = current_ipc();
	}
	return ulp;
}

/* Only the task itself sets its pointer; the tasks sharing a list got it
 * at clone, so a task without one shares nothing. */
struct sem_undo_list *sem_undo_list_current(void)
{
	struct task *t = current();

	if (!t->sysvsem)
		t->sysvsem = list_alloc();
	return t->sysvsem;
}

struct sem_undo *sem_undo_find(struct sem_undo_list *ulp, int semid)
{
	struct sem_undo *un;

	list_for_each_entry(un, &ulp->undos, list_proc) if (un->semid == semid) return un;
	return NULL;
}

static size_t undo_size(int nsems)
{
	return sizeof(struct sem_undo) + (size_t)nsems * sizeof(short);
}

struct sem_undo *sem_undo_alloc(int nsems)
{
	struct sem_undo *un;

	if (!ipc_mem_charge(undo_size(nsems)))
		return NULL;
	if (!(un = kzalloc(undo_size(nsems)))) {
		ipc_mem_uncharge(undo_size(nsems));
		return NULL;
	}
	un->nsems = nsems;
	list_init(&un->list_proc);
	list_init(&un->list_id);
	__atomic_add_fetch(&live_undos, 1, __ATOMIC_RELAXED);
	return un;
}

void sem_undo_free(struct sem_undo *un)
{
	if (!un)
		return;
	ipc_mem_uncharge(undo_size(un->nsems));
	__atomic_sub_fetch(&live_undos, 1, __ATOMIC_RELAXED);
	kfree(un);
}

void sem_undo_link(struct sem_undo_list *ulp, struct sem_array *sma, struct sem_undo *un)
{
	un->ulp = ulp;
	un->semid = sma->perm.id;
	list_add(&un->list_proc, &ulp->undos);
	list_add(&un->list_id, &sma->undos);
}

/* Takes un off its list and its set, onto *dead (sem_ids.lock held). */
static void unlink_undo(struct sem_undo *un, struct list_head *dead)
{
	list_del(&un->list_proc);
	list_del(&un->list_id);
	list_add_tail(&un->list_id, dead);
}

void sem_undo_unlink_set(struct sem_array *sma, struct list_head *dead)
{
	while (!list_empty(&sma->undos))
		unlink_undo(list_first_entry(&sma->undos, struct sem_undo, list_id), dead);
}

void sem_undo_free_all(struct list_head *dead)
{
	struct sem_undo *un, *n;

	list_for_each_entry_safe(un, n, dead, list_id) sem_undo_free(un);
	list_init(dead);
}

void sem_undo_clear(struct sem_array *sma, int semnum)
{
	struct sem_undo *un;

	list_for_each_entry(un, &sma->undos, list_id)
	{
		if (semnum >= 0)
			un->semadj[semnum] = 0;
		else
			for (int i = 0; i < un->nsems; i++)
				un->semadj[i] = 0;
	}
}

/* ---- fork and exit ---- */

int sem_undo_fork(struct task *child, struct task *parent, bool share)
{
	child->sysvsem = NULL;
	if (!share)
		return 0;
	/* The parent is the caller: its own pointer is its to set. */
	if (!parent->sysvsem && !(parent->sysvsem = list_alloc()))
		return -ENOMEM;
	__atomic_add_fetch(&parent->sysvsem->refs, 1, __ATOMIC_RELAXED);
	child->sysvsem = parent->sysvsem;
	return 0;
}

/* Adds un's adjustments back to its set (sem_ids.lock held). */
static void apply_undo(struct ipc_namespace *ns, struct sem_undo *un)
{
	struct sem_array *sma = sem_find(ns, un->semid);

	kassert(sma); /* a linked undo's set exists: IPC_RMID unlinks them */
	for (int i = 0; i < un->nsems; i++) {
		int v = sma->sems[i].semval + un->semadj[i];
		if (!un->semadj[i])
			continue;
		sma->sems[i].semval = v < 0 ? 0 : v > SEMVMX ? SEMVMX : v;
		sma->sems[i].sempid = ipc_tgid();
	}
	sem_update_queue(sma);
}

void sem_undo_exit(struct task *t)
{
	struct sem_undo_list *ulp = t->sysvsem;
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct sem_undo *un;

	t->sysvsem = NULL;
	if (!ulp || __atomic_sub_fetch(&ulp->refs, 1, __ATOMIC_ACQ_REL))
		return;
	spin_lock(&ulp->ns->sem_ids.lock);
	while (!list_empty(&ulp->undos)) {
		un = list_first_entry(&ulp->undos, struct sem_undo, list_proc);
		apply_undo(ulp->ns, un);
		unlink_undo(un, &dead);
	}
	spin_unlock(&ulp->ns->sem_ids.lock);
	sem_undo_free_all(&dead);
	kfree(ulp);
}

unsigned long sem_undo_count(void)
{
	return __atomic_load_n(&live_undos, __ATOMIC_RELAXED);
}
