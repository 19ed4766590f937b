/*
 * io_uring inside the kernel: a ring (the file's state) and a request
 * (one SQE on its way to its CQE).  io_uring.c has the rings and setup,
 * io_uring_enter.c the submission and the wait; io_uring_req.c how a
 * request lives, is issued and waits, io_uring_req_prep.c its checks,
 * io_uring_complete.c its end and its chain's; io_uring_op.c the
 * opcodes' table and their runs; io_uring_prep.c the preparation of the
 * opcodes that are a system call (io_uring_ops.h: the ops' preparations
 * and runs); io_uring_register.c the registered buffers, files and
 * eventfd; io_uring_personality.c the registered
 * credentials and the submitter's; io_uring_cancel.c the cancels;
 * io_uring_msg.c MSG_RING; io_uring_ringfd.c a task's registered rings;
 * io_uring_rsrc.h what a ring has registered.  docs/async.md.
 */
#ifndef ASYNC_IO_URING_INT_H
#define ASYNC_IO_URING_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "async/async.h"
#include "async/io_uring.h"
#include "fs/event/poll.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/layout.h"
#include "sched/ktimer.h"
#include "sched/task_sched.h"
#include "sched/mutex.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/io_uring.h>

struct cred;
struct file;
struct inode;
struct files_table;
struct fdmap;

/* Registered buffers and direct descriptors per ring, as Linux's limits. */
#define IORING_MAX_REG_BUFFERS (1U << 14)
#define IORING_MAX_FIXED_FILES (1U << 20)

/* A ring's registered files; all zero until REGISTER_FILES. */
struct io_ftable {
	struct fdmap *map; /* slot i is direct descriptor i; holds a reference on each file */
	uint64_t *tags;	   /* by slot: FILES2/UPDATE2's, a CQE when its file goes */
	uint32_t alloc_off, alloc_end; /* IORING_FILE_INDEX_ALLOC's range */
};

struct io_buf {
	uint64_t addr, len; /* a user range, checked against by the _FIXED ops */
};

/*
 * Lifetime: refs counts the ring's file (one, dropped by its release) and
 * each request not yet freed (one each); the last put frees the ring, its
 * pages and what is registered.  Ring memory is two unnamed regular
 * inodes whose pages the ring pins (one frame reference each) and reaches
 * through the kernel's direct map: user space maps the same pages, and
 * unmapping or mprotecting its view never changes the kernel's.
 */
struct io_ring {
	int refs; /* atomic */
	uint32_t flags, sq_entries, cq_entries;
	struct inode *rings_ip, *sqes_ip; /* referenced until the ring is freed */
	uint64_t *rings_pa, *sqes_pa;	  /* the pinned frames, by page */
	void *words;			  /* the rings region's first page, mapped */
	uint32_t rings_npages, sqes_npages;

	/* Serializes submitters (the SQ head, sq_taken) and io_uring_register
	 * (the tables below change only under it).  Outermost: may sleep. */
	struct mutex submit_lock;
	uint32_t sq_head; /* the kernel's SQ head (submit_lock) */

	/* Protects cq_tail and the CQ ring, overflow, inflight, ncompleted,
	 * timeouts and dead.  Taken before an engine's lock (a cancel); no
	 * sleep or user copy under it.  No interrupt handler takes it (the
	 * LINK_TIMEOUT's timer stores its flags without it), so it leaves
	 * interrupts on: spin_lock_task. */
	struct spinlock lock;
	uint32_t cq_tail;	   /* the kernel's CQ tail */
	struct list_head overflow; /* struct io_overflow: NODROP's queue */
	uint32_t noverflow;
	struct list_head inflight; /* issued requests, by link */
	uint64_t ncompleted;	   /* CQEs posted: the timeouts' count */
	/* TIMEOUTs gone off (by time or count; atomic, each before its CQE):
	 * a change ends io_uring_enter's wait whatever its count, as Linux's
	 * cq_timeouts. */
	uint32_t nfired;
	struct list_head timeouts; /* TIMEOUT requests with a count, by tlink */
	bool dead;		   /* its file was released: cancel what comes */
	uint32_t cancel_seq;	   /* ALL and ANY cancels so far: each matches a request once */
	struct wait_queue cq_wait; /* io_uring_enter's waiters and pollers */

	/* IOSQE_IO_DRAIN (io_uring_link.c).  Under lock: the chains waiting
	 * for their turn, in submission order (by dlink), the requests in
	 * them, and the requests of released drained chains not yet freed.
	 * nlive (atomic) counts every request from allocation to free. */
	struct list_head deferred;
	uint32_t ndeferred, ndrain_live, nlive;
	bool drain_used;	    /* a DRAIN was submitted: chains queue (lock) */
	bool drain_disabled;	    /* CQE_SKIP_SUCCESS seen: DRAIN fails (submit_lock) */
	struct wait_queue drain_wq; /* deferred chains' workers wait for their turn */

	/* Registered state (submit_lock to change; the op path reads it under
	 * submit_lock too, as submission holds it). */
	struct file *eventfd; /* referenced; signalled at each CQE (lock to read) */
	bool eventfd_async;   /* only for CQEs an async worker posts (lock) */
	struct io_buf *bufs;
	uint32_t nbufs;

	/* Provided buffers (io_uring_kbuf.c): struct io_bgroup by link,
	 * each with its buffers, and the records of consumed buffers kept
	 * for the next PROVIDE (pbuf_spare); pbuf_lock, innermost, no sleep,
	 * protects them and the counts (taken by tasks only, no interrupt
	 * handler: spin_lock_task).  Freed with the ring. */
	struct spinlock pbuf_lock;
	struct list_head bgroups, pbuf_spare;
	struct list_head pbuf_regions; /* struct io_kregion: IOU_PBUF_RING_MMAP's memory */
	uint32_t nrecords, nbgroups;

	/* Direct descriptors (io_uring_files.c).  files_lock protects the
	 * table: taken by the register ops (under submit_lock, which keeps
	 * the table there for them) and by the requests that look up,
	 * install and close slots, on any task; innermost, no sleep; no
	 * interrupt handler takes it (spin_lock_task). */
	struct spinlock files_lock;
	struct io_ftable files;

	/* Personalities (io_uring_personality.c), under submit_lock: by id
	 * (slot 0 unused), each referenced by the ring from its register
	 * until its unregister or the ring's free; npers slots. */
	const struct cred **pers;
	uint32_t npers, pers_next;

	/* A submission's CQEs (io_uring_cq.c, "a submission's CQEs"): while
	 * batch_task submits or retries (submit_lock held), the CQEs it
	 * posts wait in batch, on its stack; no other task's ever do. */
	struct task *batch_task; /* atomic: read by every poster */
	struct io_cq_batch *batch;

	/* Freed requests kept for the next submissions (io_req_cache_get):
	 * any context pushes onto req_free (lock-free, by next); the
	 * submitter (submit_lock) takes the whole list into req_cache.  At
	 * most the most requests the ring ever had live; freed with it. */
	struct io_req *req_free, *req_cache;

	/* IORING_SETUP_SQPOLL's thread (io_uring_sqpoll.c), NULL for a ring
	 * without; set at setup, its own or one it shares (ATTACH_WQ),
	 * referenced until the ring's free.  sq_link: on sq's list of rings
	 * while the thread serves it (sq_served; the thread's reference on
	 * the ring); sq_detach: its file released, the thread lets it go
	 * (both under the SQ threads' lock).  sq_creds: its creator's at
	 * setup, which its SQEs are submitted with (Linux's sq_creds),
	 * referenced until its free; sq_idle_ns: its sq_thread_idle. */
	struct io_sq *sq;
	struct list_head sq_link;
	bool sq_served, sq_detach;
	const struct cred *sq_creds;
	uint64_t sq_idle_ns;
};

struct io_req;
struct io_sq;

/* One wait-queue hook of an armed request (io_uring_poll.c). */
struct io_poll_hook {
	struct wait_entry we;  /* func = the wake-up, no task */
	struct wait_queue *wq; /* the polled file's: lives as long as it (poll.h) */
	/* Lifetime: the request is freed only after io_poll_disarm took
	 * this hook off under wq's lock, so a wake-up running on another
	 * CPU (which holds that lock) has finished with req before; the
	 * wake-up only moves req to its engine's ready list (the engine
	 * outlives every parked request: the owner's exit unparks them
	 * first).  A multishot poll is unhooked and hooked again at each
	 * retry, in its owner; a multishot ACCEPT or RECV keeps its hooks
	 * across retries (marked arming while it takes: a wake-up then is
	 * not lost) and is unhooked at its end, before its free. */
	struct io_req *req;
};

/* An armed request's poll of its file: a pollable file's queues (two at
 * most: a stream socket's own and its peer's, a read-write pipe's),
 * hooked while armed (its engine part parked, async.h). */
struct io_poll {
	struct poll_table pt;
	struct io_poll_hook hooks[2];
	int nhooks;
	bool overflow;	   /* the file offered a third queue: not armed */
	bool exclusive;	   /* a POLL_ADD's EPOLLEXCLUSIVE: its hooks wake one of several */
	uint32_t events;   /* what completes the wait (POLLERR, POLLHUP too) */
	struct file *file; /* polled; referenced from the first arming to the request's free */
};

/*
 * One SQE's request.  A request alone (no link, no drain, not IOSQE_ASYNC,
 * an op that may finish without waiting: io_submit_alone) is prepared on
 * io_uring_enter's stack and, if it finishes there, never leaves it: no
 * reference on the ring, not counted live or in flight, its CQE in the
 * submission's batch.  Only one that must wait (and every other) is a
 * request of the ring's cache (or kmalloc'd) until it completes, with its
 * references.  Three parts: what every request starts with (reset for a
 * stack request too), what a request of the ring's adds (reset by
 * req_alloc, and by req_persist when a stack request must wait), and
 * sqe on, which belongs to the submitter's copy and to the ops that use
 * them, which set them before they are read (their prep, io_poll_arm): a
 * NOP or a SEND never pays for a TIMEOUT's timer or a poll's hooks.
 */
struct io_req {
	/* Every request's. */
	struct io_ring *ring; /* referenced until the request is freed, if of the ring's */
	struct io_req *next;  /* IO_LINK's next request, owned by this one */
	/* LINK_TIMEOUT: prev is the request it times (it owns this one and
	 * outlives the timer: its completion disarms it, synchronously). */
	struct io_req *prev;
	/* Its direct descriptor's file, referenced from the request's issue
	 * until it is freed (a slot changed meanwhile does not affect it). */
	struct file *file;
	/* SQE personality's creds, which its op runs with: referenced from
	 * its preparation until it is freed (an unregister meanwhile does
	 * not affect it); NULL for the process's own. */
	const struct cred *creds;
	/* What its preparation copied of the user memory its SQE points at
	 * (IORING_FEAT_SUBMIT_STABLE: the user may reuse it once
	 * io_uring_enter returned): READV's iovecs, SENDMSG's and RECVMSG's
	 * header (struct umsg), OPENAT's and STATX's path (struct upath),
	 * CONNECT's address.  Owned by the request, which its op runs on;
	 * freed with it by kdata_free (io_req_keep); NULL for none. */
	void *kdata;
	int nr;		      /* the system call an op runs (its prep's) */
	int err;	      /* its preparation failed: the CQE's res */
	uint32_t fixed_index; /* IOSQE_FIXED_FILE's descriptor (sqe.fd is FD_LENT then) */
	/* What makes its issue more than its op's call, read as one word
	 * (issue_extra: zero for most requests) by the issue's common path. */
	union {
		struct {
			uint32_t file_slot; /* OPENAT, ACCEPT, SOCKET: the file_index to make */
			bool fixed;	    /* its fd is a direct descriptor (IOSQE_FIXED_FILE) */
			bool multishot;	    /* POLL_ADD, ACCEPT, RECV multishot: CQEs with F_MORE */
			bool iopoll_rw;	    /* an IOPOLL ring's READ or WRITE: EOPNOTSUPP */
		};
		uint64_t issue_extra;
	};
	uint32_t cflags; /* its next CQE's flags: a provided buffer it filled */
	bool on_stack;	 /* io_submit_alone's: moved to the ring's if it waits */
	bool drained;	 /* its last receive on its file left the socket empty (kmsg) */
	bool last;	 /* a multishot RECVMSG's receive got the end: its CQE ends it */
	bool short_fail; /* its MSG_WAITALL receive ended short: a failure (req_failed) */
	/* RECV, RECVMSG with MSG_WAITALL: what its earlier attempts received
	 * (it waits for the rest, as Linux's done_io). */
	uint32_t done;

	/* A request of the ring's: what waiting, cancels and drains use. */
	struct async_req ar;	/* the engine's part, when punted */
	struct list_head link;	/* on ring->inflight while it waits (ring->lock) */
	struct list_head tlink; /* on ring->timeouts (TIMEOUT with a count) */
	/* fired: TIMEOUT met its count, LINK_TIMEOUT went off; removed:
	 * cancelled by a remove or cancel op, or its LINK_TIMEOUT.  Set under
	 * ring->lock, or by the LINK_TIMEOUT's timer with an atomic store
	 * (it runs from the tick: no ring->lock); only ever set. */
	bool fired;
	bool removed;
	bool rearm;		/* POLL_ADD: its events updated, it waits anew (ring->lock) */
	/* LINK_TIMEOUT: the timer is armed while prev waits; fired once it
	 * went off; started once armed (ring->lock: LINK_TIMEOUT_UPDATE
	 * moves only a started timer). */
	bool started;
	/* IOSQE_IO_DRAIN, a chain's head: on ring->deferred while deferred
	 * (ring->lock); nchain requests; drain_head: the chain is drained;
	 * punted: it waits for its turn on a worker (io_drain_wait).  Any
	 * request: drain, counted in ring->ndrain_live until freed. */
	struct list_head dlink;
	uint32_t nchain;
	bool deferred, drain_head, punted, drain;
	bool handed; /* IOSQE_ASYNC: its worker handed it to its submitter to arm, once */
	uint32_t cancel_seq; /* the last ALL or ANY cancel that matched it (ring->lock) */

	/* From here on not reset. */
	struct io_uring_sqe sqe;   /* a stable copy (IORING_FEAT_SUBMIT_STABLE) */
	uint64_t args[6];	   /* the system call's (req->nr's), by its prep */
	void (*kdata_free)(void *kdata); /* set with kdata, read only if it is */
	uint64_t deadline, target; /* TIMEOUT: clock deadline, CQE count */
	/* TIMEOUT: the timespec's ns, MULTISHOT's interval; firings left
	 * (0: for ever); TIMEOUT_REMOVE's update: its timespec's ns. */
	uint64_t period;
	uint32_t repeats;
	struct ktimer timer; /* LINK_TIMEOUT's, from its prep */
	/* Armed on its file instead of punted: req_init_ring clears its
	 * file and nhooks, io_poll_arm sets the rest. */
	struct io_poll poll;
};

/* The CQEs a submission posts, written to the CQ ring together. */
#define IO_CQ_BATCH 16
struct io_cq_batch {
	uint32_t n, ncounted; /* CQEs, those that count for the TIMEOUTs */
	struct io_uring_cqe cqes[IO_CQ_BATCH];
};

/* Where the rings region keeps each field (offsets reported in the
 * params): heads and tails on cache lines of their own, as Linux. */
#define R_SQ_HEAD     0
#define R_SQ_TAIL     64
#define R_CQ_HEAD     128
#define R_CQ_TAIL     192
#define R_SQ_MASK     256
#define R_CQ_MASK     260
#define R_SQ_ENTRIES  264
#define R_CQ_ENTRIES  268
#define R_SQ_DROPPED  272
#define R_SQ_FLAGS    276
#define R_CQ_FLAGS    280
#define R_CQ_OVERFLOW 284
#define R_CQES	      320 /* a multiple of 16: no CQE straddles a page */

/* The kernel's view of byte off of a region of pinned frames. */
static inline void *region_at(const uint64_t *pa, uint64_t off)
{
	return (char *)P2V(pa[off / PAGE_SIZE]) + off % PAGE_SIZE;
}

/* A word of the rings region's first page (its heads, tails, flags). */
static inline uint32_t *ring_word(struct io_ring *ring, uint32_t off)
{
	return (uint32_t *)((char *)ring->words + off);
}

static inline uint32_t ring_load(struct io_ring *ring, uint32_t off)
{
	return __atomic_load_n(ring_word(ring, off), __ATOMIC_ACQUIRE);
}

static inline void ring_store(struct io_ring *ring, uint32_t off, uint32_t v)
{
	__atomic_store_n(ring_word(ring, off), v, __ATOMIC_RELEASE);
}

static inline uint32_t sq_array_off(uint32_t cq_entries)
{
	return (R_CQES + cq_entries * sizeof(struct io_uring_cqe) + 63) & ~63U;
}

/* io_uring.c */
extern const struct file_ops io_uring_fops;
void io_ring_get(struct io_ring *ring);
/* npages pinned pages of an internal inode, counted with the rings'
 * (ENOMEM past the bound), for a buffer ring in the kernel's memory. */
int io_kregion_alloc(struct inode **ipp, uint64_t **pap, uint32_t npages);
void io_kregion_free(struct inode *ip, uint64_t *pa, uint32_t npages);
void io_ring_put(struct io_ring *ring);
/* Charges bytes of io_uring's kernel memory (requests, overflowed
 * CQEs) to its system-wide bound: false past it; uncharged when freed. */
bool io_mem_charge(size_t bytes);
void io_mem_uncharge(size_t bytes);
/* A request's memory (uninitialized) for a submitter (submit_lock held),
 * from the ring's cache or the heap (charged): NULL past the bound or on
 * ENOMEM. */
struct io_req *io_req_cache_get(struct io_ring *ring);
/* Gives a freed request's memory back to its ring's cache (any context). */
void io_req_cache_put(struct io_req *req);
/* io_uring_ringfd.c: the task's registered rings, Linux's table of 16. */
#define IO_RINGFD_MAX 16
/* REGISTER_RING_FDS, UNREGISTER_RING_FDS: how many, or -errno. */
int io_ringfd_register(struct io_uring_rsrc_update *uarg, uint32_t nr);
int io_ringfd_unregister(const struct io_uring_rsrc_update *uarg, uint32_t nr);
/* The current task's registered ring at index (IORING_ENTER_REGISTERED_RING,
 * IORING_REGISTER_USE_REGISTERED_RING), not referenced: it stays while
 * the task is in the call (only the task changes its table).  NULL and
 * *err: EBADF for an empty index (a table not yet made too), EINVAL past
 * the table, Linux's answers to a task that has set up or used a ring. */
struct file *io_ringfd_get(unsigned int index, long *err);

/* Submits up to n SQEs of the SQ ring (takes submit_lock): how many
 * were consumed, or -EBUSY, -ENOMEM. */
int io_submit_sqes(struct io_ring *ring, uint32_t n);
/*
 * The current task's woken requests retried (armed polls, docs/async.md),
 * each run of one ring's as a submission of that ring: its submit_lock
 * held and its CQEs posted together.  A retry takes its ring's lock at
 * its start (io_tw_lock), giving up the previous ring's: a task never
 * holds two rings' locks, so two tasks retrying each other's rings'
 * requests (a FILES_UPDATE linked to a poll takes its ring's) cannot
 * deadlock; Linux's io_handle_tw_list takes each request's ctx lock so.
 */
void io_run_ready(void);
/* At a retry's start: in io_run_ready, ring's submission held; elsewhere
 * (on the way back to user mode, the fallback) nothing. */
void io_tw_lock(struct io_ring *ring);
/* io_run_ready's state, on its stack: the ring whose submit_lock it
 * holds (referenced until it lets go of it), NULL for none. */
struct io_tw {
	struct io_ring *ring;
	struct io_cq_batch batch;
};

/* io_uring_sqpoll.c: IORING_SETUP_SQPOLL's thread.  io_sq_setup_check:
 * the setup's SQPOLL, SQ_AFF and ATTACH_WQ checks, Linux's errno;
 * io_sq_start: the ring served by a thread, its own made and running or
 * (ATTACH_WQ) the one it attaches to (0, -ENOMEM; the ring's free frees
 * what was made: io_sq_free); io_sq_stop: the ring's file is released,
 * its thread stops submitting for it (waited for); io_sq_enter:
 * io_uring_enter's SQ part on an SQPOLL ring, its result. */
int io_sq_setup_check(const struct io_uring_params *p);
int io_sq_start(struct io_ring *ring, const struct io_uring_params *p);
void io_sq_stop(struct io_ring *ring);
void io_sq_free(struct io_ring *ring);
long io_sq_enter(struct io_ring *ring, uint32_t to_submit, uint32_t flags);

/* io_uring_cq.c: the CQ ring, its overflow queue and a submission's
 * batch of CQEs. */
/* io_post_cqe's case without room in a batch of the current task's:
 * the batch flushed if full, else the CQE posted now. */
void io_post_cqe_slow(struct io_ring *ring, uint64_t user_data, int32_t res, uint32_t flags,
		      bool counts);
/* io_post_cqe with the batch its tests found (NULL: none). */
static inline void io_post_cqe_to(struct io_ring *ring, struct io_cq_batch *b, uint64_t user_data,
				  int32_t res, uint32_t flags, bool counts)
{
	if (b && b->n < IO_CQ_BATCH) {
		b->cqes[b->n++] =
		    (struct io_uring_cqe){.user_data = user_data, .res = res, .flags = flags};
		b->ncounted += counts;
		return;
	}
	io_post_cqe_slow(ring, user_data, res, flags, counts);
}
/* Posts a CQE (NODROP: queued if the CQ ring is full): into the current
 * task's batch if it submits on ring (inline: every op's completion
 * comes here), else at once. */
static inline void io_post_cqe(struct io_ring *ring, uint64_t user_data, int32_t res,
			       uint32_t flags, bool counts)
{
	bool mine = __atomic_load_n(&ring->batch_task, __ATOMIC_RELAXED) == current() &&
		    !ring->drain_used;

	io_post_cqe_to(ring, mine ? ring->batch : NULL, user_data, res, flags, counts);
}
/* A multishot request's CQE with IORING_CQE_F_MORE: false, and none
 * posted, if the CQ ring is full (or its overflow queue is not empty):
 * the request then ends, as Linux's, its last CQE going to overflow. */
bool io_post_cqe_more(struct io_ring *ring, uint64_t user_data, int32_t res, uint32_t flags);
/* A CQE with no flags posted now, as io_post_cqe's (NODROP), for a ring
 * the caller may not submit on (MSG_RING's target): false if it was
 * dropped (past io_uring's memory bound). */
bool io_post_cqe_kept(struct io_ring *ring, uint64_t user_data, int32_t res);
/* The current task's CQEs of ring wait in b (on its stack, submit_lock
 * held) from io_cq_batch_begin until io_cq_batch_end. */
void io_cq_batch_begin(struct io_ring *ring, struct io_cq_batch *b);
void io_cq_batch_end(struct io_ring *ring);
/* The current task's batched CQEs of ring, if it submits, posted now:
 * before a request leaves its hands (a worker or a drain may complete
 * one after it, whose CQE must come later). */
void io_cq_flush(struct io_ring *ring);
/* CQEs ready for user space, overflow flushed first (under the lock:
 * io_cq_ready_flush; none to flush, none taken). */
uint32_t io_cq_ready_flush(struct io_ring *ring);
static inline uint32_t io_cq_ready(struct io_ring *ring)
{
	if (__atomic_load_n(&ring->noverflow, __ATOMIC_ACQUIRE))
		return io_cq_ready_flush(ring);
	return __atomic_load_n(&ring->cq_tail, __ATOMIC_ACQUIRE) - ring_load(ring, R_CQ_HEAD);
}
/* The overflow queue freed, with the ring. */
void io_cq_release(struct io_ring *ring);

/* io_uring_req.c */
/* The SQE read into sreq->sqe (submit_lock held, the ring's file held
 * for the call, no chain open) submitted whole on the submitter's stack
 * if it may start there (struct io_req): 0, or its preparation's -errno
 * (its CQE posted); 1 if it may not (io_req_for_sqe then). */
int io_submit_alone(struct io_ring *ring, struct io_req *sreq);
/* A request of the ring's for sqe (submit_lock held): NULL on ENOMEM. */
struct io_req *io_req_for_sqe(struct io_ring *ring, const struct io_uring_sqe *sqe);
void io_submit_chain(struct io_req *head);
/* A new chain from io_uring_enter (submit_lock held): issued, or held
 * behind an IOSQE_IO_DRAIN. */
void io_queue_chain(struct io_req *head);
/* Frees a completed request (its CQE posted). */
void io_req_free(struct io_req *req);

/* An issue's answer once a worker has the request or it is armed on its
 * file.  No result can be it (a READ of 1 byte returns 1, an error is
 * -4095 to -1). */
#define IO_PUNTED (-(1L << 40))
/* A run's result: the poll's events were updated, it waits anew
 * (req_done_async queues it again). */
#define IO_REARM (IO_PUNTED - 1)

/* The request's non-blocking attempt, here: its result, -EAGAIN if it
 * would wait. */
long io_req_attempt(struct io_req *req);
/* The same with call in place of the op (as its direct descriptor, its
 * file_index, want). */
long io_req_attempt_with(struct io_req *req, long (*call)(struct io_req *));
/* io_uring_req_prep.c: io_req_prep's rare cases (any SQE flag but the
 * link and async ones, an ioprio, a personality; an IOPOLL ring's
 * ops), 0 or the -errno for the CQE. */
int io_prep_rare(struct io_req *req);
int io_prep_iopoll(struct io_req *req);
/* io_uring_complete.c */
struct io_req *req_complete(struct io_req *req, long res);
/* Posts req's CQE, frees it, and issues the rest of its chain here. */
void io_req_finish(struct io_req *req, long res);
/* A chain with a request whose preparation failed: that one completes
 * with its error, every other with -ECANCELED (Linux's). */
void io_fail_chain(struct io_req *head);
/* Cancels every request of a released ring. */
void io_cancel_all(struct io_ring *ring);

/* io_uring_op.c: each opcode's way through a request's life. */
enum op_how {
	HOW_INLINE, /* never waits: always run in the submitter */
	HOW_NOWAIT, /* an fd op: inline if the file allows (file_kind) */
	HOW_PUNT,   /* may wait on something no flag stops: always a worker */
	HOW_TIMER,  /* waits for a time: armed on a timer (TIMEOUT) */
};

struct io_op {
	enum op_how how;
	bool uses_fd;			     /* sqe->fd is a file (IOSQE_FIXED_FILE applies) */
	bool short_fails;		     /* a short transfer breaks IO_LINK, as Linux's rw */
	int (*prep)(struct io_req *req);     /* sets nr and args, or -errno for the CQE */
	long (*run)(struct io_req *req);     /* NULL: the system call nr */
	long (*attempt)(struct io_req *req); /* HOW_NOWAIT without a file test */
	/* Its run calls into the request's file (a direct descriptor's)
	 * itself, not through an fd: no FD_LENT redirect. */
	bool own_file;
};

/* By opcode; prep NULL: not implemented. */
extern const struct io_op io_ops[IORING_OP_LAST];
/* The opcodes implemented, for REGISTER_PROBE. */
bool io_op_supported(unsigned int op);
/* Whether a remove or cancel op (or a LINK_TIMEOUT) took req. */
bool io_req_removed(struct io_req *req);

/* Checks an SQE and prepares its op at submission (its arguments copied
 * then: IORING_FEAT_SUBMIT_STABLE): 0 or the -errno its CQE carries.
 * Inline (every SQE's way); the rare cases are io_uring_req_prep.c's. */
static inline __attribute__((always_inline)) int io_req_prep(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	int err;

	if (s->opcode >= IORING_OP_LAST)
		return -EINVAL;
	/* One test for the common case: no flag but the link and async
	 * ones, no ioprio, no personality. */
	if (((s->flags & (uint8_t) ~(IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_ASYNC)) ||
	     (s->ioprio | s->personality)) &&
	    (err = io_prep_rare(req)))
		return err;
	if (!io_ops[s->opcode].prep)
		return -EOPNOTSUPP; /* Linux's for an op its probe lists unsupported */
	if ((req->ring->flags & IORING_SETUP_IOPOLL) && (err = io_prep_iopoll(req)))
		return err;
	return io_ops[s->opcode].prep(req);
}

/* Whether req failed with res (Linux's req_set_fail): an error, a short
 * READ/WRITE (not a READV/WRITEV), or a short receive with MSG_WAITALL;
 * a TIMEOUT's -ETIME with ETIME_SUCCESS is none.  A failure breaks an
 * IO_LINK (not a HARDLINK) and posts its CQE even with CQE_SKIP_SUCCESS.
 * Inline: a success of an op without short_fails is three tests. */
static inline __attribute__((always_inline)) bool req_failed(const struct io_req *req, long res)
{
	if (res < 0)
		return res != -ETIME || req->sqe.opcode != IORING_OP_TIMEOUT ||
		       !(req->sqe.timeout_flags & IORING_TIMEOUT_ETIME_SUCCESS);
	return req->short_fail ||
	       (io_ops[req->sqe.opcode].short_fails && res < (long)req->sqe.len &&
		req->sqe.opcode != IORING_OP_READV && req->sqe.opcode != IORING_OP_WRITEV);
}

/* req's CQE, unless CQE_SKIP_SUCCESS skips it and it did not fail (a
 * TIMEOUT's own counts for no TIMEOUT, as Linux's); into b, the
 * submitter's batch, if the caller knows it (NULL: io_post_cqe finds
 * it). */
static inline __attribute__((always_inline)) void req_post_to(struct io_req *req, long res,
							      bool failed, struct io_cq_batch *b)
{
	if ((req->sqe.flags & IOSQE_CQE_SKIP_SUCCESS) && !failed)
		return;
	if (b)
		io_post_cqe_to(req->ring, b, req->sqe.user_data, (int32_t)res, req->cflags,
			       req->sqe.opcode != IORING_OP_TIMEOUT);
	else
		io_post_cqe(req->ring, req->sqe.user_data, (int32_t)res, req->cflags,
			    req->sqe.opcode != IORING_OP_TIMEOUT);
}

static inline void req_post(struct io_req *req, long res, bool failed)
{
	req_post_to(req, res, failed, NULL);
}

/* io_uring_poll.c: a request that would wait on a pollable file (its
 * attempt said -EAGAIN) is armed on the file's wait queues, no worker;
 * its wake-up has the submitter retry it (docs/async.md).  IO_PUNTED
 * once armed, a result if the attempt was retried and completed at once,
 * -EAGAIN when it cannot be armed (punt it). */
long io_poll_arm(struct io_req *req);
/* Its parts, for the multishot requests (io_uring_multi.c), which stay
 * armed across their wake-ups.  What req waits for (0: not one to arm);
 * io_poll_setup: req ready to be hooked, retry its wake-up's; io_poll_watch: hooked
 * (async_arm_begin done), its file's mask in *mask: 0, -EAGAIN (no poll operation), -EBADF,
 * -ECANCELED; io_poll_disarm: its hooks off (no wake-up of it runs after). */
uint32_t io_poll_events(const struct io_req *req);
void io_poll_setup(struct io_req *req, void (*retry)(struct async_req *ar));
long io_poll_watch(struct io_req *req, uint32_t *mask);
void io_poll_disarm(struct async_req *ar);
/* From req's worker (its attempt would wait): to its submitter, which
 * arms it as a request of its own would be (0, or -ECANCELED). */
int io_poll_handoff(struct io_req *req);

/* io_uring_timeout.c: TIMEOUT and TIMEOUT_REMOVE. */
int io_prep_timeout(struct io_req *req);
long io_run_timeout(struct io_req *req);
/* A TIMEOUT about to wait, armed on its timer (no worker; from a worker
 * too, on the engine it serves): IO_PUNTED, or its result if it is
 * already over (its count met, removed, expired). */
long io_timeout_arm(struct io_req *req);
int io_prep_timeout_remove(struct io_req *req);
long io_run_timeout_remove(struct io_req *req);
/* io_uring_cancel.c, for them: the request of ring whose user_data is
 * key and whose op is op (-1: any), other than self, issued and not yet
 * cancelled (ring->lock held); and the cancel of the request keyed by
 * self's addr: 0, -EALREADY (it runs: interrupted), -ENOENT. */
struct io_req *io_find_locked(struct io_ring *ring, uint64_t key, int op, struct io_req *self);
long io_cancel_key(struct io_req *self, int op);
/* ASYNC_CANCEL (its flags: ALL, FD, ANY, FD_FIXED) and
 * IORING_REGISTER_SYNC_CANCEL (submit_lock held, dropped while it
 * waits for a running match to end). */
int io_prep_cancel(struct io_req *req);
long io_run_cancel(struct io_req *req);
int io_sync_cancel(struct io_ring *ring, const struct io_uring_sync_cancel_reg *ureg);

/* io_uring_link.c: LINK_TIMEOUT and IOSQE_IO_DRAIN. */
int io_prep_link_timeout(struct io_req *req);
/* req is about to wait (punted, or run on a worker after another): the
 * LINK_TIMEOUT after it, if any, starts. */
void io_ltimeout_arm(struct io_req *req);
/* TIMEOUT_REMOVE's LINK_TIMEOUT_UPDATE (req->period: its new time): 0,
 * -ENOENT, -EALREADY. */
long io_ltimeout_update(struct io_req *req);
/* req completes with res: the LINK_TIMEOUT after it, if any, is disarmed,
 * posts its CQE (-ETIME if it cut req short, else -ECANCELED or
 * -EALREADY) and leaves the chain; req's result, -ECANCELED if it cut it
 * short.  No lock held. */
long io_ltimeout_done(struct io_req *req, long res);
/* The new chain head (submit_lock held) waits behind a drain: true, and
 * the caller punts it (io_drain_wait holds it on its worker).  False:
 * issue it now. */
bool io_drain_defer(struct io_req *head);
/* On the worker: waits for a deferred chain's turn; 0, or -ECANCELED if
 * it was cancelled first (it leaves the queue). */
long io_drain_wait(struct io_req *req);
/* req completes or is freed: a deferred head leaves the queue; a freed
 * request may let deferred chains go.  Only a punted head was ever
 * queued: the test inline, every request's completion passes here. */
void io_drain_forget_punted(struct io_req *req);
static inline void io_drain_forget(struct io_req *req)
{
	if (req->punted)
		io_drain_forget_punted(req);
}
void io_drain_put(struct io_req *req);

/* io_uring_multi.c: a multishot request, armed on its file with no
 * worker (docs/async.md): the events there now posted (a CQE with F_MORE
 * each) and req armed, IO_PUNTED; or its last result (its end).
 * io_multi_handoff: one a worker reached (IOSQE_ASYNC, a link, a drain)
 * goes to its owner, which arms it: 0, or -ECANCELED. */
long io_multi_arm(struct io_req *req);
int io_multi_handoff(struct io_req *req);
/* RECV's and RECVMSG's runs (io_uring_op.c), which the multishot ones
 * repeat. */
long io_run_recv(struct io_req *req);
long io_run_recvmsg(struct io_req *req);

#endif
