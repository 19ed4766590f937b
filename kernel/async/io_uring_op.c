/*
 * io_uring's opcodes and how a request travels: prepared from its SQE
 * copy, issued inline when it cannot block (or when a non-blocking
 * attempt succeeds: file_nonblock), punted to the engine's workers
 * otherwise, completed with a CQE; linked requests (IO_LINK, IO_HARDLINK)
 * follow one another in the context that completed the previous one.
 * Most opcodes are an ordinary system call run with the SQE's arguments
 * (the "syscall" ops); the others have a run function of their own.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/ktimer.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>

#define SQE_FLAGS_KNOWN                                                                            \
	(IOSQE_FIXED_FILE | IOSQE_IO_DRAIN | IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_ASYNC |     \
	 IOSQE_CQE_SKIP_SUCCESS)

/* A run's result: the poll's events were updated, it waits anew
 * (req_done_async queues it again). */
#define IO_REARM (IO_PUNTED - 1)

enum op_how {
	HOW_INLINE, /* never waits: always run in the submitter */
	HOW_NOWAIT, /* an fd op: inline if the file allows (file_kind) */
	HOW_PUNT,   /* may wait on something no flag stops: always a worker */
};

struct io_op {
	enum op_how how;
	bool uses_fd;			     /* sqe->fd is a file (IOSQE_FIXED_FILE applies) */
	bool short_fails;		     /* a short transfer breaks IO_LINK, as Linux's rw */
	int (*prep)(struct io_req *req);     /* sets nr and args, or -errno for the CQE */
	long (*run)(struct io_req *req);     /* NULL: the system call nr */
	long (*attempt)(struct io_req *req); /* HOW_NOWAIT without a file test */
};

static const struct io_op *op_of(const struct io_req *req);
static void req_wait_start(struct io_req *req);

static struct io_req *req_of(struct async_req *ar)
{
	return container_of(ar, struct io_req, ar);
}

/* ---- ops with a run of their own ---- */

static long run_nop(struct io_req *req)
{
	(void)req;
	return 0;
}

/* A LINK_TIMEOUT is never issued: the request it times completes it
 * (io_ltimeout_done); a chain that breaks before cancels it. */
static long run_orphan(struct io_req *req)
{
	(void)req;
	return -ECANCELED;
}

/* CLOSE: of a direct descriptor (file_index), or the fd's system call. */
static long run_close(struct io_req *req)
{
	if (req->sqe.file_index)
		return io_fixed_remove(req->ring, req->sqe.file_index - 1);
	return syscall_call((uint64_t)req->nr, req->args);
}

/* POLL_ADD: one shot, the first of the events (or an error, a hang-up)
 * that becomes true, the mask its result; or IORING_POLL_ADD_MULTI
 * (io_uring_multi.c), which skipped CQEs would make meaningless. */
static int prep_poll(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->addr || s->off || s->buf_index)
		return -EINVAL;
	if (s->len & ~IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((s->len & IORING_POLL_ADD_MULTI) && (s->flags & IOSQE_CQE_SKIP_SUCCESS))
		return -EINVAL;
	req->multishot = s->len & IORING_POLL_ADD_MULTI;
	return 0;
}

static long poll_once(struct io_req *req, uint64_t deadline)
{
	struct pollfd p = {.fd = req->sqe.fd, .events = (short)req->sqe.poll32_events};
	long n = poll_kernel(&p, 1, POLLERR | POLLHUP, deadline);

	return n > 0 ? p.revents : n;
}

/* Its interrupted wait then ends in -ECANCELED, as a removed poll's or
 * timeout's on Linux. */
bool io_req_removed(struct io_req *req)
{
	bool removed;

	spin_lock(&req->ring->lock);
	removed = req->removed;
	spin_unlock(&req->ring->lock);
	return removed;
}

/* A poll whose wait a POLL_REMOVE update interrupted (its events
 * changed) is not done: IO_REARM. */
static long poll_rearmed(struct io_req *req, long res)
{
	bool rearm;

	if (res != -ERESTARTNOHAND && res != -EINTR)
		return res;
	spin_lock(&req->ring->lock);
	rearm = req->rearm && !req->removed;
	req->rearm = false;
	spin_unlock(&req->ring->lock);
	return rearm ? IO_REARM : res;
}

static long run_poll(struct io_req *req)
{
	long res = poll_once(req, POLL_FOREVER);

	return res == -ERESTARTNOHAND && io_req_removed(req) ? -ECANCELED : poll_rearmed(req, res);
}

/* Inline: ready now, or to a worker. */
static long attempt_poll(struct io_req *req)
{
	long n = poll_once(req, 0);

	return n > 0 ? n : -EAGAIN;
}

/* The request of ring whose user_data is key and whose op is op (-1:
 * any), other than self, issued and not yet cancelled (lock held). */
struct io_req *io_find_locked(struct io_ring *ring, uint64_t key, int op, struct io_req *self)
{
	struct io_req *r;

	list_for_each_entry(r, &ring->inflight, link) if (r != self && r->sqe.user_data == key &&
							  (op < 0 || r->sqe.opcode == op) &&
							  !r->removed) return r;
	return NULL;
}

static struct io_req *req_complete(struct io_req *req, long res);
static void req_done_async(struct async_req *ar, long res);

/* Cancels the request keyed by addr: 0 (it completes with -ECANCELED),
 * -EALREADY (it runs: interrupted), -ENOENT. */
long io_cancel_key(struct io_req *self, int op)
{
	struct io_ring *ring = self->ring;
	struct io_req *t;
	long ret = -ENOENT;

	bool ends = op >= 0;

	spin_lock(&ring->lock);
	if ((t = io_find_locked(ring, self->sqe.addr, op, self)) && t->ar.ctx) {
		t->removed = true;
		ends |= t->multishot;
		ret = async_cancel(&t->ar);
	} else if (t) {
		ret = -EALREADY; /* running inline in another submitter */
	}
	spin_unlock(&ring->lock);
	if (ret == 0)
		io_submit_chain(req_complete(t, -ECANCELED));
	/* A running poll, timeout or multishot request is as good as
	 * removed: it ends -ECANCELED once its wait is interrupted. */
	return ret == -EALREADY && ends ? 0 : ret;
}

static int prep_cancel(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->off || s->len || s->buf_index || s->cancel_flags || s->file_index)
		return -EINVAL; /* IORING_ASYNC_CANCEL_ALL/FD/ANY: docs/async.md */
	return 0;
}

static long run_cancel(struct io_req *req)
{
	return io_cancel_key(req, -1);
}

/* POLL_REMOVE, or with IORING_POLL_UPDATE_USER_DATA and
 * IORING_POLL_UPDATE_EVENTS in len an update of the poll's user_data to
 * off and its events to poll32_events (Linux's checks; a multishot poll
 * stays one, whatever ADD_MULTI says). */
static int prep_poll_remove(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint32_t flags = s->len;

	if (s->buf_index || s->file_index)
		return -EINVAL;
	if (flags &
	    ~(IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA | IORING_POLL_ADD_MULTI))
		return -EINVAL;
	if (flags == IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((!(flags & IORING_POLL_UPDATE_USER_DATA) && s->off) ||
	    (!(flags & IORING_POLL_UPDATE_EVENTS) && s->poll32_events))
		return -EINVAL;
	return 0;
}

/* An update: the next CQE carries the new user_data; new events
 * interrupt the poll's wait, which starts again with them (IO_REARM), or
 * are read when it starts. */
static long run_poll_remove(struct io_req *req)
{
	uint32_t flags = req->sqe.len;
	struct io_ring *ring = req->ring;
	struct io_req *t;

	if (!(flags & (IORING_POLL_UPDATE_USER_DATA | IORING_POLL_UPDATE_EVENTS)))
		return io_cancel_key(req, IORING_OP_POLL_ADD);
	spin_lock(&ring->lock);
	if ((t = io_find_locked(ring, req->sqe.addr, IORING_OP_POLL_ADD, req))) {
		if (flags & IORING_POLL_UPDATE_USER_DATA)
			t->sqe.user_data = req->sqe.off;
		if (flags & IORING_POLL_UPDATE_EVENTS) {
			t->sqe.poll32_events = req->sqe.poll32_events & 0xffff;
			t->rearm = true;
			async_interrupt(&t->ar); /* under ring->lock: t stays */
		}
	}
	spin_unlock(&ring->lock);
	return t ? 0 : -ENOENT;
}

/* FILES_UPDATE: REGISTER's FILES_UPDATE as a request, len fds at addr
 * into the slots from off (32 bits, as Linux reads it), or with off
 * IORING_FILE_INDEX_ALLOC each into a free slot. */
static int prep_files_update(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->rw_flags || s->splice_fd_in || !s->len)
		return -EINVAL;
	return 0;
}

/* The table changes under submit_lock (io_uring_register's rule): held
 * by the submitter inline; a worker (a link's next) takes it. */
static long run_files_update(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	bool worker = async_in_worker();
	long res;

	if ((uint32_t)s->off == IORING_FILE_INDEX_ALLOC)
		return io_files_update_alloc(req->ring, (int32_t *)s->addr, s->len);
	if (worker)
		mutex_lock(&req->ring->submit_lock);
	res = io_files_update(req->ring, (uint32_t)s->off, (const int32_t *)s->addr, NULL, s->len);
	if (worker)
		mutex_unlock(&req->ring->submit_lock);
	return res;
}

/* SEND and RECV on a file the request holds (a direct descriptor): the
 * socket's one-message send or receive, which sendto and recvfrom (no
 * address) call after their fd lookup; on an fd, the system call. */
static long sock_one(struct io_req *req, bool send, uint64_t addr, uint32_t len)
{
	struct iovec v = {(void *)addr, len};
	struct kmsg m = {.flags = (int)req->sqe.msg_flags};
	struct socket *sk = sock_of_file(req->file);

	if (!sk)
		return -ENOTSOCK;
	iov_iter_init(&m.it, &v, 1, len);
	return send ? sock_send(sk, req->file, &m) : sock_recv(sk, req->file, &m);
}

static long run_send(struct io_req *req)
{
	if (req->file)
		return sock_one(req, true, req->sqe.addr, req->sqe.len);
	return syscall_call((uint64_t)req->nr, req->args);
}

/* IOSQE_BUFFER_SELECT: into its group's next buffer (ENOBUFS if none),
 * which its CQE names if it received anything. */
static __attribute__((noinline)) long recv_select(struct io_req *req)
{
	uint32_t len = req->sqe.len;
	uint64_t a[6] = {req->args[0], 0, 0, req->args[3], 0, 0};
	struct io_pbuf *b = io_pbuf_take(req->ring, req->sqe.buf_group, &a[1], &len);
	long res;

	if (!b)
		return -ENOBUFS;
	a[2] = len;
	res = req->file ? sock_one(req, false, a[1], len) : syscall_call((uint64_t)req->nr, a);
	req->cflags = io_pbuf_done(req->ring, b, res);
	return res;
}

long io_run_recv(struct io_req *req)
{
	if (req->sqe.flags & IOSQE_BUFFER_SELECT)
		return recv_select(req);
	if (req->file)
		return sock_one(req, false, req->sqe.addr, req->sqe.len);
	return syscall_call((uint64_t)req->nr, req->args);
}

/* ---- the table ---- */

static const struct io_op ops[IORING_OP_LAST] = {
    [IORING_OP_NOP] = {HOW_INLINE, false, false, io_prep_nop, run_nop, NULL},
    [IORING_OP_READV] = {HOW_NOWAIT, true, true, io_prep_readv, NULL, NULL},
    [IORING_OP_WRITEV] = {HOW_NOWAIT, true, true, io_prep_writev, NULL, NULL},
    [IORING_OP_FSYNC] = {HOW_PUNT, true, false, io_prep_fsync, NULL, NULL},
    [IORING_OP_READ_FIXED] = {HOW_NOWAIT, true, true, io_prep_read_fixed, NULL, NULL},
    [IORING_OP_WRITE_FIXED] = {HOW_NOWAIT, true, true, io_prep_write_fixed, NULL, NULL},
    [IORING_OP_POLL_ADD] = {HOW_NOWAIT, true, false, prep_poll, run_poll, attempt_poll},
    [IORING_OP_POLL_REMOVE] = {HOW_INLINE, false, false, prep_poll_remove, run_poll_remove, NULL},
    [IORING_OP_SENDMSG] = {HOW_NOWAIT, true, false, io_prep_sendmsg, NULL, NULL},
    [IORING_OP_RECVMSG] = {HOW_NOWAIT, true, false, io_prep_recvmsg, NULL, NULL},
    [IORING_OP_TIMEOUT] = {HOW_PUNT, false, false, io_prep_timeout, io_run_timeout, NULL},
    [IORING_OP_TIMEOUT_REMOVE] = {HOW_INLINE, false, false, io_prep_timeout_remove, io_run_timeout_remove,
				  NULL},
    [IORING_OP_FILES_UPDATE] = {HOW_INLINE, false, false, prep_files_update, run_files_update,
				NULL},
    [IORING_OP_ACCEPT] = {HOW_NOWAIT, true, false, io_prep_accept, NULL, NULL},
    [IORING_OP_ASYNC_CANCEL] = {HOW_INLINE, false, false, prep_cancel, run_cancel, NULL},
    [IORING_OP_LINK_TIMEOUT] = {HOW_INLINE, false, false, io_prep_link_timeout, run_orphan, NULL},
    [IORING_OP_CONNECT] = {HOW_PUNT, true, false, io_prep_connect, NULL, NULL},
    [IORING_OP_OPENAT] = {HOW_PUNT, false, false, io_prep_openat, NULL, NULL},
    [IORING_OP_CLOSE] = {HOW_INLINE, false, false, io_prep_close, run_close, NULL},
    [IORING_OP_STATX] = {HOW_PUNT, false, false, io_prep_statx, NULL, NULL},
    [IORING_OP_PROVIDE_BUFFERS] = {HOW_INLINE, false, false, io_prep_provide_buffers,
				   io_run_provide_buffers, NULL},
    [IORING_OP_REMOVE_BUFFERS] = {HOW_INLINE, false, false, io_prep_remove_buffers,
				  io_run_remove_buffers, NULL},
    [IORING_OP_READ] = {HOW_NOWAIT, true, true, io_prep_read, NULL, NULL},
    [IORING_OP_WRITE] = {HOW_NOWAIT, true, true, io_prep_write, NULL, NULL},
    [IORING_OP_SEND] = {HOW_NOWAIT, true, false, io_prep_send, run_send, NULL},
    [IORING_OP_RECV] = {HOW_NOWAIT, true, false, io_prep_recv, io_run_recv, NULL},
    [IORING_OP_SOCKET] = {HOW_INLINE, false, false, io_prep_socket, NULL, NULL},
};

static const struct io_op *op_of(const struct io_req *req)
{
	return &ops[req->sqe.opcode];
}

bool io_op_supported(unsigned int op)
{
	return op < IORING_OP_LAST && ops[op].prep;
}

/* ---- issue, completion, links ---- */

/* A FIXED_FILE request's file, taken from its slot when it is issued
 * (a request linked after a direct OPENAT finds what the open made, as
 * on Linux): 0, or -EBADF for an empty slot or no table. */
static int req_fixed_file(struct io_req *req)
{
	if (!req->fixed || req->file)
		return 0;
	req->file = io_fixed_get(req->ring, req->fixed_index);
	return req->file ? 0 : -EBADF;
}

static long op_call(struct io_req *req)
{
	const struct io_op *op = op_of(req);

	if (req->multishot)
		return IO_REARM; /* on a worker: its owner arms it (req_done_async) */
	if (op->run)
		return op->run(req);
	return syscall_call((uint64_t)req->nr, req->args);
}

/* op_run_with on direct descriptors: redirected (fd/fd_install.h), its
 * FD_LENT the request's file, the file it creates for a file_index put
 * in the ring's table rather than the process's. */
static __attribute__((noinline)) long op_run_redirected(struct io_req *req,
							long (*call)(struct io_req *))
{
	struct fd_redirect r = {.capture = req->file_slot != 0};
	long res;

	if ((res = req_fixed_file(req)))
		return res;
	r.lent = req->file;
	current()->fd_redirect = &r;
	res = call(req);
	current()->fd_redirect = NULL;
	if (r.made && res >= 0)
		return io_fixed_install(req->ring, req->file_slot, r.made);
	if (r.made)
		file_put(r.made);
	return res;
}

/* Runs call (the op, or its inline attempt) for the request here. */
static inline long op_run_with(struct io_req *req, long (*call)(struct io_req *))
{
	if (req->fixed || req->file_slot)
		return op_run_redirected(req, call);
	return call(req);
}

/* Runs the request's op here (blocking allowed unless nowait is set). */
static long op_run(struct io_req *req)
{
	return op_run_with(req, op_call);
}

/* On its worker: a deferred chain first waits for its turn; a request
 * its LINK_TIMEOUT cut short before it started does not start. */
static long req_run_async(struct async_req *ar)
{
	struct io_req *req = req_of(ar);
	long res = io_drain_wait(req);

	if (res)
		return res;
	if (req->punted)
		req_wait_start(req); /* its wait for the drain did not count */
	return io_req_removed(req) ? -ECANCELED : op_run(req);
}

/* How the file of an fd op may run inline: HOW_INLINE (never waits, or
 * O_NONBLOCK: its -EAGAIN is the answer), HOW_NOWAIT (an attempt with
 * nowait), HOW_PUNT (waits no flag stops). */
static enum op_how file_kind(struct io_req *req)
{
	struct file *f = req->file ? req->file : files_lookup(current()->files, req->sqe.fd);
	enum op_how how = HOW_INLINE; /* a bad fd fails inline with EBADF */

	if (!f)
		return how;
	if (f->inode && (inode_is_reg(f->inode) || inode_is_dir(f->inode)))
		how = HOW_INLINE;
	else if (!f->ops->nowait && !f->ops->poll)
		how = HOW_INLINE; /* nothing to wait for (/dev/null, ...) */
	else if (!f->ops->nowait)
		how = HOW_PUNT;
	else
		how = (f->flags & O_NONBLOCK) ? HOW_INLINE : HOW_NOWAIT;
	if (f != req->file)
		file_put(f);
	return how;
}

/* req is about to wait (punted, or run by a worker after another or
 * after its drain): a TIMEOUT's count starts with the CQEs posted from
 * now on, as Linux counts from its issue; its LINK_TIMEOUT is armed. */
static void req_wait_start(struct io_req *req)
{
	if (req->sqe.opcode == IORING_OP_TIMEOUT && req->sqe.off) {
		spin_lock(&req->ring->lock);
		req->target = req->ring->ncompleted + req->sqe.off;
		list_add_tail(&req->tlink, &req->ring->timeouts);
		spin_unlock(&req->ring->lock);
	}
	io_ltimeout_arm(req);
}

long io_req_attempt_with(struct io_req *req, long (*call)(struct io_req *))
{
	long res;

	task_sched(current())->nowait = true;
	res = op_run_with(req, call);
	task_sched(current())->nowait = false;
	return res;
}

long io_req_attempt(struct io_req *req)
{
	const struct io_op *op = op_of(req);

	return io_req_attempt_with(req, op->attempt ? op->attempt : op_call);
}

/* req_try's answers for a request that must wait (a range, below
 * IO_REARM): its attempt would (armed on its file, or punted), it goes
 * to a worker at once, or it is multishot (armed on its file, IOSQE_ASYNC
 * or not). */
#define IO_WAIT_POLL  (IO_PUNTED - 2)
#define IO_WAIT_PUNT  (IO_PUNTED - 3)
#define IO_WAIT_MULTI (IO_PUNTED - 4)

/* Runs req here if it finishes without waiting: its result, or an
 * IO_WAIT_ answer (nothing done that its wait must undo). */
static long req_try(struct io_req *req)
{
	const struct io_op *op = op_of(req);
	enum op_how how = op->how;
	long res;
	int err;

	if ((err = req_fixed_file(req)))
		return err;
	if (req->multishot)
		return IO_WAIT_MULTI;
	if (req->sqe.flags & IOSQE_ASYNC)
		return IO_WAIT_PUNT;
	if (how == HOW_NOWAIT && !op->attempt)
		how = file_kind(req);
	if (how == HOW_INLINE)
		return op_run(req);
	if (how == HOW_PUNT)
		return IO_WAIT_PUNT;
	res = io_req_attempt(req);
	return res == -EAGAIN ? IO_WAIT_POLL : res;
}

static struct io_req *req_persist(struct io_req *sreq);
static bool req_start(struct io_req *req);

/*
 * *reqp must wait (why: req_try's answer): a request on the submitter's
 * stack is moved to one of the ring's first (*reqp is then that one),
 * counted in flight, armed on its file or punted.  IO_PUNTED once a
 * worker or its file has it, else its result.
 */
static long req_wait(struct io_req **reqp, long why)
{
	struct io_req *req = *reqp;
	long res;
	int err;

	if (req->on_stack && !(req = *reqp = req_persist(req)))
		return -ENOMEM; /* *reqp, still the stack's, completes with it */
	if (!req_start(req))
		return -ECANCELED;
	req_wait_start(req); /* before the punt: its worker may finish it at once */
	if (why == IO_WAIT_MULTI)
		return io_multi_arm(req);
	if (why == IO_WAIT_POLL && (res = io_poll_arm(req)) != -EAGAIN)
		return res; /* armed on its file (IO_PUNTED), or done */
	/* Linked from ring->lock's lists, so that a cancel finds it only
	 * once it is queued: async_punt takes the engine's lock itself. */
	io_cq_flush(req->ring);
	if ((err = async_punt(&req->ar))) {
		spin_lock(&req->ring->lock);
		list_del(&req->tlink);
		spin_unlock(&req->ring->lock);
		return err;
	}
	return IO_PUNTED;
}

/* Whether res breaks the link to the next request. */
static bool link_broken(const struct io_req *req, long res)
{
	if (req->sqe.flags & IOSQE_IO_HARDLINK)
		return false;
	if (res == -ETIME && req->sqe.opcode == IORING_OP_TIMEOUT &&
	    (req->sqe.timeout_flags & IORING_TIMEOUT_ETIME_SUCCESS))
		return false;
	return res < 0 ||
	       (op_of(req)->short_fails && res < (long)req->sqe.len &&
		req->sqe.opcode != IORING_OP_READV && req->sqe.opcode != IORING_OP_WRITEV);
}

void io_req_free(struct io_req *req)
{
	struct io_ring *ring = req->ring;

	if (req->file)
		file_put(req->file);
	if (req->on_stack)
		return; /* never armed or counted, no reference: io_req_for_sqe */
	if (req->poll.file)
		file_put(req->poll.file);
	io_drain_put(req);
	io_req_cache_put(req);
	io_ring_put(ring);
}

/* A request of the ring's completes with res: out of the drain queue,
 * its LINK_TIMEOUT done, off the ring's lists; its result (the timeout's
 * -ECANCELED if it cut it short). */
static long req_leave(struct io_req *req, long res)
{
	struct io_ring *ring = req->ring;

	io_drain_forget(req);
	if (req->next) /* a LINK_TIMEOUT is one */
		res = io_ltimeout_done(req, res);
	if (!list_empty(&req->link) || !list_empty(&req->tlink)) { /* else never on them */
		spin_lock(&ring->lock);
		if (!list_empty(&req->link)) {
			list_del(&req->link);
			ring->ninflight--;
		}
		list_del(&req->tlink);
		spin_unlock(&ring->lock);
	}
	return res;
}

/* Posts req's CQE and frees it: the next request of its chain to issue,
 * or NULL (a broken link cancels the rest of the chain). */
static struct io_req *req_complete(struct io_req *req, long res)
{
	struct io_ring *ring = req->ring;
	struct io_req *next = NULL, *n;
	bool broken = false;

	if (!req->on_stack) { /* a stack request is alone and never waited */
		res = req_leave(req, res);
		next = req->next;
		broken = link_broken(req, res);
	}
	if (!(req->sqe.flags & IOSQE_CQE_SKIP_SUCCESS) || res < 0)
		io_post_cqe(ring, req->sqe.user_data, (int32_t)res, req->cflags,
			    req->sqe.opcode != IORING_OP_TIMEOUT);
	io_req_free(req);
	while (broken && next) { /* Linux: -ECANCELED for each */
		n = next->next;
		io_post_cqe(ring, next->sqe.user_data, -ECANCELED, 0, true);
		io_req_free(next);
		next = n;
	}
	return next;
}

void io_req_finish(struct io_req *req, long res)
{
	io_submit_chain(req_complete(req, res));
}

/* Whether Linux lets op take IOSQE_BUFFER_SELECT: RECV does here, the
 * others not yet (EINVAL: docs/async.md); any other op, Linux's
 * EOPNOTSUPP. */
static bool op_buffer_select(uint8_t op)
{
	return op == IORING_OP_READ || op == IORING_OP_READV || op == IORING_OP_RECVMSG;
}

/* The checks every SQE gets before its op's own: -errno for its CQE. */
int io_req_prep(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->opcode >= IORING_OP_LAST || !ops[s->opcode].prep)
		return -EINVAL;
	if (s->flags & (~SQE_FLAGS_KNOWN | IOSQE_BUFFER_SELECT)) { /* rare: one test */
		if (s->flags & ~(SQE_FLAGS_KNOWN | IOSQE_BUFFER_SELECT))
			return -EINVAL;
		if (s->opcode != IORING_OP_RECV)
			return op_buffer_select(s->opcode) ? -EINVAL : -EOPNOTSUPP;
	}
	if (s->flags & IOSQE_CQE_SKIP_SUCCESS)
		req->ring->drain_disabled = true; /* Linux: skipped CQEs defeat a drain */
	if ((s->flags & IOSQE_IO_DRAIN) && req->ring->drain_disabled)
		return -EOPNOTSUPP;
	if (s->personality)
		return -EINVAL; /* none registered */
	if (s->flags & IOSQE_FIXED_FILE) {
		if (!ops[s->opcode].uses_fd)
			return -EBADF;
		req->fixed = true; /* its file is taken at its issue: req_fixed_file */
		req->fixed_index = (uint32_t)s->fd;
		req->sqe.fd = FD_LENT;
	}
	return ops[s->opcode].prep(req);
}

/* What every request starts with (struct io_req): a few stores, inline. */
static void req_init(struct io_req *req, struct io_ring *ring)
{
	__builtin_memset(req, 0, offsetof(struct io_req, ar));
	req->ring = ring;
}

/* What a request of the ring's adds (struct io_req): reset, and a
 * reference on the ring, counted live (the drains' count) until its
 * free. */
static void req_init_ring(struct io_req *req)
{
	memset(&req->ar, 0, offsetof(struct io_req, sqe) - offsetof(struct io_req, ar));
	list_init(&req->link);
	list_init(&req->tlink);
	list_init(&req->ar.link);
	req->ar.run = req_run_async;
	req->ar.done = req_done_async;
	list_init(&req->dlink);
	req->poll.file = NULL;
	req->poll.nhooks = 0;
	io_ring_get(req->ring);
	__atomic_add_fetch(&req->ring->nlive, 1, __ATOMIC_ACQ_REL);
}

/* A new request of ring (submit_lock held), its sqe still to be filled:
 * NULL on ENOMEM. */
static struct io_req *req_alloc(struct io_ring *ring)
{
	struct io_req *req = io_req_cache_get(ring);

	if (!req)
		return NULL;
	req_init(req, ring);
	req_init_ring(req);
	return req;
}

/* Whether sqe's request may start on the submitter's stack (its stable
 * copy: the user may change the ring's meanwhile). */
static bool sqe_on_stack(const struct io_ring *ring, const struct io_uring_sqe *sqe)
{
	if (sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_IO_DRAIN | IOSQE_ASYNC))
		return false;
	return !ring->drain_used &&
	       (sqe->opcode >= IORING_OP_LAST || ops[sqe->opcode].how != HOW_PUNT);
}

struct io_req *io_req_for_sqe(struct io_ring *ring, struct io_req *sreq, struct io_req *last)
{
	struct io_req *req;

	if (!last && sqe_on_stack(ring, &sreq->sqe)) {
		req_init(sreq, ring);
		sreq->on_stack = true;
		return sreq;
	}
	if ((req = req_alloc(ring)))
		req->sqe = sreq->sqe;
	return req;
}

/*
 * A stack request that must wait, moved to one of its ring's: what its
 * preparation and attempt set (its file's reference comes along; a
 * stack request's op never has its timer or poll armed) and the ring's
 * part anew.  NULL on ENOMEM.
 */
static struct io_req *req_persist(struct io_req *sreq)
{
	struct io_req *req = io_req_cache_get(sreq->ring);

	if (!req)
		return NULL;
	memcpy(req, sreq, offsetof(struct io_req, ar));
	memcpy(&req->sqe, &sreq->sqe,
	       offsetof(struct io_req, timer) - offsetof(struct io_req, sqe));
	req->on_stack = false;
	req_init_ring(req);
	return req;
}

/* Counts req in flight, as it is about to wait (cancels find it),
 * unless the ring is dead: false then, and it completes with
 * -ECANCELED.  A request that ends inline has nothing to cancel: never
 * counted (as Linux's). */
static bool req_start(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	bool live;

	spin_lock(&ring->lock);
	live = !ring->dead;
	if (live) {
		list_add_tail(&req->link, &ring->inflight);
		ring->ninflight++;
	}
	spin_unlock(&ring->lock);
	return live;
}

void io_submit_chain(struct io_req *req)
{
	long res;

	while (req) {
		/* A released ring issues nothing more (the rest of a chain its
		 * cancels complete: its owner may be exiting, its files gone);
		 * a waiting request checks again under the lock (req_start). */
		if (__atomic_load_n(&req->ring->dead, __ATOMIC_RELAXED))
			res = -ECANCELED;
		else if ((res = req_try(req)) <= IO_WAIT_POLL && res >= IO_WAIT_MULTI)
			res = req_wait(&req, res);
		if (res == IO_PUNTED)
			return; /* its worker or wake-up completes it, and the chain */
		req = req_complete(req, res);
	}
}

/*
 * A punted request's end, on its worker: the rest of its chain runs here
 * too, each request in turn (blocking allowed), adopted by the worker
 * before it counts as in flight, so that a cancel finds it interruptible.
 * Completed by its owner's exit instead (never ran), the rest of the
 * chain is cancelled.
 */
static void req_done_async(struct async_req *ar, long res)
{
	struct io_req *req = req_of(ar);

	for (;;) {
		bool here;

		/* A poll whose events changed: queued again, to wait anew (its
		 * drain, if any, is behind it); a multishot request: to its
		 * owner, which arms it on its file. */
		if (res == IO_REARM) {
			req->punted = false;
			if (!(req->multishot ? io_multi_handoff(req) : async_punt(&req->ar)))
				return;
			res = -ECANCELED; /* the engine is ending */
		}
		if (!(req = req_complete(req, res)))
			return;
		if ((here = async_in_worker())) {
			async_adopt(&req->ar);
			req_wait_start(req);
		}
		res = here && req_start(req) && !io_req_removed(req) ? op_run(req) : -ECANCELED;
		if (here)
			res = async_unadopt(&req->ar, res);
	}
}

/* A new chain from io_uring_enter: issued, or held behind a drain on a
 * worker of the submitter's own (its context is the submitter's). */
void io_queue_chain(struct io_req *head)
{
	int err;

	if (head->on_stack || !io_drain_defer(head)) { /* sqe_on_stack: no drain */
		io_submit_chain(head);
		return;
	}
	if (!req_start(head))
		err = -ECANCELED;
	else if (!(err = async_punt(&head->ar)))
		return;
	io_submit_chain(req_complete(head, err));
}

void io_fail_chain(struct io_req *req)
{
	struct io_req *next;

	for (; req; req = next) {
		next = req->next;
		io_post_cqe(req->ring, req->sqe.user_data, req->err ? req->err : -ECANCELED, 0,
			    true);
		io_req_free(req);
	}
}

void io_cancel_all(struct io_ring *ring)
{
	struct io_req *r, *n;
	struct list_head queued = LIST_HEAD_INIT(queued);

	spin_lock(&ring->lock);
	ring->dead = true;
	list_for_each_entry_safe(r, n, &ring->inflight, link)
	{
		if (!r->ar.ctx || r->removed)
			continue;
		r->removed = true;
		if (async_cancel(&r->ar) == 0) { /* never ran: ours to complete */
			list_del(&r->link);
			ring->ninflight--;
			list_add_tail(&r->link, &queued);
		}
	}
	spin_unlock(&ring->lock);
	list_for_each_entry_safe(r, n, &queued, link)
	{
		list_del(&r->link);
		io_submit_chain(req_complete(r, -ECANCELED));
	}
}
