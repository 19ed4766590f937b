/*
 * futex_waitv (Linux 5.16, as of 6.1): one sleep on up to FUTEX_WAITV_MAX
 * futex words, each with its expected value; a FUTEX_WAKE of any of them
 * ends it, and the call returns that word's index.  Wine's and Proton's
 * WaitForMultipleObjects.  The waiters are futex.c's, one per word, all of
 * the calling task, so wakes, requeues and the leak count treat them as
 * any other.
 */
#include "arch/x86_64/uaccess.h"
#include "mm/heap.h"
#include "proc/futex_internal.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/futex.h>
#include <uapi/time.h>

/* One word to wait on, as user space lays it out. */
struct futex_waitv_k {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags; /* FUTEX_32, and FUTEX_PRIVATE_FLAG for a private word */
	uint32_t reserved;
};

/* The absolute deadline at uts on clk as a monotonic one: 0, -EINVAL
 * (another clock, a bad timespec) or -EFAULT, in Linux's order. */
static int waitv_deadline(const struct timespec_k *uts, int clk, uint64_t *deadline)
{
	struct timespec_k ts;
	int64_t ns, offset;

	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return -EINVAL;
	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if ((ns = timespec_to_ns(&ts)) < 0)
		return (int)ns;
	offset = clk == CLOCK_REALTIME ? clock_realtime_offset_ns() : timens_offset(clk);
	*deadline = ns > offset ? (uint64_t)(ns - offset) : 0; /* 0: already past */
	return 0;
}

/* What one call holds, in one allocation: a waiter per word (contiguous,
 * as futex_sleep_queued_v takes them), and each word's address and value. */
struct waitv_call {
	struct futex_waiter *v;
	uint64_t *uaddrs;
	uint32_t *vals;
};

static int waitv_alloc(struct waitv_call *c, unsigned int n)
{
	c->v = kmalloc(n * (sizeof(*c->v) + sizeof(*c->uaddrs) + sizeof(*c->vals)));
	if (!c->v)
		return -ENOMEM;
	c->uaddrs = (uint64_t *)(c->v + n);
	c->vals = (uint32_t *)(c->uaddrs + n);
	return 0;
}

/* The words' user descriptions into c (each waiter zeroed with its task,
 * bitset and key kind): 0, -EFAULT, or -EINVAL for flags other than
 * FUTEX_32 and FUTEX_PRIVATE_FLAG, no FUTEX_32, or a reserved field set. */
static int waitv_parse(struct waitv_call *c, const struct futex_waitv_k *uv, unsigned int n)
{
	struct futex_waitv_k aux;

	for (unsigned int i = 0; i < n; i++) {
		if (copy_from_user(&aux, &uv[i], sizeof(aux)))
			return -EFAULT;
		if ((aux.flags & ~(FUTEX_32 | FUTEX_PRIVATE_FLAG)) || aux.reserved ||
		    !(aux.flags & FUTEX_32))
			return -EINVAL;
		c->v[i] =
		    (struct futex_waiter){.bitset = FUTEX_BITSET_MATCH_ANY, .task = current()};
		c->v[i].key.shared_op = !(aux.flags & FUTEX_PRIVATE_FLAG);
		list_init(&c->v[i].link);
		c->uaddrs[i] = aux.uaddr;
		c->vals[i] = (uint32_t)aux.val; /* a 32-bit word: Linux compares the low half */
	}
	return 0;
}

/* The keys of c's words (referenced): 0, or -EINVAL / -EFAULT with none
 * left taken. */
static int waitv_keys(struct waitv_call *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int err = futex_key_get(c->uaddrs[i], c->v[i].key.shared_op, &c->v[i].key);
		if (err) {
			while (i-- > 0)
				futex_key_put(&c->v[i].key);
			return err;
		}
	}
	return 0;
}

/*
 * Queues v[0..n) on their words if each still holds its value (Linux's
 * futex_wait_multiple_setup): 0 with all queued; else all unqueued and
 * the index of one a waker took off meanwhile, or -EAGAIN for a word
 * that changed, or -EFAULT.
 */
static long waitv_queue(struct waitv_call *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct futex_bucket *b = futex_bucket_of(&c->v[i].key);
		struct futex_access a = {.op = WORD_LOAD};
		long woken;
		int err = futex_lock_word(b, c->uaddrs[i], &a);

		if (!err && a.old == c->vals[i]) {
			futex_queue(&c->v[i], b);
			spin_unlock(&b->lock);
			continue;
		}
		if (!err)
			spin_unlock(&b->lock);
		woken = futex_unqueue_all(c->v, (int)i);
		return woken >= 0 ? woken : err ? err : -EAGAIN;
	}
	return 0;
}

/* futex_waitv's wait once the arguments are read: the woken index or
 * -errno.  An untimed wait restarts after an SA_RESTART handler; a timed
 * one too, its deadline being absolute (Linux: ERESTARTSYS). */
static long waitv_wait(struct waitv_call *c, unsigned int n, uint64_t deadline)
{
	long ret;

	if ((ret = waitv_keys(c, n)))
		return ret;
	ret = waitv_queue(c, n);
	if (!ret)
		ret = futex_sleep_queued_v(c->v, (int)n, deadline, -ERESTARTSYS);
	for (unsigned int i = 0; i < n; i++)
		futex_key_put(&c->v[i].key); /* requeue may have moved it: ours again now */
	return ret;
}

SYSCALL_DEFINE5(futex_waitv, const struct futex_waitv_k *, uwaitv, unsigned int, nr, unsigned int,
		flags, const struct timespec_k *, utimeout, int, clk)
{
	uint64_t deadline = NO_DEADLINE;
	struct waitv_call c;
	long ret;

	if (flags || !nr || nr > FUTEX_WAITV_MAX || !uwaitv)
		return -EINVAL;
	if (utimeout && (ret = waitv_deadline(utimeout, clk, &deadline)))
		return ret;
	if ((ret = waitv_alloc(&c, nr)))
		return ret;
	ret = waitv_parse(&c, uwaitv, nr);
	if (!ret)
		ret = waitv_wait(&c, nr, deadline);
	kfree(c.v);
	return ret;
}
