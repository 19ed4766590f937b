/*
 * Inside fs/pipe only (pipe.h is the interface): struct pipe and the
 * helpers its files share.  pipe.c holds a pipe's life (allocation,
 * references, its ends' opening and closing, pipe(2)'s two ends) and its
 * file ops; pipe_ring.c the ring: read, write and the splice, tee and
 * vmsplice transfers; pipe_size.c F_SETPIPE_SZ and the limits on the
 * rings' pages; pipe_packet.c the packets of O_DIRECT.
 */
#ifndef FS_PIPE_RING_H
#define FS_PIPE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/fasync.h"
#include "fs/pipe/pipe.h"
#include "fs/pipe/pipe_packet.h"
#include "lib/spinlock.h"
#include "sched/mutex.h"
#include "sched/wait.h"

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

static inline unsigned int load_u(const unsigned int *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* Under the mutex: moves head or tail on by n (atomic for the unlocked readers). */
static inline void advance(size_t *v, size_t n)
{
	__atomic_store_n(v, *v + n, __ATOMIC_RELAXED);
}

/*
 * Bytes held, read without the lock: tail first, then head (acquire), so
 * the head read is at least as new as the tail read and the result is
 * never "negative"; it may exceed what is held now (the reader moved on),
 * never fall short of what was held when tail was read.
 */
static inline size_t pipe_used(struct pipe *p)
{
	size_t tail = __atomic_load_n(&p->tail, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&p->head, __ATOMIC_ACQUIRE) - tail;
}

/* Wait conditions (no lock held): re-checked under it. */
static inline bool pipe_readable(struct pipe *p)
{
	return pipe_used(p) || !load_u(&p->writers);
}

static inline size_t pipe_size(struct pipe *p)
{
	return __atomic_load_n(&p->size, __ATOMIC_RELAXED);
}

/* Signed on purpose: a used count above the size (see pipe_used) is no
 * room.  Packets fill the ring's slots as Linux's do (pipe_packet.h). */
static inline bool pipe_has_room(struct pipe *p, size_t need)
{
	return (long)(pipe_size(p) - pipe_used(p)) >= (long)need && pkt_ring_room(&p->pkts);
}

static inline bool pipe_writable(struct pipe *p, size_t need)
{
	return pipe_has_room(p, need) || !load_u(&p->readers);
}

/* The ends' read_iter and write_iter (pipe_ring.c). */
struct iov_iter;
long pipe_read(struct file *f, struct iov_iter *to, uint64_t *pos);
long pipe_write(struct file *f, struct iov_iter *from, uint64_t *pos);

/* The rings' pages (pipe_size.c).  pipe_account: a pipe's charge goes
 * from `from` pages to `to`; the user's pages after.  pipe_charge_new:
 * the pages a new pipe's ring gets, charged, or 0. */
long pipe_account(size_t from, size_t to);
size_t pipe_charge_new(void);

#endif
