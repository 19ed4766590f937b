/*
 * Pipes (see pipe.h): one struct pipe (pipe_ring.h) shared by its end
 * files (a read end and a write end from pipe(), any number from a FIFO's
 * opens, fifo.c).  Here: a pipe's life (allocation, references, its ends'
 * bookkeeping and release, pipe(2)'s two ends, FIFO opens) and the ends'
 * file ops; the bytes move in pipe_ring.c.
 */
#include "fs/pipe/pipe_ring.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

static uint64_t next_ino = 1; /* atomic */

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
    .nowait = true,
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

/* Until *counter moves from seen: 0, or the wait's error (a signal). */
static int wait_counter(struct wait_queue *wq, unsigned int *counter, unsigned int seen)
{
	return wait_event_interruptible(wq, load_u(counter) != seen);
}

/*
 * Under the lock, a new end of these open flags counted: the counter whose
 * move means the other side came (w_counter for a reader, r_counter for a
 * writer) if the open must wait for it, else NULL.  Only a FIFO's opens
 * wait for a partner; an anonymous pipe reopened through /proc/<pid>/fd
 * never does (Linux: is_pipe in fifo_open), so `cat /dev/fd/63` of a pipe
 * whose writer has gone reads EOF.
 */
static unsigned int *partner_counter_locked(struct pipe *p, unsigned int flags)
{
	unsigned int acc = flags & O_ACCMODE;
	bool wr = acc == O_WRONLY;

	if (!p->fifo || acc == O_RDWR || (flags & O_NONBLOCK) || (wr ? p->readers : p->writers))
		return NULL;
	return wr ? &p->r_counter : &p->w_counter;
}

int pipe_open(struct pipe *p, unsigned int flags, struct file **out)
{
	bool wr = (flags & O_ACCMODE) == O_WRONLY;
	unsigned int *counter, seen = 0;
	struct file *f = NULL;
	int err = 0;

	spin_lock(&p->lock);
	if (p->fifo && wr && (flags & O_NONBLOCK) && !p->readers) {
		spin_unlock(&p->lock);
		return -ENXIO;
	}
	add_end_locked(p, flags);
	if ((counter = partner_counter_locked(p, flags)))
		seen = *counter;
	spin_unlock(&p->lock);
	if (counter)
		err = wait_counter(wr ? &p->wr_wait : &p->rd_wait, counter, seen);
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
