/*
 * io_uring's multishot requests: POLL_ADD with IORING_POLL_ADD_MULTI,
 * ACCEPT with IORING_ACCEPT_MULTISHOT, RECV and RECVMSG with
 * IORING_RECV_MULTISHOT.
 * One is armed on its file's wait queues as a one-shot request that would
 * wait is (io_uring_poll.c), with no worker, and stays armed: each
 * wake-up has its submitter retry it, which posts a CQE with
 * IORING_CQE_F_MORE for what is there (the poll's mask, each connection
 * accepted, each receive into a provided buffer) and hooks it again.  Its last
 * CQE, without F_MORE, is its end: an error, -ECANCELED once removed or
 * cancelled (its ring's last close and its owner's exit or exec cancel
 * it), a RECV's end of stream (0; a RECVMSG's is a buffer with its
 * header and no payload) or empty buffer group (-ENOBUFS), or,
 * as Linux's, the event whose CQE found the CQ ring full.
 * docs/async.md.
 */
#include "async/io_uring_int.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>

/* A listener or socket that says ready and then has nothing: tried
 * again this many times at most before it waits for its next wake-up
 * (another thread's call took it), rather than spin. */
#define TAKE_TRIES 3

/* A file without a poll operation is always ready (Linux's
 * DEFAULT_POLLMASK): the one CQE is the end. */
#define POLL_DEFAULT (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

static void multi_retry(struct async_req *ar);

/* Posts one of req's CQEs with F_MORE (and the flags naming the buffer
 * it filled), with its user_data as it is now (POLL_REMOVE's update may
 * change it: one word, stored atomically): false, and nothing posted, if the
 * CQ ring is full (the caller's last CQE carries them then). */
static bool multi_post(struct io_req *req, int32_t res)
{
	uint64_t data = __atomic_load_n(&req->sqe.user_data, __ATOMIC_RELAXED); /* one word */

	if (!io_post_cqe_more(req->ring, data, res, req->cflags))
		return false;
	req->cflags = 0;
	return true;
}

/* Whether polling f would feed itself: each CQE wakes the ring's file
 * (and any ring polling it back) and its eventfd, so a multishot poll of
 * either ends after its first CQE (Linux makes such a poll one shot:
 * EPOLL_URING_WAKE). */
static bool feeds_itself(struct io_req *req, struct file *f)
{
	bool self;

	spin_lock_task(&req->ring->lock);
	self = io_ring_of(f) || f == req->ring->eventfd;
	spin_unlock_task(&req->ring->lock);
	return self;
}

/* One take: the ACCEPT's call, the RECV's or the RECVMSG's receive. */
static long take_one(struct io_req *req)
{
	switch (req->sqe.opcode) {
	case IORING_OP_ACCEPT:
		return syscall_call((uint64_t)req->nr, req->args);
	case IORING_OP_RECV:
		return io_run_recv(req);
	default:
		return io_run_recvmsg(req);
	}
}

/* 0 if the RECV's socket has data (or an error, an end) waiting, else
 * -EAGAIN: its file's readiness, once armed (poll.file), else poll's. */
static long recv_pending(struct io_req *req)
{
	struct pollfd p = {.fd = req->sqe.fd, .events = POLLIN};
	struct file *f = req->poll.file;

	if (f && f->ops->poll)
		return f->ops->poll(f, NULL) & (POLLIN | POLLERR | POLLHUP) ? 0 : -EAGAIN;
	return poll_kernel(&p, 1, POLLERR | POLLHUP, 0) > 0 ? 0 : -EAGAIN;
}

/* Takes everything there, a CQE each: every connection waiting (with
 * IORING_FILE_INDEX_ALLOC each goes to a free slot, the CQE's result),
 * every receive (into a buffer each).  -EAGAIN once nothing is left, or
 * the result that ends the request (a RECV's 0 is the end of stream). */
static long take_all(struct io_req *req)
{
	bool accept = req->sqe.opcode == IORING_OP_ACCEPT;
	long res;

	for (bool again = false;; again = true) {
		/* As Linux, a RECV goes on at once only while data remains
		 * (known from a stream socket's receive, kmsg.drained, as
		 * Linux's msg_inq; else polled): an empty group then waits
		 * for the next data to end it. */
		if (again && !accept && (req->drained || io_req_attempt_with(req, recv_pending)))
			return -EAGAIN;
		req->drained = false;
		res = io_req_attempt_with(req, take_one);
		if (res < 0 || (!accept && !res) || req->last || !multi_post(req, (int32_t)res))
			return res;
	}
}

/* req hooked (PARK_ARMING) ends here with res: unhooked, the caller's to
 * complete. */
static long multi_unhook(struct io_req *req, long res)
{
	async_arm_end(&req->ar, true);
	io_poll_disarm(&req->ar);
	return res;
}

/*
 * A retry of an ACCEPT or RECV whose hooks stayed on its file (the last
 * round armed it), in its owner (async_run_ready): a wake-up since the
 * retry began (whose hook is still on) marks it woken, and async_arm_keep
 * puts it back on the ready list rather than losing it; no unhook and
 * hook again per event.  IO_PUNTED, or the result that ends it.
 */
static long take_hooked(struct io_req *req)
{
	long res;

	if (io_req_removed(req))
		return multi_unhook(req, -ECANCELED);
	if ((res = take_all(req)) != -EAGAIN)
		return multi_unhook(req, res);
	if (async_arm_keep(&req->ar)) {
		io_poll_disarm(&req->ar);
		return -ECANCELED;
	}
	return IO_PUNTED;
}

/*
 * One round, in the submitter (or a worker issuing a link): what the
 * file has now is posted and req is hooked, IO_PUNTED; or the result
 * that ends it.  A poll posts its mask when the file is ready (once at
 * its arming if ready then, then once per wake-up that leaves it ready:
 * edge-triggered, as Linux's), and is hooked anew each round (an update
 * may change its events, and so its queues); an accept posts each
 * connection, a receive each buffer it filled.  A wake-up that comes
 * while it is hooked and not yet armed puts it on its owner's ready list
 * (async_arm_keep): the next round runs from there, never in a loop
 * here.
 */
long io_multi_arm(struct io_req *req)
{
	bool take = req->sqe.opcode != IORING_OP_POLL_ADD;
	struct io_poll *p = &req->poll;
	uint32_t mask;
	long res;

	if (take && p->nhooks)
		return take_hooked(req);
	for (int tries = 1;; tries++) {
		if (io_req_removed(req))
			return -ECANCELED;
		if (take && ((res = take_all(req)) != -EAGAIN || !io_poll_events(req)))
			return res; /* MSG_DONTWAIT: its EAGAIN is the end */
		io_poll_setup(req, multi_retry);
		if ((res = io_poll_watch(req, &mask)))
			return res == -EAGAIN ? POLL_DEFAULT & p->events : res;
		if (p->overflow)
			return multi_unhook(req, -EINVAL); /* Linux: a third queue */
		mask &= p->events | POLLERR | POLLHUP;
		if (!take && mask &&
		    (feeds_itself(req, p->file) || !multi_post(req, (int32_t)mask)))
			return multi_unhook(req, mask);
		if (!take || !mask || tries == TAKE_TRIES)
			break;
		multi_unhook(req, 0); /* something came meanwhile: take it */
	}
	if (async_arm_keep(&req->ar)) {
		io_poll_disarm(&req->ar);
		return -ECANCELED;
	}
	return IO_PUNTED;
}

/* In the fallback (its owner exited, async.h): ended with -ECANCELED if
 * its file is ready (or it was removed), or if it was never armed (a
 * worker handed it to an owner that exited first: no file, and no files
 * table here to find it in), else armed again as it was (an ACCEPT or
 * RECV keeps its hooks: it takes nothing here). */
static long multi_orphan(struct io_req *req)
{
	struct file *f = req->poll.file; /* armed: referenced */

	if (!f)
		return -ECANCELED;
	if (io_req_removed(req) ||
	    (f->ops->poll(f, NULL) & (req->poll.events | POLLERR | POLLHUP))) {
		if (req->sqe.opcode != IORING_OP_POLL_ADD)
			io_poll_disarm(&req->ar);
		return -ECANCELED;
	}
	if (req->sqe.opcode == IORING_OP_POLL_ADD)
		return io_multi_arm(req);
	if (async_arm_keep(&req->ar)) {
		io_poll_disarm(&req->ar);
		return -ECANCELED;
	}
	return IO_PUNTED;
}

/* After its wake-up, in its owner (async_run_ready), or the fallback. */
static void multi_retry(struct async_req *ar)
{
	struct io_req *req = container_of(ar, struct io_req, ar);
	long res;

	io_tw_lock(req->ring);
	if (req->sqe.opcode == IORING_OP_POLL_ADD)
		io_poll_disarm(ar); /* an ACCEPT or RECV keeps its hooks */
	res = async_in_fallback() ? multi_orphan(req) : io_multi_arm(req);
	if (res != IO_PUNTED)
		io_req_finish(req, res);
}

int io_multi_handoff(struct io_req *req)
{
	io_poll_setup(req, multi_retry);
	return async_hand_owner(&req->ar);
}
