/*
 * Pipes (see pipe.h): one struct pipe shared by a read-end and a write-end
 * file.  Bytes are copied straight between the I/O iterator's buffers and
 * the ring.
 */
#include "fs/pipe.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/poll.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

#define S_IFIFO 0010000

struct pipe {
	/*
	 * Protects buf, head, tail, readers and writers.  Taken before a wait
	 * queue's lock (wake_up under it is allowed), never the other way.
	 * The wait conditions read head, tail, readers and writers without
	 * it, atomically, and re-check under it.
	 */
	struct spinlock lock;
	char *buf;		   /* PIPE_SIZE bytes */
	size_t head, tail;	   /* bytes ever written / read; held: head - tail */
	unsigned int readers;	   /* read-end files open (fds and forks share one) */
	unsigned int writers;	   /* write-end files open */
	struct wait_queue rd_wait; /* readers and read-end pollers: data or EOF */
	struct wait_queue wr_wait; /* writers and write-end pollers: room or no reader */
	uint64_t ino;		   /* fstat's st_ino, the same for both ends */
};

static uint64_t next_ino = 1; /* atomic */

static size_t load(const size_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static unsigned int load_u(const unsigned int *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* Under the lock: moves head or tail on by n (atomic for the unlocked readers). */
static void advance(size_t *v, size_t n)
{
	__atomic_store_n(v, *v + n, __ATOMIC_RELAXED);
}

/* Wait conditions (no lock held). */
static bool pipe_readable(struct pipe *p)
{
	return load(&p->head) != load(&p->tail) || !load_u(&p->writers);
}

static bool pipe_writable(struct pipe *p, size_t need)
{
	return PIPE_SIZE - (load(&p->head) - load(&p->tail)) >= need || !load_u(&p->readers);
}

static bool is_read_end(struct file *f)
{
	return (f->flags & O_ACCMODE) == O_RDONLY;
}

/*
 * Under the lock: copies len bytes between the ring at stream position pos
 * and the iterator (to_iter: ring -> it).  0 or -EFAULT; the caller moves
 * head or tail only on success, so a fault loses nothing.
 */
static int ring_copy(struct pipe *p, size_t pos, struct iov_iter *it, size_t len, bool to_iter)
{
	size_t off = pos % PIPE_SIZE, first = len < PIPE_SIZE - off ? len : PIPE_SIZE - off;
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

/* Takes what is there, up to the whole vector: never waits for more once data came. */
static long pipe_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct pipe *p = f->priv;
	size_t n, len = iov_iter_count(to);
	int err;

	(void)pos;
	if (len == 0)
		return 0;
	spin_lock(&p->lock);
	while (p->head == p->tail && p->writers) {
		spin_unlock(&p->lock);
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(&p->rd_wait, pipe_readable(p));
		if (err)
			return err;
		spin_lock(&p->lock);
	}
	n = p->head - p->tail < len ? p->head - p->tail : len;
	err = ring_copy(p, p->tail, to, n, true);
	if (!err && n) {
		advance(&p->tail, n);
		wake_up(&p->wr_wait);
	}
	spin_unlock(&p->lock);
	return err ? err : (long)n;
}

/*
 * Under the lock: puts as much of the iterator's len bytes as fits, if at
 * least need bytes fit.  Bytes put, or -EFAULT.
 */
static long pipe_put(struct pipe *p, struct iov_iter *from, size_t len, size_t need)
{
	size_t room = PIPE_SIZE - (p->head - p->tail), n = len < room ? len : room;

	if (room < need)
		return 0;
	if (ring_copy(p, p->head, from, n, false))
		return -EFAULT;
	advance(&p->head, n);
	wake_up(&p->rd_wait);
	return n;
}

/*
 * Writes of up to PIPE_BUF bytes (a whole writev vector counts as one)
 * go in whole (need = len); longer ones as room allows.
 */
static long pipe_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	struct pipe *p = f->priv;
	size_t done = 0, len = iov_iter_count(from), need = len <= PIPE_BUF ? len : 1;
	long n = 0;

	(void)pos;
	spin_lock(&p->lock);
	while (done < len) {
		if (!p->readers) {
			n = -EPIPE;
			break;
		}
		n = pipe_put(p, from, len - done, need);
		if (n < 0)
			break;
		done += n;
		if (n || done == len)
			continue;
		spin_unlock(&p->lock);
		if (f->flags & O_NONBLOCK)
			return done ? (long)done : -EAGAIN;
		n = wait_event_interruptible(&p->wr_wait, pipe_writable(p, need));
		if (n)
			return done ? (long)done : n;
		spin_lock(&p->lock);
	}
	spin_unlock(&p->lock);
	if (n == -EPIPE)
		signal_send(current(), SIGPIPE);
	return done ? (long)done : n;
}

static unsigned pipe_poll(struct file *f, struct poll_table *pt)
{
	struct pipe *p = f->priv;
	bool rd = is_read_end(f);
	unsigned mask = 0;

	poll_wait(f, rd ? &p->rd_wait : &p->wr_wait, pt); /* p outlives both ends' files */
	spin_lock(&p->lock);
	if (rd && p->head != p->tail)
		mask |= POLLIN | POLLRDNORM;
	if (rd && !p->writers)
		mask |= POLLHUP;
	if (!rd && PIPE_SIZE - (p->head - p->tail) >= PIPE_BUF)
		mask |= POLLOUT | POLLWRNORM;
	if (!rd && !p->readers)
		mask |= POLLERR;
	spin_unlock(&p->lock);
	return mask;
}

/* FIONREAD: bytes waiting in the pipe. */
static long pipe_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct pipe *p = f->priv;
	int avail;

	if (cmd != FIONREAD)
		return -ENOTTY;
	spin_lock(&p->lock);
	avail = (int)(p->head - p->tail);
	spin_unlock(&p->lock);
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
	kfree(p->buf);
	kfree(p);
}

/* An end closes: the other side's sleepers see EOF or EPIPE. */
static void pipe_release(struct file *f)
{
	struct pipe *p = f->priv;
	bool last;

	spin_lock(&p->lock);
	if (is_read_end(f))
		__atomic_sub_fetch(&p->readers, 1, __ATOMIC_RELAXED);
	else
		__atomic_sub_fetch(&p->writers, 1, __ATOMIC_RELAXED);
	last = !p->readers && !p->writers;
	wake_up(is_read_end(f) ? &p->wr_wait : &p->rd_wait);
	spin_unlock(&p->lock);
	if (last)
		pipe_free(p);
}

static const struct file_ops pipe_ops = {
    .read_iter = pipe_read,
    .write_iter = pipe_write,
    .poll = pipe_poll,
    .ioctl = pipe_ioctl,
    .stat = pipe_stat,
    .release = pipe_release,
};

bool file_is_pipe(const struct file *f)
{
	return f->ops == &pipe_ops;
}

int pipe_create(unsigned int oflags, struct file **rd, struct file **wr)
{
	struct pipe *p = kzalloc(sizeof(*p));
	unsigned int nonblock = oflags & O_NONBLOCK;

	if (!p)
		return -ENOMEM;
	spin_init(&p->lock, "pipe");
	wait_queue_init(&p->rd_wait, "pipe_rd");
	wait_queue_init(&p->wr_wait, "pipe_wr");
	p->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	p->buf = kmalloc(PIPE_SIZE);
	*rd = p->buf ? file_alloc(&pipe_ops, O_RDONLY | nonblock, p) : NULL;
	*wr = p->buf ? file_alloc(&pipe_ops, O_WRONLY | nonblock, p) : NULL;
	p->readers = *rd != NULL;
	p->writers = *wr != NULL;
	if (*rd && *wr)
		return 0;
	if (*rd || *wr)
		file_put(*rd ? *rd : *wr); /* its release frees the pipe */
	else
		pipe_free(p);
	return -ENOMEM;
}
