/*
 * A pipe's ring (pipe_ring.h): bytes copied straight between the I/O
 * iterator's buffers and the ring, under the pipe's mutex; read and write,
 * and the pipe's side of splice, tee and vmsplice (fs/pipe/splice.c).
 */
#include "fs/pipe/pipe_ring.h"
#include "fs/atime.h"
#include "fs/file.h"
#include "fs/event/poll.h"
#include "lib/iov_iter.h"
#include "mm/layout.h"
#include "proc/signal.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

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
 * released.  The test of the common case, data there, is inline
 * (wait_data_locked): a call and its frame were a tenth of a small
 * read's pipe work (docs/bench.md).
 */
static __attribute__((noinline)) int wait_data_slow(struct pipe *p, bool nonblock)
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

static inline int wait_data_locked(struct pipe *p, bool nonblock)
{
	return p->head != p->tail ? 0 : wait_data_slow(p, nonblock);
}

/* Under the mutex: whether p has room for need bytes (packets fill slots:
 * pipe_has_room). */
static inline bool room_locked(struct pipe *p, size_t need)
{
	return p->size - (p->head - p->tail) >= need && pkt_ring_room(&p->pkts);
}

/*
 * With the mutex: waits until p has room for need bytes.  0 with the
 * mutex still held; -EPIPE (no reader: SIGPIPE sent), -EAGAIN (nonblock)
 * or the wait's error with it released.  The common case, a reader and
 * room, is tested inline (wait_room_locked), as for the data.
 */
static __attribute__((noinline)) int wait_room_slow(struct pipe *p, size_t need, bool nonblock)
{
	for (;;) {
		int err;

		if (!load_u(&p->readers)) {
			mutex_unlock(&p->mutex);
			signal_send(current(), SIGPIPE);
			return -EPIPE;
		}
		if (room_locked(p, need))
			return 0;
		mutex_unlock(&p->mutex);
		if (nonblock)
			return -EAGAIN;
		fasync_notify(&p->async, POLL_IN); /* readers may take what is there */
		if ((err = wait_event_interruptible(&p->wr_wait, pipe_writable(p, need))))
			return err;
		mutex_lock(&p->mutex);
	}
}

static inline int wait_room_locked(struct pipe *p, size_t need, bool nonblock)
{
	return load_u(&p->readers) && room_locked(p, need) ? 0 : wait_room_slow(p, need, nonblock);
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
static inline long ring_put(struct pipe *p, struct iov_iter *from, size_t len, size_t need)
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

/* A FIFO's read accesses its inode (Linux's pipe_read); an anonymous
 * pipe has none here. */
long pipe_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	long n;

	(void)pos;
	if ((n = pipe_read_nb(f->priv, to, file_nonblock(f))) > 0 && f->inode)
		file_accessed(f);
	return n;
}

long pipe_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)pos;
	unsigned int flags = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);

	return pipe_write_nb(f->priv, from, file_nonblock(f), flags & O_DIRECT);
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
