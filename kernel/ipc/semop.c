/*
 * semop and semtimedop: the operations on a set, all or none, and the
 * queue of operations that wait.  As Linux, a waiter is not woken to try
 * again: whoever changes the values performs the waiting operations that
 * can now go, oldest first, and wakes each with its result, so an
 * operation is never lost between a wake-up and a retry.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "ipc/sem.h"
#include "mm/heap.h"
#include "sched/ktimer.h"
#include "proc/task.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define SEMOPM_FAST 64 /* operations taken on the stack; more are kmalloc'd */

static bool alters(const struct sem_queue *q)
{
	for (int i = 0; i < q->nsops; i++)
		if (q->sops[i].sem_op)
			return true;
	return false;
}

/* Takes back q's first n operations (they were applied by sem_perform). */
static void undo_ops(struct sem_array *sma, struct sem_queue *q, int n)
{
	while (--n >= 0) {
		const struct sembuf *sop = &q->sops[n];
		sma->sems[sop->sem_num].semval -= sop->sem_op;
		if (sop->sem_flg & SEM_UNDO)
			q->undo->semadj[sop->sem_num] += sop->sem_op;
	}
}

/* Applies one operation: 0, 1 if it must wait, -ERANGE. */
static int apply_op(struct sem_array *sma, struct sem_queue *q, const struct sembuf *sop)
{
	struct sem *s = &sma->sems[sop->sem_num];
	int result = s->semval + sop->sem_op, adj;

	if (!sop->sem_op && s->semval)
		return 1; /* waits for zero */
	if (result < 0)
		return 1;
	if (result > SEMVMX)
		return -ERANGE;
	if (sop->sem_flg & SEM_UNDO) {
		adj = q->undo->semadj[sop->sem_num] - sop->sem_op;
		if (adj < -SEMAEM - 1 || adj > SEMAEM)
			return -ERANGE;
		q->undo->semadj[sop->sem_num] = (short)adj;
	}
	s->semval = result;
	return 0;
}

int sem_perform(struct sem_array *sma, struct sem_queue *q)
{
	int i, err = 0;

	for (i = 0; i < q->nsops && !err; i++)
		err = apply_op(sma, q, &q->sops[i]);
	if (!err) {
		for (i = 0; i < q->nsops; i++)
			sma->sems[q->sops[i].sem_num].sempid = q->pid;
		sma->otime = ipc_now();
		return 0;
	}
	undo_ops(sma, q, --i); /* op i failed: 0..i-1 were applied */
	if (err == 1) {
		q->blocking = i;
		if (q->sops[i].sem_flg & IPC_NOWAIT)
			return -EAGAIN;
	}
	return err;
}

void sem_wake(struct sem_queue *q, int status)
{
	ipc_wake(q->task, &q->status, status);
}

void sem_update_queue(struct sem_array *sma)
{
	struct sem_queue *q, *n;
	int err;

again:
	list_for_each_entry_safe(q, n, &sma->pending, link)
	{
		if ((err = sem_perform(sma, q)) == 1)
			continue;
		list_del(&q->link);
		sem_wake(q, err);
		if (!err && alters(q))
			goto again; /* the values moved: older waiters may go now */
	}
}

/*
 * Waits on sma (ns->sem_ids.lock held) until an operation completes
 * q or the set goes (q's status), a signal comes (-EINTR: semop is never
 * restarted) or the deadline passes (-EAGAIN).  Returns with the lock
 * held and q dequeued.
 */
static int wait_queued(struct sem_array *sma, struct sem_queue *q, bool timed, uint64_t deadline)
{
	struct ipc_namespace *ns = current_ipc();
	int status =
	    ipc_wait(&ns->sem_ids.lock, &q->link, &sma->pending, &q->status, timed, deadline);

	if (status != IPC_WAITING)
		return status;
	return signal_pending() ? -EINTR : -EAGAIN;
}

/* What the operations need: the highest semaphore, undo, writing. */
static void scan_ops(const struct sembuf *sops, unsigned nsops, int *max, bool *undo, bool *alter)
{
	*max = 0;
	*undo = *alter = false;
	for (unsigned i = 0; i < nsops; i++) {
		if (sops[i].sem_num > *max)
			*max = sops[i].sem_num;
		*undo |= (sops[i].sem_flg & SEM_UNDO) != 0;
		*alter |= sops[i].sem_op != 0;
	}
}

/*
 * The set semid with ns->sem_ids.lock held and, with undo, the caller's undo
 * for it in *un: an undo made unlocked (*spare) is linked here, or the
 * set's size is returned in *need for the caller to make one and retry.
 * 0 (set found), 1 (retry with a spare of *need), or -errno with the lock
 * dropped.
 */
static int lock_set(int semid, int max, bool undo, bool alter, struct sem_undo **spare,
		    struct sem_undo **un, struct sem_array **out, int *need)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_undo_list *ulp = undo ? sem_undo_list_current() : NULL;
	struct sem_array *sma;
	int err;

	if (undo && !ulp)
		return -ENOMEM;
	spin_lock(&ns->sem_ids.lock);
	sma = sem_find(ns, semid);
	err = !sma						      ? -EINVAL
	      : max >= sma->nsems				      ? -EFBIG
	      : !ipc_permitted(&sma->perm, alter ? S_IWUGO : S_IRUGO) ? -EACCES
								      : 0;
	if (!err && undo && !(*un = sem_undo_find(ulp, semid))) {
		if (*spare && (*spare)->nsems == sma->nsems) {
			sem_undo_link(ulp, sma, *spare);
			*un = *spare;
			*spare = NULL;
		} else {
			*need = sma->nsems;
			err = 1;
		}
	}
	if (err)
		spin_unlock(&ns->sem_ids.lock);
	*out = sma;
	return err;
}

static long do_semtimedop(int semid, const struct sembuf *sops, unsigned nsops, bool timed,
			  uint64_t deadline)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_queue q = {.task = current(),
			      .sops = sops,
			      .nsops = (int)nsops,
			      .pid = ipc_tgid(),
			      .status = IPC_WAITING};
	struct sem_undo *spare = NULL;
	struct sem_array *sma;
	bool undo, alter;
	int max, err, need;

	scan_ops(sops, nsops, &max, &undo, &alter);
	while ((err = lock_set(semid, max, undo, alter, &spare, &q.undo, &sma, &need)) == 1) {
		sem_undo_free(spare);
		if (!(spare = sem_undo_alloc(need)))
			return -ENOMEM;
	}
	if (err < 0)
		goto out;
	err = sem_perform(sma, &q);
	if (err == 1)
		err = wait_queued(sma, &q, timed, deadline);
	else if (!err && alter) {
		sem_update_queue(sma);
	}
	spin_unlock(&ns->sem_ids.lock);
out:
	sem_undo_free(spare);
	return err;
}

/* Linux's order of checks: the timeout's copy, the count, the operations'
 * copy, the id, the timeout's value; then the set's (do_semtimedop). */
static long semtimedop_common(int semid, uint64_t usops, unsigned nsops, uint64_t utimeout)
{
	struct sembuf fast[SEMOPM_FAST], *sops = fast;
	struct timespec_k ts;
	int64_t ns = 0;
	long ret;

	if (utimeout && copy_from_user(&ts, (void *)utimeout, sizeof(ts)))
		return -EFAULT;
	if (nsops > (unsigned)__atomic_load_n(&SEMOPM_CTL(current_ipc()), __ATOMIC_RELAXED))
		return -E2BIG;
	if (nsops < 1)
		return -EINVAL;
	if (nsops > SEMOPM_FAST && !(sops = kmalloc(nsops * sizeof(*sops))))
		return -ENOMEM;
	if (copy_from_user(sops, (void *)usops, nsops * sizeof(*sops)))
		ret = -EFAULT;
	else if (semid < 0 || (utimeout && (ns = timespec_to_ns(&ts)) < 0))
		ret = -EINVAL;
	else
		ret = do_semtimedop(semid, sops, nsops, utimeout != 0,
				    clock_monotonic_ns() + (uint64_t)ns); /* ns <= KTIME_MAX */
	if (sops != fast)
		kfree(sops);
	return ret;
}

SYSCALL_DEFINE3(semop, int, semid, uint64_t, sops, unsigned, nsops)
{
	return semtimedop_common(semid, sops, nsops, 0);
}

SYSCALL_DEFINE4(semtimedop, int, semid, uint64_t, sops, unsigned, nsops, uint64_t, timeout)
{
	return semtimedop_common(semid, sops, nsops, timeout);
}
