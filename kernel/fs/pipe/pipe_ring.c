/*
 * Pipes (see pipe.h): one struct pipe shared by its end files (a read end
 * and a write end from pipe(), any number from a FIFO's opens, fifo.c).
 * Bytes are copied straight between the I/O iterator's buffers and the
 * ring.
 */
#include "fs/pipe/pipe.h"
#include "fs/pipe/pipe_packet.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fasync.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/event/poll.h"
#include "fs/proc/proc_sys.h"
#include "lib/printk.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/mutex.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

struct pipe {
	/*
	 * The data path: protects buf, head and tail, and is held across the
	 * copies from and to user memory (which may fault and sleep), so it
	 * sleeps rather than spins.  Taken before lock and before a wait
	 * queue's lock (wake_up under it is allowed), never the other way.
	 */
	struct mutex mutex;
	/*
	 * Protects readers, writers and the counters (the ends' bookkeeping:
	 * open and release, which may not sleep).  The wait conditions read
	 * these fields and head and tail without either lock, atomically,
	 * and re-check under them.
	 */
	struct spinlock lock;
	char *buf; /* size bytes */
	/* The capacity (F_SETPIPE_SZ): a power of two, at least a page.
	 * Changed with buf under the mutex; read without it atomically (the
	 * wait conditions), and re-checked under it. */
	size_t size;
	size_t head, tail;    /* bytes ever written / read; held: head - tail */
	struct pkt_ring pkts; /* which held bytes are packets; under the mutex */
	unsigned int readers; /* files open for reading (fds and forks share one) */
	unsigned int writers; /* files open for writing (O_RDWR counts in both) */
	/* Ends ever opened for reading / writing: a FIFO opener waits for the
	 * other kind's to move (Linux's r_counter, w_counter). */
	unsigned int r_counter, w_counter;
	struct wait_queue rd_wait; /* readers, read-end pollers, FIFO openers awaiting a writer */
	struct wait_queue wr_wait; /* writers, write-end pollers, FIFO openers awaiting a reader */
	uint64_t ino;		   /* fstat's st_ino, the same for every end */
	/*
	 * References: each end file, a FIFO opener's while it opens, and a
	 * /proc/<pid>/fd inode standing for the pipe (fifo_holding); the
	 * last pipe_put frees it.  Atomic.  For a FIFO's pipe, taken through
	 * the inode's pointer and dropped only under the inode's lock, which
	 * guards that pointer (cleared with the last reference).
	 */
	unsigned int refs;
	/* The FIFO inode whose pipe this is, or NULL.  Not referenced: every
	 * end file of a FIFO holds the inode (f->inode).  Constant. */
	struct inode *fifo;
	/* Ends with O_ASYNC (fs/fasync.h): told with neither lock held. */
	struct fasync_list async;
};

static uint64_t next_ino = 1; /* atomic */

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

/* A pipe's charge goes from `from` pages to `to`: the user's pages after. */
static long pipe_account(size_t from, size_t to)
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
static size_t pipe_charge_new(void)
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

static unsigned int load_u(const unsigned int *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* Under the mutex: moves head or tail on by n (atomic for the unlocked readers). */
static void advance(size_t *v, size_t n)
{
	__atomic_store_n(v, *v + n, __ATOMIC_RELAXED);
}

/*
 * Bytes held, read without the lock: tail first, then head (acquire), so
 * the head read is at least as new as the tail read and the result is
 * never "negative"; it may exceed what is held now (the reader moved on),
 * never fall short of what was held when tail was read.
 */
static size_t pipe_used(struct pipe *p)
{
	size_t tail = __atomic_load_n(&p->tail, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&p->head, __ATOMIC_ACQUIRE) - tail;
}

/* Wait conditions (no lock held): re-checked under it. */
static bool pipe_readable(struct pipe *p)
{
	return pipe_used(p) || !load_u(&p->writers);
}

static size_t pipe_size(struct pipe *p)
{
	return __atomic_load_n(&p->size, __ATOMIC_RELAXED);
}

/* Signed on purpose: a used count above the size (see pipe_used) is no
 * room.  Packets fill the ring's slots as Linux's do (pipe_packet.h). */
static bool pipe_has_room(struct pipe *p, size_t need)
{
	return (long)(pipe_size(p) - pipe_used(p)) >= (long)need && pkt_ring_room(&p->pkts);
}

static bool pipe_writable(struct pipe *p, size_t need)
{
	return pipe_has_room(p, need) || !load_u(&p->readers);
}

/*
 * Under the mutex: copies len bytes between the ring at stream position pos
 * and the iterator (to_iter: ring -> it).  0 or -EFAULT; the caller moves
 * head or tail only on success, so a fault loses nothing.
 */
static int ring_copy(struct pipe *p, size_t pos, struct iov_iter *it, size_t len, bool to_iter)
{
	size_t off = pos % p->size, first = len < p->size - off ? len : p->size - off;
	int err;

	if (len == 0)
		return 0;
	err = to_iter ? copy_to_iter_full(p->buf + off, first, it)
		      : copy_from_iter_full(p->buf + off, first, it);
	if (err || first == len)
		return err;
	return to_iter ? copy_to_iter_full(p->buf, len - first, it)
		       : copy_from_iter_full(p->buf, len - first, it);
}

/*
 * With the mutex: waits until p holds data or has no writer left.  0 with
 * the mutex still held; -EAGAIN (nonblock) or the wait's error with it
 * released.
 */
static int wait_data_locked(struct pipe *p, bool nonblock)
{
	while (p->head == p->tail && load_u(&p->writers)) {
		int err;

		mutex_unlock(&p->mutex);
		if (nonblock)
			return -EAGAIN;
		if ((err = wait_event_interruptible(&p->rd_wait, pipe_readable(p))))
			return err;
		mutex_lock(&p->mutex);
	}
	return 0;
}

/*
 * With the mutex: waits until p has room for need bytes.  0 with the
 * mutex still held; -EPIPE (no reader: SIGPIPE sent), -EAGAIN (nonblock)
 * or the wait's error with it released.
 */
static int wait_room_locked(struct pipe *p, size_t need, bool nonblock)
{
	for (;;) {
		int err;

		if (!load_u(&p->readers)) {
			mutex_unlock(&p->mutex);
			signal_send(current(), SIGPIPE);
			return -EPIPE;
		}
		if (p->size - (p->head - p->tail) >= need && pkt_ring_room(&p->pkts))
			return 0; /* packets fill slots (pipe_has_room) */
		mutex_unlock(&p->mutex);
		if (nonblock)
			return -EAGAIN;
		fasync_notify(&p->async, POLL_IN); /* readers may take what is there */
		if ((err = wait_event_interruptible(&p->wr_wait, pipe_writable(p, need))))
			return err;
		mutex_lock(&p->mutex);
	}
}

/* Takes what is there, up to the whole vector: never waits for more once data came. */
static long pipe_read_nb(struct pipe *p, struct iov_iter *to, bool nonblock)
{
	size_t n, drop, len = iov_iter_count(to);
	int err;

	if (len == 0)
		return 0;
	mutex_lock(&p->mutex);
	if ((err = wait_data_locked(p, nonblock)))
		return err;
	n = pkt_ring_read_span(&p->pkts, p->tail, p->head, len, &drop);
	err = ring_copy(p, p->tail, to, n, true);
	if (!err && n) {
		advance(&p->tail, n + drop); /* a packet's rest goes with it */
		pkt_ring_consumed(&p->pkts, p->tail);
		wake_up_poll(&p->wr_wait, POLLOUT | POLLWRNORM);
	}
	mutex_unlock(&p->mutex);
	if (!err && n)
		fasync_notify(&p->async, POLL_OUT);
	return err ? err : (long)n;
}

/*
 * Under the mutex: puts as much of the iterator's len bytes as fits, if at
 * least need bytes fit.  Bytes put, or -EFAULT.
 */
static long ring_put(struct pipe *p, struct iov_iter *from, size_t len, size_t need)
{
	size_t room = p->size - (p->head - p->tail), n = len < room ? len : room;

	if (room < need)
		return 0;
	if (ring_copy(p, p->head, from, n, false))
		return -EFAULT;
	advance(&p->head, n);
	wake_up_poll(&p->rd_wait, POLLIN | POLLRDNORM);
	return n;
}

/*
 * Under the mutex, in a packet write of len bytes of which done are in:
 * whether the next chunk joins the stream bytes at the end of the pipe
 * instead of being a packet.  As Linux, the part of the write past whole
 * PIPE_BUFs does (Linux merges it into their page); the rest are packets
 * of PIPE_BUF.
 */
static bool packet_joins(struct pipe *p, size_t len, size_t done)
{
	return !done && len % PIPE_BUF && p->head != p->tail &&
	       !pkt_ring_ends_packet(&p->pkts, p->head);
}

/* Under the mutex: the next chunk of a packet write, or -ENOMEM if the
 * pipe's first packet finds no memory for its ring. */
static long packet_chunk(struct pipe *p, size_t len, size_t done)
{
	size_t rest = len - done;

	if (!p->pkts.v && pkt_ring_resize(&p->pkts, p->size / PAGE_SIZE))
		return -ENOMEM;
	if (packet_joins(p, len, done))
		return len % PIPE_BUF;
	return rest < PIPE_BUF ? rest : PIPE_BUF;
}

/*
 * Writes of up to PIPE_BUF bytes (a whole writev vector counts as one)
 * go in whole (need = len); longer ones as room allows.  In packet mode
 * each chunk goes in whole (packet_chunk), a packet unless it joins
 * stream bytes (decided again after a wait for room).
 */
static long pipe_write_nb(struct pipe *p, struct iov_iter *from, bool nonblock, bool packet)
{
	size_t done = 0, len = iov_iter_count(from), need = len <= PIPE_BUF ? len : 1;
	size_t start;
	bool is_pkt;
	long n = 0;

	mutex_lock(&p->mutex);
	while (done < len) {
		if (packet && (n = packet_chunk(p, len, done)) < 0)
			break;
		if (packet)
			need = (size_t)n;
		/* Released on error: SIGPIPE for a pipe with no reader. */
		if ((n = wait_room_locked(p, need, nonblock)))
			goto out;
		start = p->head;
		is_pkt = packet && !(need == len % PIPE_BUF && packet_joins(p, len, done));
		if ((n = ring_put(p, from, packet ? need : len - done, need)) < 0)
			break;
		if (is_pkt)
			pkt_ring_push(&p->pkts, start, p->head);
		done += n;
	}
	mutex_unlock(&p->mutex);
out:
	if (done)
		fasync_notify(&p->async, POLL_IN);
	return done ? (long)done : n;
}

static long pipe_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)pos;
	return pipe_read_nb(f->priv, to, f->flags & O_NONBLOCK);
}

static long pipe_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)pos;
	unsigned int flags = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);

	return pipe_write_nb(f->priv, from, flags & O_NONBLOCK, flags & O_DIRECT);
}

/* ---- splice, tee and vmsplice (fs/pipe/splice.c) ---- */

/* Into the pipe: one wait for room, then as much as fits (Linux's
 * vmsplice_to_pipe: not write's loop until all is in). */
long pipe_transfer(struct file *pf, struct iov_iter *it, bool write, bool nonblock)
{
	struct pipe *p = pf->priv;
	long n;

	if (!write)
		return pipe_read_nb(p, it, nonblock);
	mutex_lock(&p->mutex);
	if ((n = wait_room_locked(p, 1, nonblock)))
		return n;
	n = ring_put(p, it, iov_iter_count(it), 1);
	mutex_unlock(&p->mutex);
	if (n > 0)
		fasync_notify(&p->async, POLL_IN);
	return n;
}

/* Under the mutex: an iterator over the ring's bytes [pos, pos + len) (at
 * most two kernel segments, v). */
static void ring_iter(struct pipe *p, size_t pos, size_t len, struct iovec v[2],
		      struct iov_iter *it)
{
	size_t off = pos % p->size, first = len < p->size - off ? len : p->size - off;

	v[0] = (struct iovec){p->buf + off, first};
	v[1] = (struct iovec){p->buf, len - first};
	iov_iter_kernel_vec(it, v, len > first ? 2 : 1, len);
}

/*
 * Between the ring and f's read_iter or write_iter, under the mutex:
 * to_file, the held bytes go to f straight from the ring and only what f
 * took leaves the pipe (a short or failed write loses nothing; 0 at the
 * end: no data, no writer); else f's bytes fill the ring's free space.
 */
static long ring_splice(struct file *pf, struct file *f, uint64_t *pos, size_t len, bool nonblock,
			bool to_file)
{
	struct pipe *p = pf->priv;
	struct iovec v[2];
	struct iov_iter it;
	size_t avail;
	long n;

	mutex_lock(&p->mutex);
	if ((n = to_file ? wait_data_locked(p, nonblock) : wait_room_locked(p, 1, nonblock)))
		return n;
	avail = to_file ? p->head - p->tail : p->size - (p->head - p->tail);
	if (len > avail)
		len = avail;
	ring_iter(p, to_file ? p->tail : p->head, len, v, &it);
	n = len ? file_rw_iter(f, &it, pos, to_file) : 0;
	if (n > 0) {
		advance(to_file ? &p->tail : &p->head, n);
		pkt_ring_consumed(&p->pkts, p->tail);
		wake_up(to_file ? &p->wr_wait : &p->rd_wait);
	}
	mutex_unlock(&p->mutex);
	if (n > 0)
		fasync_notify(&p->async, to_file ? POLL_OUT : POLL_IN);
	return n;
}

long pipe_splice_out(struct file *pf, struct file *out, uint64_t *pos, size_t len, bool nonblock)
{
	return ring_splice(pf, out, pos, len, nonblock, true);
}

long pipe_splice_in(struct file *pf, struct file *in, uint64_t *pos, size_t len, bool nonblock)
{
	return ring_splice(pf, in, pos, len, nonblock, false);
}

/* Both mutexes, the lower address first (so two opposite splices cannot
 * deadlock); lockdep does not check a class nested in itself. */
static void lock_two(struct pipe *a, struct pipe *b)
{
	mutex_lock(a < b ? &a->mutex : &b->mutex);
	mutex_lock(a < b ? &b->mutex : &a->mutex);
}

static void unlock_two(struct pipe *a, struct pipe *b)
{
	mutex_unlock(&a->mutex);
	mutex_unlock(&b->mutex);
}

/*
 * With both mutexes: 1 when in has data and out room, 0 at in's end;
 * else the mutexes are released and it is -EPIPE (SIGPIPE sent),
 * -EAGAIN, or the wait's error, or 2 after a wait (look again).
 */
static int pipes_ready(struct pipe *in, struct pipe *out, bool nonblock)
{
	bool no_data = in->head == in->tail;
	int err;

	if (!load_u(&out->readers)) {
		unlock_two(in, out);
		signal_send(current(), SIGPIPE);
		return -EPIPE;
	}
	if (no_data && !load_u(&in->writers))
		return 0;
	if (!no_data && out->head - out->tail < out->size && pkt_ring_room(&out->pkts))
		return 1;
	unlock_two(in, out);
	if (nonblock)
		return -EAGAIN;
	err = no_data ? wait_event_interruptible(&in->rd_wait, pipe_readable(in))
		      : wait_event_interruptible(&out->wr_wait, pipe_writable(out, 1));
	return err ? err : 2;
}

/* splice between two pipes, or tee (keep: in's bytes stay), ring to ring. */
long pipe_splice_pipe(struct file *inf, struct file *outf, size_t len, bool nonblock, bool keep)
{
	struct pipe *in = inf->priv, *out = outf->priv;
	struct iovec v[2];
	struct iov_iter it;
	int ready;

	do
		lock_two(in, out);
	while ((ready = pipes_ready(in, out, nonblock)) == 2);
	if (ready < 0)
		return ready;
	if (ready) {
		if (len > in->head - in->tail)
			len = in->head - in->tail;
		if (len > out->size - (out->head - out->tail))
			len = out->size - (out->head - out->tail);
		ring_iter(in, in->tail, len, v, &it);
		ring_copy(out, out->head, &it, len, false); /* kernel to kernel: no fault */
		advance(&out->head, len);
		wake_up(&out->rd_wait);
		if (!keep) {
			advance(&in->tail, len);
			pkt_ring_consumed(&in->pkts, in->tail);
			wake_up(&in->wr_wait);
		}
	}
	unlock_two(in, out);
	if (ready && len) {
		fasync_notify(&out->async, POLL_IN);
		if (!keep)
			fasync_notify(&in->async, POLL_OUT);
	}
	return ready ? (long)len : 0;
}

/*
 * Without the lock, as Linux's pipe_poll: the poller is on the queue (or
 * marked sleeping) before it reads, and every change of head, tail,
 * readers or writers is followed by a wake-up of that queue, so a stale
 * read is answered by the wake-up.  A plain check (poll's timeout 0, every
 * pass after the first) takes no lock at all.
 */
static unsigned pipe_poll(struct file *f, struct poll_table *pt)
{
	struct pipe *p = f->priv;
	unsigned mask = 0;

	/* p outlives its end files */
	if (file_can_read(f)) {
		poll_wait(f, &p->rd_wait, pt);
		if (pipe_used(p))
			mask |= POLLIN | POLLRDNORM;
		if (!load_u(&p->writers))
			mask |= POLLHUP;
	}
	if (file_can_write(f)) {
		poll_wait(f, &p->wr_wait, pt);
		if (pipe_has_room(p, PIPE_BUF))
			mask |= POLLOUT | POLLWRNORM;
		if (!load_u(&p->readers))
			mask |= POLLERR;
	}
	return mask;
}

/* FIONREAD: bytes waiting in the pipe. */
static long pipe_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct pipe *p = f->priv;
	int avail;

	if (cmd != FIONREAD)
		return -ENOTTY;
	mutex_lock(&p->mutex);
	avail = (int)(p->head - p->tail);
	mutex_unlock(&p->mutex);
	return copy_to_user((void *)arg, &avail, sizeof(avail));
}

static int pipe_stat(struct file *f, struct uapi_stat *st)
{
	struct pipe *p = f->priv;

	st->st_ino = p->ino;
	st->st_nlink = 1;
	st->st_mode = S_IFIFO | 0600;
	st->st_blksize = PIPE_BUF;
	return 0;
}

static void pipe_free(struct pipe *p)
{
	pipe_account(p->size / PAGE_SIZE, 0);
	pkt_ring_free(&p->pkts);
	kfree(p->buf);
	kfree(p);
}

void pipe_get(struct pipe *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void pipe_put(struct pipe *p)
{
	struct inode *ip = p->fifo;
	bool last;

	if (!ip) {
		last = !__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
	} else {
		spin_lock(&ip->lock);
		last = !__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
		/* the next open makes a new one: the data goes, as Linux */
		if (last && ip->fifo.pipe == p)
			ip->fifo.pipe = NULL;
		spin_unlock(&ip->lock);
	}
	if (last)
		pipe_free(p);
}

struct pipe *pipe_alloc(struct inode *fifo)
{
	struct pipe *p = kzalloc(sizeof(*p));
	size_t pages = p ? pipe_charge_new() : 0;

	if (!pages || !(p->buf = kmalloc(pages * PAGE_SIZE))) {
		if (pages)
			pipe_account(pages, 0);
		kfree(p);
		return NULL;
	}
	p->size = pages * PAGE_SIZE;
	mutex_init(&p->mutex, "pipe_mutex");
	spin_init(&p->lock, "pipe");
	wait_queue_init(&p->rd_wait, "pipe_rd");
	wait_queue_init(&p->wr_wait, "pipe_wr");
	fasync_list_init(&p->async, true);
	p->ino = fifo ? fifo->ino : __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	p->fifo = fifo;
	p->refs = 1;
	return p;
}

/* Under the lock: a new end counts (Linux's fifo_open bookkeeping). */
static void add_end_locked(struct pipe *p, unsigned int flags)
{
	if ((flags & O_ACCMODE) != O_WRONLY) {
		__atomic_add_fetch(&p->readers, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&p->r_counter, 1, __ATOMIC_RELAXED);
		wake_up(&p->wr_wait);
	}
	if ((flags & O_ACCMODE) != O_RDONLY) {
		__atomic_add_fetch(&p->writers, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&p->w_counter, 1, __ATOMIC_RELAXED);
		wake_up(&p->rd_wait);
	}
}

/* Under the lock: an end of these open flags stops counting; the other
 * side's sleepers see EOF or EPIPE, and FIFO openers re-check. */
static void drop_end_locked(struct pipe *p, unsigned int flags)
{
	if ((flags & O_ACCMODE) != O_WRONLY)
		__atomic_sub_fetch(&p->readers, 1, __ATOMIC_RELAXED);
	if ((flags & O_ACCMODE) != O_RDONLY)
		__atomic_sub_fetch(&p->writers, 1, __ATOMIC_RELAXED);
	wake_up(&p->wr_wait);
	wake_up(&p->rd_wait);
}

/* An end closes (a FIFO's also drops its inode, after the pipe, whose
 * last put takes the inode's lock). */
static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;

	bool one_side;

	spin_lock(&p->lock);
	drop_end_locked(p, f->flags);
	one_side = !p->readers != !p->writers;
	spin_unlock(&p->lock);
	if (one_side) { /* the other side sees EOF or EPIPE now (Linux's pipe_release) */
		fasync_notify(&p->async, POLL_IN);
		fasync_notify(&p->async, POLL_OUT);
	}
	pipe_put(p);
	if (f->inode)
		inode_put(f->inode);
}

static struct fasync_list *pipe_fasync(struct file *f)
{
	return &((struct pipe *)f->priv)->async;
}

static const struct file_ops pipe_ops = {
    .read_iter = pipe_read,
    .write_iter = pipe_write,
    .poll = pipe_poll,
    .ioctl = pipe_ioctl,
    .stat = pipe_stat,
    .release = pipe_release,
    .fasync = pipe_fasync,
};

struct pipe *pipe_of(struct file *f)
{
	return f->ops == &pipe_ops ? f->priv : NULL;
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

long pipe_set_size(struct pipe *p, unsigned int want)
{
	size_t size = round_pipe_size(want);
	char *buf, *old;
	int err;

	if (!size)
		return -EINVAL;
	mutex_lock(&p->mutex);
	if ((err = pipe_charge_resize(p, size))) {
		mutex_unlock(&p->mutex);
		return err;
	}
	/* Linux counts the pages the held bytes take (its ring's slots). */
	err = (p->head - p->tail + PAGE_SIZE - 1) / PAGE_SIZE > size / PAGE_SIZE ? -EBUSY : 0;
	buf = err ? NULL : kmalloc(size);
	if (!err && !buf)
		err = -ENOMEM;
	if (!err && p->pkts.v)
		err = pkt_ring_resize(&p->pkts, size / PAGE_SIZE);
	if (err) {
		pipe_account(size / PAGE_SIZE, p->size / PAGE_SIZE);
		mutex_unlock(&p->mutex);
		kfree(buf);
		return err;
	}
	ring_move(p, buf, size);
	old = p->buf;
	p->buf = buf;
	__atomic_store_n(&p->size, size, __ATOMIC_RELAXED);
	wake_up(&p->wr_wait); /* room may have grown */
	mutex_unlock(&p->mutex);
	kfree(old);
	return (long)size;
}

/* Until *counter moves from seen: 0, or the wait's error (a signal). */
static int wait_counter(struct wait_queue *wq, unsigned int *counter, unsigned int seen)
{
	return wait_event_interruptible(wq, load_u(counter) != seen);
}

int pipe_open(struct pipe *p, unsigned int flags, struct file **out)
{
	unsigned int acc = flags & O_ACCMODE, seen = 0;
	/* Only a FIFO's opens wait for a partner; an anonymous pipe reopened
	 * through /proc/<pid>/fd never does (Linux: is_pipe in fifo_open),
	 * so `cat /dev/fd/63` of a pipe whose writer has gone reads EOF. */
	bool wr = acc == O_WRONLY, wait = false, named = p->fifo != NULL;
	struct file *f = NULL;
	int err = 0;

	spin_lock(&p->lock);
	if (named && wr && (flags & O_NONBLOCK) && !p->readers) {
		spin_unlock(&p->lock);
		return -ENXIO;
	}
	add_end_locked(p, flags);
	if (named && acc != O_RDWR && !(flags & O_NONBLOCK) && !(wr ? p->readers : p->writers)) {
		wait = true;
		seen = wr ? p->r_counter : p->w_counter;
	}
	spin_unlock(&p->lock);
	if (wait)
		err = wr ? wait_counter(&p->wr_wait, &p->r_counter, seen)
			 : wait_counter(&p->rd_wait, &p->w_counter, seen);
	if (!err && !(f = file_alloc(&pipe_ops, flags & (O_ACCMODE | O_NONBLOCK | O_ASYNC), p)))
		err = -ENOMEM;
	if (err) {
		spin_lock(&p->lock);
		drop_end_locked(p, flags);
		spin_unlock(&p->lock);
		return err;
	}
	pipe_get(p);
	*out = f;
	return 0;
}

/* A new end of pipe()'s, with its own pipe reference, or NULL. */
static struct file *end_file(struct pipe *p, unsigned int flags)
{
	struct file *f = file_alloc(&pipe_ops, flags, p);

	if (!f)
		return NULL;
	spin_lock(&p->lock);
	add_end_locked(p, flags);
	spin_unlock(&p->lock);
	pipe_get(p);
	return f;
}

int pipe_create(unsigned int oflags, struct file **rd, struct file **wr)
{
	struct pipe *p = pipe_alloc(NULL);

	if (!p)
		return -ENFILE; /* Linux's answer, whether memory or the user's pages ran out */
	*rd = end_file(p, O_RDONLY | (oflags & O_NONBLOCK));
	*wr = *rd ? end_file(p, O_WRONLY | (oflags & (O_NONBLOCK | O_DIRECT))) : NULL;
	if (!*wr && *rd)
		file_put(*rd);
	pipe_put(p); /* the ends hold it now, if any */
	return *wr ? 0 : -ENOMEM;
}
