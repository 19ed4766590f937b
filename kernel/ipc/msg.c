/*
 * System V message queues: msgget, msgsnd, msgrcv, msgctl and
 * /proc/sysvipc/msg.  As Linux, a sender hands its message straight to a
 * waiting receiver that wants it (pipelined send), and a waiter is told
 * its result by whoever ends its wait: the message, EIDRM at removal,
 * E2BIG when the message it was given is too long, or a retry.  A
 * message is copied in before ns->msg_ids.lock is taken and out after it is
 * dropped; a dequeued message is the receiver's alone.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "ipc/ids.h"
#include "ipc/ipc.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

struct msg_msg {
	struct list_head link; /* in its queue's messages, or the caller's alone */
	int64_t mtype;
	uint64_t size;	/* of the text */
	uint64_t alloc; /* the text's room, as charged (MSG_COPY's copy may hold less) */
	char text[];
};

struct msg_queue {
	struct kern_ipc_perm perm;
	int64_t stime, rtime, ctime;
	uint64_t cbytes, qnum, qbytes;
	int lspid, lrpid;
	struct list_head messages;  /* struct msg_msg, oldest first */
	struct list_head receivers; /* struct msg_receiver: blocked msgrcv */
	struct list_head senders;   /* struct msg_sender: blocked msgsnd */
};

/* How a receiver picks a message (Linux's modes). */
enum { SEARCH_ANY, SEARCH_EQUAL, SEARCH_NOTEQUAL, SEARCH_LESSEQUAL, SEARCH_NUMBER };

/* A blocked msgrcv, on its caller's stack while queued. */
struct msg_receiver {
	struct list_head link;
	struct task *task;
	int64_t type;
	int mode;
	uint64_t maxsize; /* longer messages fail it with E2BIG */
	int tgid;
	int status; /* IPC_WAITING; 0 with msg; -EIDRM, -E2BIG; -EAGAIN: look again */
	struct msg_msg *msg;
};

/* A blocked msgsnd, on its caller's stack while queued. */
struct msg_sender {
	struct list_head link;
	struct task *task;
	uint64_t size;
	int status; /* IPC_WAITING; 0: look again; -EIDRM */
};

/* A namespace's msg_ids.lock: its registry, every queue, its messages
 * and waiters, and its totals (msg_bytes, msg_hdrs). */
static unsigned long all_queues, all_bytes; /* atomic: of every namespace (the leak check) */

static struct msg_queue *queue_of(struct kern_ipc_perm *p)
{
	return container_of(p, struct msg_queue, perm);
}

static struct msg_queue *queue_find(struct ipc_namespace *ns, int msqid)
{
	struct kern_ipc_perm *p = ipc_find(&ns->msg_ids, msqid);

	return p ? queue_of(p) : NULL;
}

/* A message of size bytes of text, charged to the IPC memory bound, or NULL. */
static struct msg_msg *msg_alloc(uint64_t size)
{
	struct msg_msg *m;

	if (!ipc_mem_charge(sizeof(*m) + size))
		return NULL;
	if (!(m = kmalloc(sizeof(*m) + size))) {
		ipc_mem_uncharge(sizeof(*m) + size);
		return NULL;
	}
	m->size = m->alloc = size;
	list_init(&m->link);
	return m;
}

/* Frees m: never under ns->msg_ids.lock (a large one's free may shoot TLBs down). */
static void msg_free(struct msg_msg *m)
{
	if (!m)
		return;
	ipc_mem_uncharge(sizeof(*m) + m->alloc);
	kfree(m);
}

/* ---- msgget ---- */

static int newque(struct ipc_ids *ids, const struct ipc_params *p)
{
	struct ipc_namespace *ns = container_of(ids, struct ipc_namespace, msg_ids);
	struct msg_queue *q = kzalloc(sizeof(*q));
	int id;

	if (!q)
		return -ENOMEM;
	q->perm.key = p->key;
	q->perm.mode = p->flg & S_IRWXUGO;
	q->qbytes = (uint64_t)__atomic_load_n(&ns->msg_ctlmnb, __ATOMIC_RELAXED);
	q->ctime = ipc_now();
	list_init(&q->messages);
	list_init(&q->receivers);
	list_init(&q->senders);
	spin_lock(&ids->lock);
	id = ipc_addid(ids, &q->perm);
	spin_unlock(&ids->lock);
	if (id < 0)
		kfree(q);
	return id;
}

SYSCALL_DEFINE2(msgget, int32_t, key, int, msgflg)
{
	struct ipc_namespace *ns = current_ipc();
	static const struct ipc_get_ops ops = {.getnew = newque};
	struct ipc_params p = {.key = key, .flg = msgflg};

	return ipcget(&ns->msg_ids, &ops, &p);
}

/* ---- the queue (ns->msg_ids.lock held) ---- */

static bool fits(struct msg_queue *q, uint64_t size)
{
	return size + q->cbytes <= q->qbytes && 1 + q->qnum <= q->qbytes;
}

static bool matches(const struct msg_msg *m, int64_t type, int mode)
{
	switch (mode) {
	case SEARCH_EQUAL:
		return m->mtype == type;
	case SEARCH_NOTEQUAL:
		return m->mtype != type;
	case SEARCH_LESSEQUAL:
		return m->mtype <= type;
	default:
		return true; /* ANY, and NUMBER counts them */
	}
}

/* Linux's find_msg: the first match; for LESSEQUAL the lowest type (the
 * first of it); for NUMBER (MSG_COPY) the type-th message.  NULL if none. */
static struct msg_msg *find_msg(struct msg_queue *q, int64_t type, int mode)
{
	struct msg_msg *m, *found = NULL;
	int64_t count = 0;

	list_for_each_entry(m, &q->messages, link)
	{
		if (!matches(m, type, mode))
			continue;
		if (mode == SEARCH_LESSEQUAL && m->mtype != 1) {
			type = m->mtype - 1; /* look for a lower one */
			found = m;
		} else if (mode != SEARCH_NUMBER || type == count++) {
			return m;
		}
	}
	return found;
}

static void enqueue(struct ipc_namespace *ns, struct msg_queue *q, struct msg_msg *m)
{
	__atomic_add_fetch(&all_bytes, m->size, __ATOMIC_RELAXED);
	list_add_tail(&m->link, &q->messages);
	q->cbytes += m->size;
	q->qnum++;
	ns->msg_bytes += m->size;
	ns->msg_hdrs++;
}

static void dequeue(struct ipc_namespace *ns, struct msg_queue *q, struct msg_msg *m)
{
	__atomic_sub_fetch(&all_bytes, m->size, __ATOMIC_RELAXED);
	list_del(&m->link);
	q->cbytes -= m->size;
	q->qnum--;
	ns->msg_bytes -= m->size;
	ns->msg_hdrs--;
}

/* Wakes the senders whose message fits now (or, with status -EIDRM, all). */
static void wake_senders(struct msg_queue *q, int status)
{
	struct msg_sender *s, *n;

	list_for_each_entry_safe(s, n, &q->senders, link)
	{
		if (status == 0 && !fits(q, s->size))
			continue;
		list_del(&s->link);
		ipc_wake(s->task, &s->status, status);
	}
}

/* Ends every receiver's wait with status (-EIDRM; -EAGAIN: look again). */
static void wake_receivers(struct msg_queue *q, int status)
{
	struct msg_receiver *r, *n;

	list_for_each_entry_safe(r, n, &q->receivers, link)
	{
		list_del(&r->link);
		ipc_wake(r->task, &r->status, status);
	}
}

/* Hands m to the first waiting receiver that wants it: true if one took
 * it.  One that wants it but has too small a buffer fails with E2BIG. */
static bool pipelined_send(struct msg_queue *q, struct msg_msg *m)
{
	struct msg_receiver *r, *n;

	list_for_each_entry_safe(r, n, &q->receivers, link)
	{
		if (!matches(m, r->type, r->mode))
			continue;
		list_del(&r->link);
		if (r->maxsize < m->size) {
			ipc_wake(r->task, &r->status, -E2BIG);
			continue;
		}
		q->lrpid = r->tgid;
		q->rtime = ipc_now();
		r->msg = m;
		ipc_wake(r->task, &r->status, 0);
		return true;
	}
	return false;
}

/* ---- msgsnd ---- */

/*
 * m (copied in) into the queue msqid, or to a receiver waiting for it:
 * 0 (m is the queue's or the receiver's now) or -errno (m is still the
 * caller's).  A full queue waits for room unless IPC_NOWAIT; a signal
 * ends the wait (-ERESTARTNOHAND: restarted only if no handler ran, as
 * Linux), removal too (-EIDRM).
 */
static long do_msgsnd(int msqid, struct msg_msg *m, int msgflg)
{
	struct ipc_namespace *ns = current_ipc();
	struct msg_sender s = {.task = current(), .size = m->size};
	struct msg_queue *q;
	long err;

	spin_lock(&ns->msg_ids.lock);
	err = (q = queue_find(ns, msqid)) ? 0 : -EINVAL;
	while (!err) {
		if (!ipc_permitted(&q->perm, S_IWUGO)) {
			err = -EACCES;
		} else if (fits(q, m->size)) {
			break;
		} else if (msgflg & IPC_NOWAIT) {
			err = -EAGAIN;
		} else {
			err =
			    ipc_wait(&ns->msg_ids.lock, &s.link, &q->senders, &s.status, false, 0);
			if (err == IPC_WAITING) {
				err = -ERESTARTNOHAND; /* a signal */
			} else if (!err) { /* room may have freed: q was alive then, look again */
				err = (q = queue_find(ns, msqid)) ? 0 : -EIDRM;
			}
		}
	}
	if (!err) {
		q->lspid = ipc_tgid();
		q->stime = ipc_now();
		if (!pipelined_send(q, m))
			enqueue(ns, q, m);
	}
	spin_unlock(&ns->msg_ids.lock);
	return err;
}

/* Linux's order of checks: the type's copy, the size and id, the type,
 * the text's copy; then the queue's. */
SYSCALL_DEFINE4(msgsnd, int, msqid, uint64_t, msgp, uint64_t, msgsz, int, msgflg)
{
	struct ipc_namespace *ns = current_ipc();
	struct msg_msg *m;
	int64_t mtype;
	long err;

	if (copy_from_user(&mtype, (void *)msgp, sizeof(mtype)))
		return -EFAULT;
	if (msgsz > (uint64_t)__atomic_load_n(&ns->msg_ctlmax, __ATOMIC_RELAXED) || msqid < 0)
		return -EINVAL;
	if (mtype < 1)
		return -EINVAL;
	if (!(m = msg_alloc(msgsz)))
		return -ENOMEM;
	m->mtype = mtype;
	if (copy_from_user(m->text, (void *)(msgp + sizeof(mtype)), msgsz))
		err = -EFAULT;
	else
		err = do_msgsnd(msqid, m, msgflg);
	if (err)
		msg_free(m);
	return err;
}

/* ---- msgrcv ---- */

/* Linux's convert_mode: how msgtyp and the flags pick a message. */
static int search_mode(int64_t *type, int flg)
{
	if (flg & MSG_COPY)
		return SEARCH_NUMBER;
	if (*type == 0)
		return SEARCH_ANY;
	if (*type < 0) {
		*type = *type == INT64_MIN ? INT64_MAX : -*type;
		return SEARCH_LESSEQUAL;
	}
	return flg & MSG_EXCEPT ? SEARCH_NOTEQUAL : SEARCH_EQUAL;
}

/*
 * A message for r from q (ns->msg_ids.lock held) in *out: dequeued, or with
 * MSG_COPY copied into copy and left queued.  0; 1 if there is none;
 * -E2BIG if it is longer than bufsz without MSG_NOERROR; -EINVAL if it is
 * longer than the copy (Linux's copy_msg).
 */
static int take(struct msg_queue *q, struct msg_receiver *r, int flg, uint64_t bufsz,
		struct msg_msg *copy, struct msg_msg **out)
{
	struct ipc_namespace *ns = current_ipc();
	struct msg_msg *m = find_msg(q, r->type, r->mode);

	if (!m)
		return 1;
	if (bufsz < m->size && !(flg & MSG_NOERROR))
		return -E2BIG;
	if (flg & MSG_COPY) {
		if (m->size > copy->alloc)
			return -EINVAL;
		copy->mtype = m->mtype;
		copy->size = m->size;
		memcpy(copy->text, m->text, m->size);
		*out = copy;
		return 0;
	}
	dequeue(ns, q, m);
	q->rtime = ipc_now();
	q->lrpid = r->tgid;
	wake_senders(q, 0);
	*out = m;
	return 0;
}

/* The message msgrcv returns, in *out (the caller's to free), or -errno;
 * waits as a receiver unless IPC_NOWAIT (ENOMSG). */
static long do_msgrcv(int msqid, uint64_t bufsz, int64_t type, int flg, struct msg_msg *copy,
		      struct msg_msg **out)
{
	struct ipc_namespace *ns = current_ipc();
	struct msg_receiver r = {.task = current(), .tgid = ipc_tgid()};
	struct msg_queue *q;
	long err;

	r.mode = search_mode(&type, flg);
	r.type = type;
	r.maxsize = flg & MSG_NOERROR ? INT32_MAX : bufsz;
	spin_lock(&ns->msg_ids.lock);
	err = (q = queue_find(ns, msqid)) ? 0 : -EINVAL;
	while (!err) {
		if (!ipc_permitted(&q->perm, S_IRUGO)) {
			err = -EACCES;
		} else if ((err = take(q, &r, flg, bufsz, copy, out)) != 1) {
			break;
		} else if (flg & IPC_NOWAIT) {
			err = -ENOMSG;
		} else {
			err = ipc_wait(&ns->msg_ids.lock, &r.link, &q->receivers, &r.status, false,
				       0);
			if (err == IPC_WAITING) {
				err = -ERESTARTNOHAND; /* a signal */
			} else if (!err) {
				*out = r.msg; /* handed over by a sender */
				break;
			} else if (err == -EAGAIN) { /* IPC_SET: look again */
				err = (q = queue_find(ns, msqid)) ? 0 : -EIDRM;
			}
		}
	}
	spin_unlock(&ns->msg_ids.lock);
	return err;
}

/* The message to the caller's struct msgbuf: its length, or -EFAULT (the
 * message is lost then, as on Linux). */
static long msg_fill(uint64_t msgp, const struct msg_msg *m, uint64_t bufsz)
{
	uint64_t n = bufsz < m->size ? bufsz : m->size;

	if (copy_to_user((void *)msgp, &m->mtype, sizeof(m->mtype)) ||
	    copy_to_user((void *)(msgp + sizeof(m->mtype)), m->text, n))
		return -EFAULT;
	return (long)n;
}

SYSCALL_DEFINE5(msgrcv, int, msqid, uint64_t, msgp, uint64_t, msgsz, int64_t, msgtyp, int, msgflg)
{
	struct ipc_namespace *ns = current_ipc();
	struct msg_msg *copy = NULL, *m = NULL;
	uint64_t max = (uint64_t)__atomic_load_n(&ns->msg_ctlmax, __ATOMIC_RELAXED);
	long ret;

	if (msqid < 0 || (int64_t)msgsz < 0)
		return -EINVAL;
	if (msgflg & MSG_COPY) {
		if ((msgflg & MSG_EXCEPT) || !(msgflg & IPC_NOWAIT))
			return -EINVAL;
		if (!(copy = msg_alloc(msgsz < max ? msgsz : max)))
			return -ENOMEM;
	}
	if (!(ret = do_msgrcv(msqid, msgsz, msgtyp, msgflg, copy, &m)))
		ret = msg_fill(msgp, m, msgsz);
	if (m != copy)
		msg_free(m);
	msg_free(copy);
	return ret;
}

/* ---- msgctl ---- */

/* MSG_INFO: what is in use instead of the pool figures (ns->msg_ids.lock held). */
static void msg_in_use(void *p)
{
	struct ipc_namespace *ns = current_ipc();
	struct msginfo *info = p;

	info->msgpool = ns->msg_ids.in_use;
	info->msgmap = ns->msg_hdrs > INT32_MAX ? INT32_MAX : (int32_t)ns->msg_hdrs;
	info->msgtql = ns->msg_bytes > INT32_MAX ? INT32_MAX : (int32_t)ns->msg_bytes;
}

static long msg_info(int cmd, uint64_t buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct msginfo info = {
	    .msgmax = __atomic_load_n(&ns->msg_ctlmax, __ATOMIC_RELAXED),
	    .msgmnb = __atomic_load_n(&ns->msg_ctlmnb, __ATOMIC_RELAXED),
	    .msgmni = __atomic_load_n(&ns->msg_ids.mni, __ATOMIC_RELAXED),
	    .msgssz = MSGSSZ,
	    .msgseg = MSGSEG,
	    .msgmap = MSGMAP,
	    .msgpool = MSGPOOL,
	    .msgtql = MSGTQL,
	};

	return ipc_info(&ns->msg_ids, cmd == MSG_INFO ? msg_in_use : NULL, &info, sizeof(info),
			buf);
}

static void msg_fill_ds(struct kern_ipc_perm *p, void *out)
{
	struct msg_queue *q = queue_of(p);
	struct msqid64_ds *ds = out;

	ipc_perm_out(p, &ds->msg_perm);
	ds->msg_stime = q->stime;
	ds->msg_rtime = q->rtime;
	ds->msg_ctime = q->ctime;
	ds->msg_cbytes = q->cbytes;
	ds->msg_qnum = q->qnum;
	ds->msg_qbytes = q->qbytes;
	ds->msg_lspid = q->lspid;
	ds->msg_lrpid = q->lrpid;
}

/* IPC_SET (ns->msg_ids.lock held): a larger msg_qbytes than msgmnb needs
 * CAP_SYS_RESOURCE (root has it); waiters look again. */
static long msg_set(struct msg_queue *q, const struct msqid64_ds *ds)
{
	struct ipc_namespace *ns = current_ipc();
	long err;

	if (ds->msg_qbytes > (uint64_t)__atomic_load_n(&ns->msg_ctlmnb, __ATOMIC_RELAXED) &&
	    !ipc_privileged())
		return -EPERM;
	if ((err = ipc_update_perm(&ds->msg_perm, &q->perm)))
		return err;
	q->qbytes = ds->msg_qbytes;
	q->ctime = ipc_now();
	wake_receivers(q, -EAGAIN); /* the new mode may refuse them */
	wake_senders(q, 0);	    /* the new size may take them */
	return 0;
}

/* IPC_RMID (ns->msg_ids.lock held): every waiter fails with EIDRM; the
 * messages go onto *dead, freed by the caller unlocked with the queue. */
static void freeque(struct ipc_namespace *ns, struct msg_queue *q, struct list_head *dead)
{
	struct msg_msg *m, *n;

	wake_receivers(q, -EIDRM);
	wake_senders(q, -EIDRM);
	list_for_each_entry_safe(m, n, &q->messages, link)
	{
		dequeue(ns, q, m);
		list_add_tail(&m->link, dead);
	}
	ipc_rmid(&ns->msg_ids, &q->perm);
}

static long msg_down(int msqid, int cmd, const struct msqid64_ds *ds)
{
	struct ipc_namespace *ns = current_ipc();
	struct list_head dead = LIST_HEAD_INIT(dead);
	struct msg_queue *q, *dead_q = NULL;
	struct msg_msg *m, *n;
	long ret;

	spin_lock(&ns->msg_ids.lock);
	q = queue_find(ns, msqid);
	ret = !q ? -EINVAL : !ipc_may_change(&q->perm) ? -EPERM : 0;
	if (!ret && cmd == IPC_SET)
		ret = msg_set(q, ds);
	if (!ret && cmd == IPC_RMID) {
		freeque(ns, q, &dead);
		dead_q = q;
	}
	spin_unlock(&ns->msg_ids.lock);
	list_for_each_entry_safe(m, n, &dead, link) msg_free(m);
	kfree(dead_q);
	return ret;
}

SYSCALL_DEFINE3(msgctl, int, msqid, int, cmd, uint64_t, buf)
{
	struct ipc_namespace *ns = current_ipc();
	struct msqid64_ds ds = {0};

	if (msqid < 0 || cmd < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case MSG_INFO:
		return msg_info(cmd, buf);
	case IPC_STAT:
		return ipc_stat(&ns->msg_ids, msqid, IPC_STAT_ID, msg_fill_ds, &ds, sizeof(ds),
				buf);
	case MSG_STAT:
		return ipc_stat(&ns->msg_ids, msqid, IPC_STAT_INDEX, msg_fill_ds, &ds, sizeof(ds),
				buf);
	case MSG_STAT_ANY:
		return ipc_stat(&ns->msg_ids, msqid, IPC_STAT_INDEX_ANY, msg_fill_ds, &ds,
				sizeof(ds), buf);
	case IPC_SET:
		if (copy_from_user(&ds, (void *)buf, sizeof(ds)))
			return -EFAULT;
		return msg_down(msqid, cmd, &ds);
	case IPC_RMID:
		return msg_down(msqid, cmd, NULL);
	default:
		return -EINVAL;
	}
}

/* ---- /proc/sysvipc/msg, the leak check, start-up ---- */

#define MSG_HEADER                                                                                 \
	"       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid "  \
	"     stime      rtime      ctime\n"
#define MSG_LINE_MAX 160

static void msg_show(struct kern_ipc_perm *p, char *buf, size_t size, size_t *len)
{
	struct msg_queue *q = queue_of(p);

	appendk(buf, size, len,
		"%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u %10ld %10ld %10ld\n", p->key,
		p->id, p->mode, q->cbytes, q->qnum, q->lspid, q->lrpid, p->uid, p->gid, p->cuid,
		p->cgid, q->stime, q->rtime, q->ctime);
}

IPC_PROC_OPS(sysvipc_msg_ops, msg_ids, MSG_HEADER, MSG_LINE_MAX, msg_show);

unsigned long msg_queue_count(void)
{
	return __atomic_load_n(&all_queues, __ATOMIC_RELAXED);
}

unsigned long msg_queued_bytes(void)
{
	return __atomic_load_n(&all_bytes, __ATOMIC_RELAXED);
}

void msg_init_ns(struct ipc_namespace *ns)
{
	ipc_ids_init(&ns->msg_ids, "msg_ids", "msg_get", MSGMNI, &all_queues);
	ns->msg_ctlmax = MSGMAX;
	ns->msg_ctlmnb = MSGMNB;
}

/* No process is in ns, so no waiter: every queue goes, messages and all. */
void msg_exit_ns(struct ipc_namespace *ns)
{
	for (int idx = 0; idx <= ns->msg_ids.max_idx; idx++) {
		struct list_head dead = LIST_HEAD_INIT(dead);
		struct kern_ipc_perm *p;
		struct msg_msg *m, *n;
		spin_lock(&ns->msg_ids.lock);
		if ((p = ipc_find_idx(&ns->msg_ids, idx)))
			freeque(ns, queue_of(p), &dead);
		spin_unlock(&ns->msg_ids.lock);
		list_for_each_entry_safe(m, n, &dead, link) msg_free(m);
		if (p)
			kfree(queue_of(p));
	}
}
