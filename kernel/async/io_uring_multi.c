/*
 * io_uring's multishot requests: POLL_ADD with IORING_POLL_ADD_MULTI and
 * ACCEPT with IORING_ACCEPT_MULTISHOT.  One runs on a worker until it is
 * removed or cancelled (or fails), posting a CQE with IORING_CQE_F_MORE
 * for each event: each time its file becomes ready (edge-triggered, as
 * Linux's, through a private epoll), each connection accepted.  Its last
 * CQE, without F_MORE, is its end: -ECANCELED when removed.
 * docs/async.md.
 */
#include "async/io_uring_int.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/event/eventpoll.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>
#include <uapi/syscalls.h>

/* Posts one of req's CQEs with F_MORE, with its user_data as it is now
 * (POLL_REMOVE's update may change it, under the ring's lock). */
static void multi_post(struct io_req *req, int32_t res)
{
	uint64_t data;

	spin_lock(&req->ring->lock);
	data = req->sqe.user_data;
	spin_unlock(&req->ring->lock);
	io_post_cqe(req->ring, data, res, IORING_CQE_F_MORE, true);
}

/* How an interrupted multishot request ends: -ECANCELED when a remove or
 * a cancel (or its ring's last close) interrupted it. */
static long multi_end(struct io_req *req, long res)
{
	bool removed;

	if (res != -EINTR && res != -ERESTARTSYS && res != -ERESTARTNOHAND &&
	    res != -ERESTARTNOINTR)
		return res;
	spin_lock(&req->ring->lock);
	removed = req->removed;
	spin_unlock(&req->ring->lock);
	return removed ? -ECANCELED : -EINTR;
}

/* Waits until ep has a ready item (0) or a signal comes: a remove, a
 * cancel, the owner's end (-EINTR). */
static long multi_wait(struct eventpoll *ep)
{
	struct wait_queue *wq = eventpoll_waitq(ep);
	long ret = 0;
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(wq, &we); /* before the test: no lost wake-up */
		if (eventpoll_nready(ep))
			break;
		if (signal_pending()) {
			ret = -EINTR;
			break;
		}
		schedule();
	}
	finish_wait(wq, &we);
	return ret;
}

/* Whether polling f would feed itself: each CQE wakes the ring's own
 * file and its eventfd, so a multishot poll of either ends after its
 * first CQE (Linux makes such a poll one shot: EPOLL_URING_WAKE). */
static bool feeds_itself(struct io_req *req, struct file *f)
{
	bool self;

	spin_lock(&req->ring->lock);
	self = io_ring_of(f) || f == req->ring->eventfd;
	spin_unlock(&req->ring->lock);
	return self;
}

/* A file without a poll operation is always ready (Linux's
 * DEFAULT_POLLMASK): the one CQE is the end. */
#define POLL_DEFAULT (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/*
 * POLL_ADD_MULTI: the file is watched by a private epoll of the worker's,
 * edge-triggered, with the SQE's events (errors and hang-ups always): a
 * CQE per wake-up that leaves the file ready, one at once if it is ready
 * when armed.
 */
static long poll_multi(struct io_req *req)
{
	struct file *f = files_lookup(current()->files, req->sqe.fd), *epf;
	struct epoll_event ev = {.events = (req->sqe.poll32_events & 0xffff) | EPOLLET}, out;
	struct eventpoll *ep;
	long res;

	if (!f)
		return -EBADF;
	if (!f->ops->poll) {
		res = POLL_DEFAULT & ev.events;
		file_put(f);
		return res ? res : -EINVAL;
	}
	if (!(epf = eventpoll_file_new())) {
		file_put(f);
		return -ENOMEM;
	}
	ep = eventpoll_of(epf);
	res = eventpoll_ctl(ep, EPOLL_CTL_ADD, req->sqe.fd, f, &ev);
	while (!res && !(res = multi_wait(ep))) {
		if (eventpoll_collect(ep, &out, 1) != 1)
			continue;
		if (feeds_itself(req, f)) {
			res = out.events;
			break;
		}
		multi_post(req, (int32_t)out.events);
	}
	file_put(epf); /* its release takes the watch off f */
	file_put(f);
	return multi_end(req, res);
}

/* One accept4 with the SQE's arguments: the new fd, or with
 * IORING_FILE_INDEX_ALLOC the free slot its file went to (op_run_with's
 * redirect captured it: each connection is installed here, not once
 * after the run as a one-shot's). */
static long accept_one(struct io_req *req)
{
	struct fd_redirect *r = current()->fd_redirect;
	long fd = syscall_call(__NR_accept4, req->args);
	struct file *made;

	if (fd < 0 || !req->file_slot)
		return fd;
	made = r->made;
	r->made = NULL;
	return io_fixed_install(req->ring, req->file_slot, made);
}

/*
 * ACCEPT_MULTISHOT: accept4 with the SQE's arguments again and again, a
 * CQE per connection; a listener with O_NONBLOCK is waited for with
 * poll.  An error (not EAGAIN) is the end, as Linux's: with
 * IORING_FILE_INDEX_ALLOC, ENFILE once no slot is free.
 */
static long accept_multi(struct io_req *req)
{
	struct pollfd p = {.fd = req->sqe.fd, .events = POLLIN};
	long fd;

	for (;;) {
		fd = accept_one(req);
		if (fd == -EAGAIN && (fd = poll_kernel(&p, 1, POLLERR | POLLHUP, POLL_FOREVER)) > 0)
			continue;
		if (fd < 0)
			break;
		multi_post(req, (int32_t)fd);
	}
	return multi_end(req, fd);
}

long io_run_multishot(struct io_req *req)
{
	return req->sqe.opcode == IORING_OP_ACCEPT ? accept_multi(req) : poll_multi(req);
}
