/*
 * The registry of a System V IPC kind and what the kinds share (ids.h):
 * ids, keys, gets, permissions.  Ids are given out as Linux does, so
 * programs and tools see the same numbers: indexes cycle through at least
 * IPC_MIN_CYCLE slots before one is reused, and the sequence number in the
 * id's high bits grows at each cycle, so a stale id rarely finds a new
 * object.
 */
#include "ipc/ids.h"
#include "ipc/ipc.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/timer.h"
#include "mm/budget.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/user_namespace.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "proc/group.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/sched.h"
#include <uapi/errno.h>

void ipc_ids_init(struct ipc_ids *ids, const char *name, const char *get_name, int mni,
		  unsigned long *total)
{
	ids->total = total;
	spin_init(&ids->lock, name);
	mutex_init(&ids->get_lock, get_name);
	ids->max_idx = ids->last_idx = ids->next_id = -1;
	ids->mni = mni;
	for (int i = 0; i < IPC_KEY_BUCKETS; i++)
		list_init(&ids->keys[i]);
}

/* ---- the table by index (ids->lock held) ---- */

static struct kern_ipc_perm *slot_get(struct ipc_ids *ids, int idx)
{
	struct kern_ipc_perm **c = ids->chunk[idx / IPC_CHUNK];

	return c ? c[idx % IPC_CHUNK] : NULL;
}

static bool index_used(struct ipc_ids *ids, int idx)
{
	return ids->used[idx / 64] & (1UL << (idx % 64));
}

static bool chunk_empty(struct ipc_ids *ids, int c)
{
	for (int w = c * IPC_CHUNK / 64; w < (c + 1) * IPC_CHUNK / 64; w++)
		if (ids->used[w])
			return false;
	return true;
}

/* The first free index in [from, end), or -1. */
static int free_index_from(struct ipc_ids *ids, int from, int end)
{
	for (int i = from; i < end;) {
		uint64_t free = ~ids->used[i / 64] & (~0UL << (i % 64));
		if (free) {
			int idx = (i & ~63) + __builtin_ctzl(free);
			return idx < end ? idx : -1;
		}
		i = (i & ~63) + 64;
	}
	return -1;
}

/* Linux's ipc_idr_alloc: the index and sequence number of a new object,
 * or -ENOSPC.  With next_id set, that id or the first free index above it
 * (and next_id is spent); else cyclically below max(in_use * 3/2, 64). */
static int alloc_index(struct ipc_ids *ids, uint16_t *seq)
{
	int next = ids->next_id, end, idx;

	ids->next_id = -1;
	if (next >= 0) {
		*seq = (uint16_t)(next >> IPC_SEQ_SHIFT);
		idx = free_index_from(ids, next & (IPCMNI - 1), IPCMNI);
		return idx >= 0 ? idx : -ENOSPC;
	}
	end = ids->in_use * 3 / 2;
	end = end < IPC_MIN_CYCLE ? IPC_MIN_CYCLE : end > IPCMNI ? IPCMNI : end;
	idx = free_index_from(ids, ids->last_idx + 1 < end ? ids->last_idx + 1 : end, end);
	if (idx < 0 && (idx = free_index_from(ids, 0, end)) < 0)
		return -ENOSPC;
	if (idx <= ids->last_idx && ++ids->seq >= IPC_SEQ_MAX)
		ids->seq = 0;
	ids->last_idx = idx;
	*seq = ids->seq;
	return idx;
}

static struct list_head *key_bucket(struct ipc_ids *ids, int32_t key)
{
	return &ids->keys[(uint32_t)key * 2654435761u >> 26];
}

int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *obj)
{
	int idx;

	if (ids->in_use >= (ids->mni < IPCMNI ? ids->mni : IPCMNI))
		return -ENOSPC;
	if ((idx = alloc_index(ids, &obj->seq)) < 0)
		return idx;
	if (!ids->chunk[idx / IPC_CHUNK] &&
	    !(ids->chunk[idx / IPC_CHUNK] = kzalloc(IPC_CHUNK * sizeof(obj))))
		return -ENOMEM;
	obj->uid = obj->cuid = cred_current()->euid; /* owner and creator: the caller */
	obj->gid = obj->cgid = cred_current()->egid;
	obj->id = (obj->seq << IPC_SEQ_SHIFT) + idx;
	ids->chunk[idx / IPC_CHUNK][idx % IPC_CHUNK] = obj;
	ids->used[idx / 64] |= 1UL << (idx % 64);
	list_init(&obj->key_link);
	if (obj->key != IPC_PRIVATE)
		list_add_tail(&obj->key_link, key_bucket(ids, obj->key));
	ids->in_use++;
	__atomic_add_fetch(ids->total, 1, __ATOMIC_RELAXED);
	if (idx > ids->max_idx)
		ids->max_idx = idx;
	return obj->id;
}

void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *obj)
{
	int idx = obj->id & (IPCMNI - 1);

	ids->chunk[idx / IPC_CHUNK][idx % IPC_CHUNK] = NULL;
	ids->used[idx / 64] &= ~(1UL << (idx % 64));
	if (chunk_empty(ids, idx / IPC_CHUNK)) {
		kfree(ids->chunk[idx / IPC_CHUNK]); /* a small slab object: no sleep */
		ids->chunk[idx / IPC_CHUNK] = NULL;
	}
	list_del(&obj->key_link);
	ids->in_use--;
	__atomic_sub_fetch(ids->total, 1, __ATOMIC_RELAXED);
	while (ids->max_idx >= 0 && !index_used(ids, ids->max_idx))
		ids->max_idx--;
}

void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *obj)
{
	(void)ids;
	list_del(&obj->key_link);
	obj->key = IPC_PRIVATE;
}

struct kern_ipc_perm *ipc_find_idx(struct ipc_ids *ids, int id)
{
	return id < 0 ? NULL : slot_get(ids, id & (IPCMNI - 1));
}

struct kern_ipc_perm *ipc_find(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *obj = ipc_find_idx(ids, id);

	return obj && obj->id == id ? obj : NULL;
}

int ipc_max_idx(struct ipc_ids *ids)
{
	if (!ids->in_use)
		return 0; /* Linux's -1, returned as 0 */
	return ids->in_use == IPCMNI ? IPCMNI - 1 : ids->max_idx;
}

static struct kern_ipc_perm *find_key(struct ipc_ids *ids, int32_t key)
{
	struct kern_ipc_perm *obj;

	list_for_each_entry(obj, key_bucket(ids, key), key_link) if (obj->key == key) return obj;
	return NULL;
}

/* ---- gets ---- */

/* An existing object for a get (ids->lock held): its id or -errno. */
static int get_existing(struct kern_ipc_perm *obj, const struct ipc_get_ops *ops,
			const struct ipc_params *p)
{
	int err;

	if ((p->flg & IPC_CREAT) && (p->flg & IPC_EXCL))
		return -EEXIST;
	if (ops->more_checks && (err = ops->more_checks(obj, p)))
		return err;
	return ipc_permitted(obj, p->flg) ? obj->id : -EACCES;
}

int ipcget(struct ipc_ids *ids, const struct ipc_get_ops *ops, const struct ipc_params *p)
{
	struct kern_ipc_perm *obj;
	int ret;

	mutex_lock(&ids->get_lock);
	if (p->key != IPC_PRIVATE) {
		spin_lock(&ids->lock);
		obj = find_key(ids, p->key);
		ret = obj ? get_existing(obj, ops, p) : -ENOENT;
		spin_unlock(&ids->lock);
		if (obj || !(p->flg & IPC_CREAT))
			goto out;
	}
	ret = ops->getnew(ids, p);
out:
	mutex_unlock(&ids->get_lock);
	return ret;
}

/* ---- permissions ---- */

/* Whether the caller's effective uid owns or created obj. */
static bool owns(const struct cred *c, const struct kern_ipc_perm *obj)
{
	return c->euid == obj->uid || c->euid == obj->cuid;
}

/* Linux's ipcperms: the owner's, the group's (fsgid or a supplementary
 * group) or the others' bits; CAP_IPC_OWNER overrides them. */
bool ipc_permitted(const struct kern_ipc_perm *obj, int flag)
{
	const struct cred *c = cred_current();
	int requested = (flag >> 6 | flag >> 3 | flag) & 7, granted = (int)obj->mode;

	if (owns(c, obj))
		granted >>= 6;
	else if (cred_in_group(c, obj->cgid) || cred_in_group(c, obj->gid))
		granted >>= 3;
	return !(requested & ~granted & 7) || capable(CAP_IPC_OWNER);
}

bool ipc_may_change(const struct kern_ipc_perm *obj)
{
	return owns(cred_current(), obj) || capable(CAP_SYS_ADMIN);
}

bool ipc_may_lock(const struct kern_ipc_perm *obj)
{
	return owns(cred_current(), obj) || capable(CAP_IPC_LOCK);
}

bool ipc_privileged(void)
{
	return capable(CAP_SYS_RESOURCE);
}

/* The ids as the caller's user namespace names them (65534 unmapped). */
void ipc_perm_out(const struct kern_ipc_perm *obj, struct ipc64_perm *out)
{
	struct user_namespace *ns = current_user_ns();

	*out = (struct ipc64_perm){.key = obj->key,
				   .uid = from_kuid_munged(ns, obj->uid),
				   .gid = from_kgid_munged(ns, obj->gid),
				   .cuid = from_kuid_munged(ns, obj->cuid),
				   .cgid = from_kgid_munged(ns, obj->cgid),
				   .mode = obj->mode,
				   .seq = obj->seq};
}

/* IPC_SET's ids are the caller's namespace's: EINVAL for one it does not
 * map (or -1), as Linux's ipc_update_perm. */
int ipc_update_perm(const struct ipc64_perm *in, struct kern_ipc_perm *obj)
{
	struct user_namespace *ns = current_user_ns();
	uint32_t uid = make_kuid(ns, in->uid), gid = make_kgid(ns, in->gid);

	if (uid == INVALID_ID || gid == INVALID_ID)
		return -EINVAL;
	obj->uid = uid;
	obj->gid = gid;
	obj->mode = (obj->mode & ~S_IRWXUGO) | (in->mode & S_IRWXUGO);
	return 0;
}

/* ---- waiting ---- */

int ipc_wait(struct spinlock *lock, struct list_head *link, struct list_head *queue, int *status,
	     bool timed, uint64_t deadline)
{
	struct task *t = current();
	int st;

	*status = IPC_WAITING;
	list_add_tail(link, queue);
	for (;;) {
		spin_unlock(lock); /* no sleep under it; a waker takes it to dequeue us */
		if (timed)
			sched_arm_deadline(deadline);
		else
			sched_set_state(t, TASK_SLEEPING);
		if (__atomic_load_n(status, __ATOMIC_ACQUIRE) == IPC_WAITING && !signal_pending() &&
		    (!timed || clock_monotonic_ns() < deadline))
			schedule();
		if (timed)
			sched_disarm_deadline();
		else
			sched_set_state(t, TASK_RUNNABLE);
		spin_lock(lock);
		if ((st = *status) != IPC_WAITING)
			return st; /* the waker dequeued it */
		if (signal_pending() || (timed && clock_monotonic_ns() >= deadline)) {
			list_del(link);
			return IPC_WAITING;
		}
	}
}

void ipc_wake(struct task *t, int *status, int value)
{
	__atomic_store_n(status, value, __ATOMIC_RELEASE);
	sched_wake(t); /* the waiter's struct is on its stack: it waits for our lock */
}

/* ---- the *_STAT and *_INFO commands ---- */

long ipc_stat(struct ipc_ids *ids, int id, enum ipc_stat_kind kind, ipc_fill_fn fill, void *ds,
	      size_t size, uint64_t buf)
{
	struct kern_ipc_perm *p;
	long ret;

	spin_lock(&ids->lock);
	p = kind == IPC_STAT_ID ? ipc_find(ids, id) : ipc_find_idx(ids, id);
	ret = !p ? -EINVAL : kind != IPC_STAT_INDEX_ANY && !ipc_permitted(p, S_IRUGO) ? -EACCES : 0;
	if (!ret) {
		fill(p, ds);
		ret = kind == IPC_STAT_ID ? 0 : p->id;
	}
	spin_unlock(&ids->lock);
	if (ret >= 0 && copy_to_user((void *)buf, ds, size))
		return -EFAULT;
	return ret;
}

long ipc_info(struct ipc_ids *ids, void (*fill)(void *info), void *info, size_t size, uint64_t buf)
{
	long ret;

	spin_lock(&ids->lock);
	if (fill)
		fill(info);
	ret = ipc_max_idx(ids);
	spin_unlock(&ids->lock);
	return copy_to_user((void *)buf, info, size) ? -EFAULT : ret;
}

/* ---- time, pids, memory ---- */

int64_t ipc_now(void)
{
	return ((int64_t)clock_monotonic_ns() + clock_realtime_offset_ns()) / NSEC_PER_SEC;
}

int ipc_tgid(void)
{
	return current()->group->tgid;
}

static struct mem_budget ipc_budget = {.part = 4}; /* a quarter of memory */

bool ipc_mem_charge(size_t bytes)
{
	return mem_budget_charge(&ipc_budget, bytes);
}

void ipc_mem_uncharge(size_t bytes)
{
	mem_budget_uncharge(&ipc_budget, bytes);
}

size_t ipc_mem_used(void)
{
	return mem_budget_used(&ipc_budget);
}

/* ---- /proc/sysvipc ---- */

char *ipc_proc_text(struct ipc_ids *ids, const char *header, size_t line_max, ipc_show_fn show)
{
	size_t size, len;
	char *text;
	int n;

	/* The size follows the count, read unlocked: a table that grew
	 * meanwhile is made again, larger (nothing is cut). */
	for (;;) {
		n = __atomic_load_n(&ids->in_use, __ATOMIC_RELAXED);
		size = strlen(header) + 1 + (size_t)n * line_max;
		if (!(text = kmalloc(size)))
			return NULL;
		spin_lock(&ids->lock);
		if (ids->in_use <= n)
			break;
		spin_unlock(&ids->lock);
		kfree(text);
	}
	len = 0;
	appendk(text, size, &len, "%s", header);
	for (int idx = 0; idx <= ids->max_idx; idx++)
		if (index_used(ids, idx))
			show(slot_get(ids, idx), text, size, &len);
	spin_unlock(&ids->lock);
	return text;
}
