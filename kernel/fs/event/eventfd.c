/*
 * eventfd: a 64-bit counter behind an fd (docs/events.md).  A write adds
 * to it, a read takes it all (or 1, with EFD_SEMAPHORE) and waits while it
 * is 0; a write that would take it to 0xffffffffffffffff or more waits for
 * room.  Each read and write moves exactly 8 bytes.
 */
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fs/event/eventfd.h"
#include "fs/event/poll.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/eventfd.h>
#include <uapi/fcntl.h>

#define EVENTFD_MAX  UINT64_MAX /* the counter stays below it */
#define EVENTFD_SIZE sizeof(uint64_t)

struct eventfd {
	/* Protects count.  Taken before the wait queue's lock (wake_up under
	 * it); the wait conditions read count without it, atomically, and
	 * re-check under it. */
	struct spinlock lock;
	uint64_t count;
	bool semaphore;	      /* EFD_SEMAPHORE: a read takes 1 */
	struct wait_queue wq; /* readers, writers and pollers: any change of count */
};

static uint64_t count_now(struct eventfd *e)
{
	return __atomic_load_n(&e->count, __ATOMIC_RELAXED);
}

/* Under the lock: sets the count (atomic for the unlocked readers) and wakes
 * everyone, since both directions may now proceed. */
static void count_set(struct eventfd *e, uint64_t v)
{
	__atomic_store_n(&e->count, v, __ATOMIC_RELAXED);
	wake_up(&e->wq);
}

/* Whether adding v keeps the counter below EVENTFD_MAX. */
static bool fits(uint64_t count, uint64_t v)
{
	return EVENTFD_MAX - count > v;
}

/* Takes the counter's value (or 1), waiting while it is 0. */
static long eventfd_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct eventfd *e = f->priv;
	uint64_t v;
	int err;

	(void)pos;
	if (iov_iter_count(to) < EVENTFD_SIZE)
		return -EINVAL;
	spin_lock(&e->lock);
	while (!e->count) {
		spin_unlock(&e->lock);
		if (file_nonblock(f))
			return -EAGAIN;
		err = wait_event_interruptible(&e->wq, count_now(e) != 0);
		if (err)
			return err;
		spin_lock(&e->lock);
	}
	v = e->semaphore ? 1 : e->count;
	count_set(e, e->count - v);
	spin_unlock(&e->lock);
	/* A fault loses the value taken, as on Linux. */
	return copy_to_iter_full(&v, EVENTFD_SIZE, to) ? -EFAULT : (long)EVENTFD_SIZE;
}

/*
 * Adds the 8-byte value written, waiting while it does not fit.  The value
 * must sit in the first segment: Linux's eventfd has only .write, which a
 * writev calls segment by segment (a vector of 4 + 4 bytes is EINVAL).
 */
static long eventfd_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	struct eventfd *e = f->priv;
	uint64_t v;
	int err;

	(void)pos;
	if (iov_iter_segment_count(from) < EVENTFD_SIZE)
		return -EINVAL;
	if (copy_from_iter_full(&v, EVENTFD_SIZE, from))
		return -EFAULT;
	if (v == EVENTFD_MAX)
		return -EINVAL;
	spin_lock(&e->lock);
	while (!fits(e->count, v)) {
		spin_unlock(&e->lock);
		if (file_nonblock(f))
			return -EAGAIN;
		err = wait_event_interruptible(&e->wq, fits(count_now(e), v));
		if (err)
			return err;
		spin_lock(&e->lock);
	}
	count_set(e, e->count + v);
	spin_unlock(&e->lock);
	return EVENTFD_SIZE;
}

/* POLLIN while the count is above 0, POLLOUT while a write of 1 fits. */
static unsigned eventfd_poll(struct file *f, struct poll_table *pt)
{
	struct eventfd *e = f->priv;
	uint64_t count;

	poll_wait(f, &e->wq, pt); /* e lives as long as f */
	count = count_now(e);
	return (count ? POLLIN | POLLRDNORM : 0) | (fits(count, 1) ? POLLOUT | POLLWRNORM : 0);
}

/* The last reference: nobody can be waiting, each sleeper holds one. */
static void eventfd_release(struct file *f)
{
	kfree(f->priv);
}

static const struct file_ops eventfd_ops = {
    .nowait = true,
    .anon_name = "anon_inode:[eventfd]",
    .read_iter = eventfd_read,
    .write_iter = eventfd_write,
    .poll = eventfd_poll,
    .release = eventfd_release,
};

void eventfd_signal(struct file *f)
{
	struct eventfd *e = f->priv;

	if (f->ops != &eventfd_ops)
		return;
	spin_lock(&e->lock);
	if (fits(e->count, 1)) /* a full counter stays full, as Linux's */
		count_set(e, e->count + 1);
	spin_unlock(&e->lock);
}

/* eventfd2's flags as open flags for fd_install_new (same bits). */
#define EFD_FD_FLAGS (EFD_CLOEXEC | EFD_CLOFORK)

SYSCALL_DEFINE2(eventfd2, unsigned int, initval, int, flags)
{
	struct eventfd *e;
	struct file *f;
	int fd;

	if (flags & ~(EFD_SEMAPHORE | EFD_NONBLOCK | EFD_FD_FLAGS))
		return -EINVAL;
	e = kzalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	spin_init(&e->lock, "eventfd");
	wait_queue_init(&e->wq, "eventfd");
	e->count = initval;
	e->semaphore = flags & EFD_SEMAPHORE;
	f = file_alloc(&eventfd_ops, O_RDWR | (flags & EFD_NONBLOCK), e);
	if (!f) {
		kfree(e);
		return -ENOMEM;
	}
	fd = fd_install_new(f, flags & EFD_FD_FLAGS);
	if (fd < 0)
		file_put(f); /* its release frees e */
	return fd;
}

SYSCALL_DEFINE1(eventfd, unsigned int, initval)
{
	return do_sys_eventfd2(initval, 0);
}
