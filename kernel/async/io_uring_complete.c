/*
 * An io_uring request's end: its CQE posted, the rest of its chain
 * issued or cancelled with it, its free; and a released ring's cancel
 * of all it has in flight.  How a request lives until then is
 * io_uring_req.c's.  docs/async.md, "Requests".
 */
#include "async/io_uring_int.h"
#include "lib/list.h"
#include <uapi/errno.h>

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
		spin_lock_task(&ring->lock);
		list_del(&req->link);
		list_del(&req->tlink);
		spin_unlock_task(&ring->lock);
	}
	return res;
}

/*
 * The rest of a chain that failed at head (its own CQE posted), from
 * next: each -ECANCELED, or its own preparation's error.  As Linux's
 * io_fail_links: none of their CQEs if head has CQE_SKIP_SUCCESS (its
 * failure's CQE stands for the chain), every one otherwise, their own
 * CQE_SKIP_SUCCESS regardless.
 */
static void chain_cancel(const struct io_req *head, struct io_req *next)
{
	bool quiet = head->sqe.flags & IOSQE_CQE_SKIP_SUCCESS;
	struct io_req *n;

	for (; next; next = n) {
		n = next->next;
		if (!quiet)
			io_post_cqe(next->ring, next->sqe.user_data,
				    next->err ? next->err : -ECANCELED, 0, true);
		io_req_free(next);
	}
}

/* Posts the CQE of a request of the ring's and frees it: the next
 * request of its chain to issue, or NULL (a failure cancels the rest of
 * the chain unless it is a HARDLINK). */
struct io_req *req_complete(struct io_req *req, long res)
{
	struct io_req *next;
	bool failed;

	res = req_leave(req, res);
	next = req->next;
	failed = req_failed(req, res);
	req_post(req, res, failed);
	if (failed && !(req->sqe.flags & IOSQE_IO_HARDLINK)) {
		chain_cancel(req, next);
		next = NULL;
	}
	io_req_free(req);
	return next;
}

void io_req_finish(struct io_req *req, long res)
{
	io_submit_chain(req_complete(req, res));
}

/* A chain with an SQE that failed its preparation: its head's CQE (its
 * error, or -ECANCELED), then the rest's, as a failure at the head. */
void io_fail_chain(struct io_req *head)
{
	io_post_cqe(head->ring, head->sqe.user_data, head->err ? head->err : -ECANCELED, 0, true);
	chain_cancel(head, head->next);
	io_req_free(head);
}

void io_cancel_all(struct io_ring *ring)
{
	struct io_req *r, *n;
	struct list_head queued = LIST_HEAD_INIT(queued);

	spin_lock_task(&ring->lock);
	ring->dead = true;
	list_for_each_entry_safe(r, n, &ring->inflight, link)
	{
		if (!r->ar.ctx || r->removed)
			continue;
		r->removed = true;
		if (async_cancel(&r->ar) == 0) { /* never ran: ours to complete */
			list_del(&r->link);
			list_add_tail(&r->link, &queued);
		}
	}
	spin_unlock_task(&ring->lock);
	list_for_each_entry_safe(r, n, &queued, link)
	{
		list_del(&r->link);
		io_submit_chain(req_complete(r, -ECANCELED));
	}
}
