/*
 * System V semaphore sets: semget, semctl and /proc/sysvipc/sem.  The
 * operations are semop.c's, the undo lists sem_undo.c's; sem.h has the
 * structures and the locking rule (the namespace's sem_ids.lock for all
 * of it).
 */
#include "ipc/sem.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "ipc/ipc.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* ns->sem_ids.lock: the registry, every set (sem.h), ns->used_sems. */
static unsigned long all_sets; /* atomic: sets of every namespace */

struct sem_array *sem_find(struct ipc_namespace *ns, int semid)
{
	struct kern_ipc_perm *p = ipc_find(&ns->sem_ids, semid);

	return p ? container_of(p, struct sem_array, perm) : NULL;
}

static size_t set_size(int nsems)
{
	return sizeof(struct sem_array) + (size_t)nsems * sizeof(struct sem);
}

static void set_free(struct sem_array *sma)
{
	ipc_mem_uncharge(set_size(sma->nsems));
	kfree(sma);
}

/* ---- semget ---- */

static int newary(struct ipc_ids *ids, const struct ipc_params *p)
{
	struct ipc_namespace *ns = container_of(ids, struct ipc_namespace, sem_ids);
	struct sem_array *sma;
	bool over;
	int id;

	if (!p->nsems)
		return -EINVAL;
	spin_lock(&ids->lock);
	over = ns->used_sems + p->nsems > __atomic_load_n(&SEMMNS_CTL(ns), __ATOMIC_RELAXED);
	spin_unlock(&ids->lock); /* ns->used_sems grows only under get_lock, which we hold */
	if (over)
		return -ENOSPC;
	if (!ipc_mem_charge(set_size(p->nsems)))
		return -ENOMEM;
	if (!(sma = kzalloc(set_size(p->nsems)))) {
		ipc_mem_uncharge(set_size(p->nsems));
		return -ENOMEM;
	}
	sma->perm.key = p->key;
	sma->perm.mode = p->flg & S_IRWXUGO;
	sma->nsems = p->nsems;
	sma->ctime = ipc_now();
	list_init(&sma->pending);
	list_init(&sma->undos);
	spin_lock(&ids->lock);
	if ((id = ipc_addid(ids, &sma->perm)) >= 0)
		ns->used_sems += sma->nsems;
	spin_unlock(&ids->lock);
	if (id < 0)
		set_free(sma);
	return id;
}

static int sem_more_checks(struct kern_ipc_perm *obj, const struct ipc_params *p)
{
	return container_of(obj, struct sem_array, perm)->nsems < p->nsems ? -EINVAL : 0;
}

SYSCALL_DEFINE3(semget, int32_t, key, int, nsems, int, semflg)
{
	struct ipc_namespace *ns = current_ipc();
	static const struct ipc_get_ops ops = {.getnew = newary, .more_checks = sem_more_checks};
	struct ipc_params p = {.key = key, .flg = semflg, .nsems = nsems};

	if (nsems < 0 || nsems > __atomic_load_n(&SEMMSL_CTL(ns), __ATOMIC_RELAXED))
		return -EINVAL;
	return ipcget(&ns->sem_ids, &ops, &p);
}

/* ---- semctl ---- */

/* SEM_INFO: what is in use instead (ns->sem_ids.lock held). */
static void sem_in_use(void *p)
{
	struct ipc_namespace *ns = current_ipc();
	struct seminfo *info = p;

	info->semusz = ns->sem_ids.in_use;
	info->semaem = ns->used_sems;
}

static long sem_info(int cmd, uint64_t buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct seminfo info = {
	    .semmsl = __atomic_load_n(&SEMMSL_CTL(ns), __ATOMIC_RELAXED),
	    .semmns = __atomic_load_n(&SEMMNS_CTL(ns), __ATOMIC_RELAXED),
	    .semopm = __atomic_load_n(&SEMOPM_CTL(ns), __ATOMIC_RELAXED),
	    .semmni = __atomic_load_n(&ns->sem_ids.mni, __ATOMIC_RELAXED),
	    .semvmx = SEMVMX,
	    .semmnu = SEMMNU,
	    .semmap = SEMMAP,
	    .semume = SEMUME,
	    .semusz = SEMUSZ,
	    .semaem = SEMAEM,
	};

	return ipc_info(&ns->sem_ids, cmd == SEM_INFO ? sem_in_use : NULL, &info, sizeof(info),
			buf);
}

static void sem_fill_ds(struct kern_ipc_perm *p, void *out)
{
	struct sem_array *sma = container_of(p, struct sem_array, perm);
	struct semid64_ds *ds = out;

	ipc_perm_out(p, &ds->sem_perm);
	ds->sem_otime = sma->otime;
	ds->sem_ctime = sma->ctime;
	ds->sem_nsems = (uint64_t)sma->nsems;
}

/* The set semid for a command needing access (S_IRUGO or S_IWUGO): the set
 * with ns->sem_ids.lock held, or NULL with *err set and the lock dropped. */
static struct sem_array *set_for(int semid, int access, long *err)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_array *sma;

	spin_lock(&ns->sem_ids.lock);
	sma = sem_find(ns, semid);
	*err = !sma ? -EINVAL : !ipc_permitted(&sma->perm, access) ? -EACCES : 0;
	if (*err) {
		spin_unlock(&ns->sem_ids.lock);
		return NULL;
	}
	return sma;
}

/* Blocked operations waiting on semaphore semnum: for a value to grow
 * (GETNCNT), or for zero (GETZCNT), by the op each one blocks on. */
static int waiters_on(struct sem_array *sma, int semnum, bool zero)
{
	struct sem_queue *q;
	int n = 0;

	list_for_each_entry(q, &sma->pending, link)
	{
		const struct sembuf *sop = &q->sops[q->blocking];
		n += sop->sem_num == semnum && (zero ? sop->sem_op == 0 : sop->sem_op < 0);
	}
	return n;
}

/* GETVAL, GETPID, GETNCNT, GETZCNT. */
static long sem_get_one(int semid, int semnum, int cmd)
{
	struct ipc_namespace *ns = current_ipc();
	long ret;
	struct sem_array *sma = set_for(semid, S_IRUGO, &ret);

	if (!sma)
		return ret;
	if (semnum < 0 || semnum >= sma->nsems)
		ret = -EINVAL;
	else if (cmd == GETVAL)
		ret = sma->sems[semnum].semval;
	else if (cmd == GETPID)
		ret = sma->sems[semnum].sempid;
	else
		ret = waiters_on(sma, semnum, cmd == GETZCNT);
	spin_unlock(&ns->sem_ids.lock);
	return ret;
}

/* The size of semid's set, checking access as set_for; a buffer for its
 * values, allocated unlocked, in *vals.  0 or -errno. */
static long values_buffer(int semid, int access, uint16_t **vals, int *n)
{
	struct ipc_namespace *ns = current_ipc();
	long err;
	struct sem_array *sma = set_for(semid, access, &err);

	if (!sma)
		return err;
	*n = sma->nsems;
	spin_unlock(&ns->sem_ids.lock);
	return (*vals = kmalloc((size_t)*n * sizeof(**vals))) ? 0 : -ENOMEM;
}

static long sem_getall(int semid, uint64_t buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_array *sma;
	uint16_t *vals = NULL;
	int n = 0;
	long ret = values_buffer(semid, S_IRUGO, &vals, &n);

	if (ret)
		return ret;
	spin_lock(&ns->sem_ids.lock);
	if ((sma = sem_find(ns, semid))) /* else removed meanwhile: EIDRM, as Linux */
		for (int i = 0; i < n; i++)
			vals[i] = (uint16_t)sma->sems[i].semval;
	spin_unlock(&ns->sem_ids.lock);
	ret = !sma							   ? -EIDRM
	      : copy_to_user((void *)buf, vals, (size_t)n * sizeof(*vals)) ? -EFAULT
									   : 0;
	kfree(vals);
	return ret;
}

/* SETALL and SETVAL's common end (ns->sem_ids.lock held): the undo values of
 * what changed are void, waiters may now go. */
static void values_changed(struct sem_array *sma, int semnum)
{
	sem_undo_clear(sma, semnum);
	sma->ctime = ipc_now();
	sem_update_queue(sma);
}

static long sem_setall(int semid, uint64_t buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_array *sma;
	uint16_t *vals = NULL;
	int n = 0;
	long ret = values_buffer(semid, S_IWUGO, &vals, &n);

	if (ret)
		return ret;
	if (copy_from_user(vals, (void *)buf, (size_t)n * sizeof(*vals)))
		ret = -EFAULT;
	for (int i = 0; !ret && i < n; i++)
		if (vals[i] > SEMVMX)
			ret = -ERANGE;
	if (!ret) {
		spin_lock(&ns->sem_ids.lock);
		if ((sma = sem_find(ns, semid))) {
			for (int i = 0; i < n; i++)
				sma->sems[i] =
				    (struct sem){.semval = vals[i], .sempid = ipc_tgid()};
			values_changed(sma, -1);
		}
		spin_unlock(&ns->sem_ids.lock);
		ret = sma ? 0 : -EIDRM;
	}
	kfree(vals);
	return ret;
}

static long sem_setval(int semid, int semnum, int val)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_array *sma;
	long ret;

	if (val < 0 || val > SEMVMX)
		return -ERANGE;
	spin_lock(&ns->sem_ids.lock);
	sma = sem_find(ns, semid);
	ret = !sma				    ? -EINVAL
	      : semnum < 0 || semnum >= sma->nsems  ? -EINVAL
	      : !ipc_permitted(&sma->perm, S_IWUGO) ? -EACCES
						    : 0;
	if (!ret) {
		sma->sems[semnum] = (struct sem){.semval = val, .sempid = ipc_tgid()};
		values_changed(sma, semnum);
	}
	spin_unlock(&ns->sem_ids.lock);
	return ret;
}

/* IPC_RMID (ns->sem_ids.lock held): every waiter fails with EIDRM, every
 * process's undo for the set goes (into *dead), and the id with it.  The
 * caller frees the set and *dead unlocked. */
static void freeary(struct ipc_namespace *ns, struct sem_array *sma, struct list_head *dead)
{
	struct sem_queue *q, *n;

	list_for_each_entry_safe(q, n, &sma->pending, link)
	{
		list_del(&q->link);
		sem_wake(q, -EIDRM);
	}
	sem_undo_unlink_set(sma, dead);
	ns->used_sems -= sma->nsems;
	ipc_rmid(&ns->sem_ids, &sma->perm);
}

/* IPC_SET (with ds) and IPC_RMID: the owner's commands. */
static long sem_down(int semid, int cmd, const struct semid64_ds *ds)
{
	struct ipc_namespace *ns = current_ipc();
	struct sem_array *sma, *dead_set = NULL;
	struct list_head dead = LIST_HEAD_INIT(dead);
	long ret;

	spin_lock(&ns->sem_ids.lock);
	sma = sem_find(ns, semid);
	ret = !sma ? -EINVAL : !ipc_may_change(&sma->perm) ? -EPERM : 0;
	if (!ret && cmd == IPC_SET && !(ret = ipc_update_perm(&ds->sem_perm, &sma->perm)))
		sma->ctime = ipc_now();
	if (!ret && cmd == IPC_RMID) {
		freeary(ns, sma, &dead);
		dead_set = sma;
	}
	spin_unlock(&ns->sem_ids.lock);
	sem_undo_free_all(&dead);
	if (dead_set)
		set_free(dead_set);
	return ret;
}

/* arg is the union semun, passed by value: an int for SETVAL, else a
 * pointer. */
SYSCALL_DEFINE4(semctl, int, semid, int, semnum, int, cmd, uint64_t, arg)
{
	struct ipc_namespace *ns = current_ipc();
	struct semid64_ds ds = {0};

	if (semid < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return sem_info(cmd, arg);
	case IPC_STAT:
		return ipc_stat(&ns->sem_ids, semid, IPC_STAT_ID, sem_fill_ds, &ds, sizeof(ds),
				arg);
	case SEM_STAT:
		return ipc_stat(&ns->sem_ids, semid, IPC_STAT_INDEX, sem_fill_ds, &ds, sizeof(ds),
				arg);
	case SEM_STAT_ANY:
		return ipc_stat(&ns->sem_ids, semid, IPC_STAT_INDEX_ANY, sem_fill_ds, &ds,
				sizeof(ds), arg);
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
		return sem_get_one(semid, semnum, cmd);
	case GETALL:
		return sem_getall(semid, arg);
	case SETALL:
		return sem_setall(semid, arg);
	case SETVAL:
		return sem_setval(semid, semnum, (int)arg);
	case IPC_SET:
		if (copy_from_user(&ds, (void *)arg, sizeof(ds)))
			return -EFAULT;
		return sem_down(semid, cmd, &ds);
	case IPC_RMID:
		return sem_down(semid, cmd, NULL);
	default:
		return -EINVAL;
	}
}

/* ---- /proc/sysvipc/sem, the leak check, start-up ---- */

#define SEM_HEADER                                                                                 \
	"       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n"
#define SEM_LINE_MAX 128

static void sem_show(struct kern_ipc_perm *p, char *buf, size_t size, size_t *len)
{
	struct sem_array *sma = container_of(p, struct sem_array, perm);

	appendk(buf, size, len, "%10d %10d  %4o %10u %5u %5u %5u %5u %10ld %10ld\n", p->key, p->id,
		p->mode, (unsigned)sma->nsems, p->uid, p->gid, p->cuid, p->cgid, sma->otime,
		sma->ctime);
}

IPC_PROC_OPS(sysvipc_sem_ops, sem_ids, SEM_HEADER, SEM_LINE_MAX, sem_show);

unsigned long sem_set_count(void)
{
	return __atomic_load_n(&all_sets, __ATOMIC_RELAXED);
}

void sem_init_ns(struct ipc_namespace *ns)
{
	static const int ctl[4] = {SEMMSL, SEMMNS, SEMOPM, SEMMNI};

	ipc_ids_init(&ns->sem_ids, "sem_ids", "sem_get", SEMMNI, &all_sets);
	memcpy(ns->sem_ctl, ctl, sizeof(ctl));
}

/* No process is in ns: no waiter, and no undo list (a process leaves
 * its undo list before its namespace): every set goes. */
void sem_exit_ns(struct ipc_namespace *ns)
{
	for (int idx = 0; idx <= ns->sem_ids.max_idx; idx++) {
		struct list_head dead = LIST_HEAD_INIT(dead);
		struct kern_ipc_perm *p;
		spin_lock(&ns->sem_ids.lock);
		if ((p = ipc_find_idx(&ns->sem_ids, idx)))
			freeary(ns, container_of(p, struct sem_array, perm), &dead);
		spin_unlock(&ns->sem_ids.lock);
		sem_undo_free_all(&dead);
		if (p)
			set_free(container_of(p, struct sem_array, perm));
	}
}
