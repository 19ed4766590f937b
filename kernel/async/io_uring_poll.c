/*
 * io_uring's armed polls: a request on a pollable file (a socket, a pipe,
 * an eventfd: a file with a poll operation whose calls honour nowait)
 * whose non-blocking attempt would wait is hooked on the file's wait
 * queues, with no worker, as Linux's io_arm_poll_handler.  The wake-up
 * (under the queue's lock, on the waker's CPU, in the waker's context)
 * cannot run the call: it would copy into the submitter's memory and use
 * its files.  So it hands the request to its submitter's engine
 * (async_wake), which retries it in the submitter itself: in
 * io_uring_enter's wait, or on its way back to user mode, before it can
 * look at the CQ ring (Linux's task_work).  The retry unhooks, attempts
 * again, and completes the request or arms it again.  docs/async.md.
 */
#include "async/io_uring_int.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "proc/task.h"
#include <uapi/eventpoll.h>
#include <uapi/socket.h>
#include <uapi/errno.h>
#include <uapi/uio.h>

/* Three tries of a file that says ready and then would wait: punted. */
#define ARM_TRIES 3

static struct io_req *req_of(struct async_req *ar)
{
	return container_of(ar, struct io_req, ar);
}

/* What a request waits for; 0: not one to arm.  A socket op with
 * MSG_DONTWAIT, a read or write with RWF_NOWAIT asked not to wait: its
 * worker's call fails with EAGAIN, as Linux's REQ_F_NOWAIT (the bit is
 * RWF_ATOMIC for the rw ops, which fail their attempt with EOPNOTSUPP). */
static inline __attribute__((always_inline)) uint32_t poll_events(const struct io_req *req)
{
	if ((req->sqe.msg_flags & MSG_DONTWAIT) && req->sqe.opcode != IORING_OP_POLL_ADD)
		return 0; /* the union's bit is POLLRDNORM there */
	switch (req->sqe.opcode) {
	case IORING_OP_READ:
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
		return req->sqe.rw_flags & RWF_NOWAIT ? 0 : POLLIN | POLLRDNORM;
	case IORING_OP_WRITE:
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
		return req->sqe.rw_flags & RWF_NOWAIT ? 0 : POLLOUT | POLLWRNORM;
	case IORING_OP_RECV:
	case IORING_OP_RECVMSG:
	case IORING_OP_ACCEPT:
		return POLLIN | POLLRDNORM;
	case IORING_OP_SEND:
	case IORING_OP_SENDMSG:
		return POLLOUT | POLLWRNORM;
	case IORING_OP_POLL_ADD: /* the event bits of its 32 (IORING_FEAT_POLL_32BITS) */
		return req->sqe.poll32_events & 0xffff;
	default:
		return 0;
	}
}

/*
 * The wake-up, under the queue's lock: a wake-up about what the request
 * waits for (or of unknown kind) has its submitter retry it (async_wake
 * wakes the submitter, wherever it sleeps).  No other queue is woken
 * here: the polled file may be the ring itself, whose CQ queue's lock
 * is held then, and a second ring polled back would make two queue
 * locks taken in both orders.
 */
static bool poll_wake(struct wait_entry *we, unsigned int key)
{
	struct io_req *req = container_of(we, struct io_poll_hook, we)->req;

	if (key && !(key & (req->poll.events | POLLERR | POLLHUP)))
		return false;
	async_wake(&req->ar);
	/* Its submitter woken: an exclusive wake-up ends here (a
	 * non-exclusive hook's answer is not read). */
	return true;
}

/* poll_wait of the file: a hook on each of its queues. */
static void poll_queue(struct file *f, struct wait_queue *wq, struct poll_table *pt)
{
	struct io_poll *p = container_of(pt, struct io_poll, pt);
	struct io_poll_hook *h;

	(void)f; /* referenced by p->file while hooked */
	if (p->nhooks == 2) {
		p->overflow = true;
		return;
	}
	h = &p->hooks[p->nhooks++];
	h->we = (struct wait_entry){
	    .func = poll_wake, .exclusive = p->exclusive, .link = LIST_HEAD_INIT(h->we.link)};
	h->wq = wq;
	wait_add(wq, &h->we);
}

/* Unhooks the request; no wake-up of it runs after.  Spinlocks may be
 * held (a cancel holds the ring's): the file stays referenced until the
 * request is freed (io_req_free), whose put may release it. */
void io_poll_disarm(struct async_req *ar)
{
	struct io_poll *p = &req_of(ar)->poll;

	for (int i = 0; i < p->nhooks; i++)
		wait_remove(p->hooks[i].wq, &p->hooks[i].we);
	p->nhooks = 0;
}

/* Hooks req on its file's queues (the file taken at its first arming),
 * parking it first so that no wake-up is lost: 0 and the file's mask in
 * *mask, -EAGAIN (no poll: punt it), -EBADF, -ECANCELED. */
static inline __attribute__((always_inline)) long poll_hook(struct io_req *req, uint32_t *mask)
{
	struct io_poll *p = &req->poll;
	int err;

	if (!p->file && req->file) {
		file_get(req->file);
		p->file = req->file;
	} else if (!p->file && !current()->files) {
		/* The fallback, which has no files: handed to an owner that
		 * exited before arming it, the request ends (async.h). */
		return -ECANCELED;
	} else if (!p->file && !(p->file = files_lookup(current()->files, req->sqe.fd))) {
		return -EBADF;
	}
	if (!p->file->ops->poll)
		return -EAGAIN;
	req->ar.exit_cancel = io_ring_of(p->file) != NULL; /* async.h */
	if ((err = async_arm_begin(&req->ar)))
		return err;
	p->overflow = false;
	*mask = p->file->ops->poll(p->file, &p->pt);
	return 0;
}

static void poll_retry(struct async_req *ar);

/* For the multishot requests; poll_events and poll_hook stay inline in
 * the one-shot path. */
uint32_t io_poll_events(const struct io_req *req)
{
	return poll_events(req);
}

long io_poll_watch(struct io_req *req, uint32_t *mask)
{
	return poll_hook(req, mask);
}

void io_poll_setup(struct io_req *req, void (*retry)(struct async_req *ar))
{
	struct io_poll *p = &req->poll;

	p->events = poll_events(req);
	p->exclusive =
	    req->sqe.opcode == IORING_OP_POLL_ADD && (req->sqe.poll32_events & EPOLLEXCLUSIVE);
	req->ar.retry = retry;
	req->ar.disarm = io_poll_disarm;
	p->pt.queue = poll_queue;
	p->pt.events = p->events | POLLERR | POLLHUP;
	p->hooks[0].req = p->hooks[1].req = req;
}

long io_poll_arm(struct io_req *req)
{
	struct io_poll *p = &req->poll;
	uint32_t mask;
	long res;
	int ret;

	io_poll_setup(req, poll_retry);
	if (!p->events)
		return -EAGAIN;
	for (int tries = 0; tries < ARM_TRIES; tries++) {
		if ((res = poll_hook(req, &mask)))
			return res;
		ret = async_arm_end(&req->ar,
				    p->overflow || (mask & (p->events | POLLERR | POLLHUP)));
		if (!ret)
			return IO_PUNTED; /* armed: its wake-up retries it */
		io_poll_disarm(&req->ar);
		if (ret < 0 || p->overflow)
			return ret < 0 ? ret : -EAGAIN;
		/* Ready: in the fallback, its owner exited (async.h). */
		res = io_req_removed(req) || async_in_fallback() ? -ECANCELED : io_req_attempt(req);
		if (res != -EAGAIN)
			return res;
	}
	return -EAGAIN; /* ready, yet it would wait: a worker rather than a spin */
}

int io_poll_handoff(struct io_req *req)
{
	io_poll_setup(req, poll_retry);
	return async_hand_owner(&req->ar);
}

/*
 * In the submitter, after the wake-up: unhooked, attempted again (or
 * ended, if a remove, a cancel or its LINK_TIMEOUT took it), armed again
 * if it would still wait, else completed with the rest of its chain
 * issued here.  A request that can no longer be armed goes to a worker.
 * In the fallback (its submitter exited) no attempt: armed again, which
 * ends it with -ECANCELED if its file is ready.
 */
static void poll_retry(struct async_req *ar)
{
	struct io_req *req = req_of(ar);
	long res;

	io_tw_lock(req->ring);
	io_poll_disarm(ar);
	if (io_req_removed(req))
		res = -ECANCELED;
	else
		res = async_in_fallback() ? -EAGAIN : io_req_attempt(req);
	if (res == -EAGAIN)
		res = io_poll_arm(req);
	if (res == -EAGAIN && !(res = async_punt(ar)))
		return;
	if (res != IO_PUNTED)
		io_req_finish(req, res);
}
