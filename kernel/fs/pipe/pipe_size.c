/*
 * A pipe's size: F_SETPIPE_SZ and F_GETPIPE_SZ, and the limits on the
 * pages of the pipes' rings (/proc/sys/fs/pipe-max-size,
 * pipe-user-pages-soft and -hard; docs/fds.md, "Pipes").
 */
#include "fs/pipe/pipe_ring.h"
#include "fs/proc/proc_sys.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>

unsigned int pipe_max_size = 1048576;

static long pipe_max_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	return snprintk(buf, size, "%u\n",
			__atomic_load_n((unsigned int *)row->data, __ATOMIC_RELAXED));
}

/* Linux's proc_dopipe_max_size: an unsigned number, rounded up to a page
 * and to a power of two; 0 is a page, more than 2^31 EINVAL. */
static long pipe_max_store(const struct proc_sys_row *row, const char *text, size_t len,
			   uint64_t *pos)
{
	unsigned long size = PAGE_SIZE;
	size_t used;
	long v;
	int err;

	if (*pos) { /* as proc_sys_int_store */
		*pos += len;
		return len;
	}
	if ((err = proc_sys_parse_long(text, len, &v, &used)))
		return err;
	if (v < 0 || (unsigned long)v > (1UL << 31))
		return -EINVAL;
	while (size < (unsigned long)v)
		size <<= 1;
	__atomic_store_n((unsigned int *)row->data, (unsigned int)size, __ATOMIC_RELAXED);
	*pos += used;
	return used;
}

PROC_SYS_ROW(pipe_max_row, .path = "fs/pipe-max-size", .mode = 0644, .show = pipe_max_show,
	     .store = pipe_max_store, .data = &pipe_max_size);

/*
 * Linux's per-user pipe accounting (its user->pipe_bufs), for the one user
 * there is: the pages of every pipe's ring (atomic).  Past
 * pipe-user-pages-soft a new pipe gets PIPE_MIN_PAGES and F_SETPIPE_SZ may
 * not grow a pipe; past pipe-user-pages-hard a new pipe is refused too (0:
 * no limit).  Linux exempts CAP_SYS_RESOURCE and CAP_SYS_ADMIN; every
 * process here is root, and the exemption would leave the rings unbounded,
 * so they are held to the limits as pipe-max-size holds them (pipe.h).
 */
static long pipe_user_pages;
static uint64_t pipe_user_pages_soft = 16384; /* Linux's PIPE_DEF_BUFFERS * INR_OPEN_CUR */
static uint64_t pipe_user_pages_hard;
#define PIPE_MIN_PAGES 2 /* Linux's PIPE_MIN_DEF_BUFFERS */

PROC_SYS_ROW(pipe_soft_row, .path = "fs/pipe-user-pages-soft", .mode = 0644,
	     .show = proc_sys_ulong_show, .store = proc_sys_ulong_store,
	     .data = &pipe_user_pages_soft);
PROC_SYS_ROW(pipe_hard_row, .path = "fs/pipe-user-pages-hard", .mode = 0644,
	     .show = proc_sys_ulong_show, .store = proc_sys_ulong_store,
	     .data = &pipe_user_pages_hard);

long pipe_account(size_t from, size_t to)
{
	return __atomic_add_fetch(&pipe_user_pages, (long)to - (long)from, __ATOMIC_RELAXED);
}

/* Whether pages pass *limit (0: none). */
static bool pipe_over(const uint64_t *limit, long pages)
{
	uint64_t l = __atomic_load_n(limit, __ATOMIC_RELAXED);

	return l && (uint64_t)pages > l;
}

/* The pages a new pipe's ring gets, charged (Linux's alloc_pipe_info): 16,
 * or pipe-max-size if smaller, PIPE_MIN_PAGES past the soft limit; 0,
 * nothing charged, past the hard one. */
size_t pipe_charge_new(void)
{
	size_t max = __atomic_load_n(&pipe_max_size, __ATOMIC_RELAXED);
	size_t pages = (PIPE_SIZE > max ? max : PIPE_SIZE) / PAGE_SIZE;
	long user = pipe_account(0, pages);

	if (pipe_over(&pipe_user_pages_soft, user)) {
		user = pipe_account(pages, PIPE_MIN_PAGES);
		pages = PIPE_MIN_PAGES;
	}
	if (pipe_over(&pipe_user_pages_hard, user)) {
		pipe_account(pages, 0);
		return 0;
	}
	return pages;
}

/* Linux's round_pipe_size: a page at least, then a power of two; 0 past
 * 2^31 (which no pipe may hold). */
static size_t round_pipe_size(unsigned int want)
{
	size_t size = PAGE_SIZE;

	if (want > (1U << 31))
		return 0;
	while (size < want)
		size <<= 1;
	return size;
}

/* Under the mutex: the held bytes from p's ring into to (size bytes),
 * each at its stream position modulo the new size. */
static void ring_move(struct pipe *p, char *to, size_t size)
{
	for (size_t pos = p->tail, n; pos != p->head; pos += n) {
		size_t from_off = pos % p->size, to_off = pos % size;

		n = p->head - pos;
		n = n < p->size - from_off ? n : p->size - from_off;
		n = n < size - to_off ? n : size - to_off;
		memcpy(to + to_off, p->buf + from_off, n);
	}
}

size_t pipe_get_size(struct pipe *p)
{
	return pipe_size(p);
}

/* Under the mutex: the charge for a ring of size bytes instead of p's
 * (Linux's pipe_set_size): 0, or -EPERM growing past pipe-max-size or
 * past either user limit, nothing charged. */
static int pipe_charge_resize(struct pipe *p, size_t size)
{
	size_t now = p->size / PAGE_SIZE, pages = size / PAGE_SIZE;
	long user;

	if (size > p->size && size > __atomic_load_n(&pipe_max_size, __ATOMIC_RELAXED))
		return -EPERM;
	user = pipe_account(now, pages);
	if (pages > now &&
	    (pipe_over(&pipe_user_pages_hard, user) || pipe_over(&pipe_user_pages_soft, user))) {
		pipe_account(pages, now);
		return -EPERM;
	}
	return 0;
}

/* Under the mutex: a ring of size bytes for p's held bytes in *buf, and
 * the packets' ring resized to match.  0, -EBUSY (Linux counts the pages
 * the held bytes take: its ring's slots) or -ENOMEM; on an error *buf may
 * hold the new ring, for the caller to free. */
static int ring_alloc_resized(struct pipe *p, size_t size, char **buf)
{
	if ((p->head - p->tail + PAGE_SIZE - 1) / PAGE_SIZE > size / PAGE_SIZE)
		return -EBUSY;
	if (!(*buf = kmalloc(size)))
		return -ENOMEM;
	return p->pkts.v ? pkt_ring_resize(&p->pkts, size / PAGE_SIZE) : 0;
}

/* Under the mutex: buf (size bytes) becomes p's ring, the held bytes moved
 * into it.  The old ring, for the caller to free once the mutex is off. */
static char *ring_replace(struct pipe *p, char *buf, size_t size)
{
	char *old = p->buf;

	ring_move(p, buf, size);
	p->buf = buf;
	__atomic_store_n(&p->size, size, __ATOMIC_RELAXED);
	wake_up(&p->wr_wait); /* room may have grown */
	return old;
}

long pipe_set_size(struct pipe *p, unsigned int want)
{
	size_t size = round_pipe_size(want);
	char *buf = NULL;
	int err;

	if (!size)
		return -EINVAL;
	mutex_lock(&p->mutex);
	if ((err = pipe_charge_resize(p, size))) {
		mutex_unlock(&p->mutex);
		return err;
	}
	if ((err = ring_alloc_resized(p, size, &buf))) {
		pipe_account(size / PAGE_SIZE, p->size / PAGE_SIZE);
		mutex_unlock(&p->mutex);
		kfree(buf);
		return err;
	}
	buf = ring_replace(p, buf, size);
	mutex_unlock(&p->mutex);
	kfree(buf);
	return (long)size;
}
