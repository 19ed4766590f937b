/* An echo server on Debian's liburing: one ring accepts 4 clients over
 * TCP loopback and echoes 16 messages of 64 bytes for each, every recv,
 * send and close an SQE (user_data names the operation and the
 * connection); one multishot ACCEPT takes every client, a CQE with
 * IORING_CQE_F_MORE each, until an ASYNC_CANCEL ends it; the connections
 * are direct descriptors (accepted with IORING_FILE_INDEX_ALLOC into a
 * sparse table, used with IOSQE_FIXED_FILE, closed by slot), never fds
 * of the process; the clients, in a child, check every reply. */
#define _GNU_SOURCE
#include <liburing.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "testutil.h"

#define CLIENTS 4
#define MSGS	16
#define LEN	64

enum { OP_ACCEPT, OP_RECV, OP_SEND, OP_CLOSE, OP_CANCEL };

static char bufs[CLIENTS][LEN];

static uint64_t tag(int op, int conn)
{
	return (uint64_t)op << 32 | (uint32_t)conn;
}

static void prep(struct io_uring *r, int op, int fd, int conn, int len)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	if (op == OP_ACCEPT)
		io_uring_prep_multishot_accept_direct(s, fd, NULL, NULL, 0);
	else if (op == OP_CANCEL)
		io_uring_prep_cancel64(s, tag(OP_ACCEPT, 0), 0);
	else if (op == OP_RECV)
		io_uring_prep_recv(s, fd, bufs[conn], LEN, MSG_WAITALL);
	else if (op == OP_SEND)
		io_uring_prep_send(s, fd, bufs[conn], (size_t)len, 0);
	else
		io_uring_prep_close_direct(s, (unsigned)fd);
	if (op == OP_RECV || op == OP_SEND)
		s->flags |= IOSQE_FIXED_FILE; /* fd is a slot */
	io_uring_sqe_set_data64(s, tag(op, conn));
}

/* The clients: each connects, sends MSGS messages and checks each echo. */
static int clients(const struct sockaddr_in *a)
{
	int fds[CLIENTS], bad = 0;
	char m[LEN], back[LEN];

	for (int c = 0; c < CLIENTS; c++)
		if ((fds[c] = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fds[c], (const struct sockaddr *)a, sizeof(*a)))
			return 2;
	for (int i = 0; i < MSGS; i++)
		for (int c = 0; c < CLIENTS; c++) {
			memset(m, 'a' + (i + c) % 26, LEN);
			if (write(fds[c], m, LEN) != LEN ||
			    recv(fds[c], back, LEN, MSG_WAITALL) != LEN || memcmp(m, back, LEN))
				bad++;
		}
	for (int c = 0; c < CLIENTS; c++)
		close(fds[c]);
	return bad ? 1 : 0;
}

int main(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), conns[CLIENTS], accepted = 0, echoed = 0,
	    ended = 0;
	int errors = 0, more = 0, st;
	bool accept_ended = false, cancelled = false;
	struct io_uring r;
	struct io_uring_cqe *c;
	pid_t pid;

	plan(6);
	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, CLIENTS) &&
		    !getsockname(lfd, (struct sockaddr *)&a, &alen),
		"a listener");
	is_int(io_uring_queue_init(16, &r, 0), 0, "io_uring_queue_init");
	is_int(io_uring_register_files_sparse(&r, CLIENTS), 0,
	       "a sparse table for the connections");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(clients(&a));
	prep(&r, OP_ACCEPT, lfd, 0, 0);
	io_uring_submit(&r);
	while ((ended < CLIENTS || !accept_ended || !cancelled) && !io_uring_wait_cqe(&r, &c)) {
		int op = (int)(c->user_data >> 32), conn = (int)(uint32_t)c->user_data,
		    res = c->res;
		unsigned flags = c->flags;

		io_uring_cqe_seen(&r, c);
		if (op == OP_ACCEPT && res >= 0 && (flags & IORING_CQE_F_MORE) &&
		    accepted < CLIENTS) {
			more++;
			conns[accepted] = res;
			prep(&r, OP_RECV, res, accepted, 0);
			if (++accepted == CLIENTS)
				prep(&r, OP_CANCEL, -1, 0, 0);
		} else if (op == OP_ACCEPT && res == -ECANCELED && !(flags & IORING_CQE_F_MORE)) {
			accept_ended = true;
		} else if (op == OP_CANCEL && res == 0) {
			cancelled = true;
		} else if (op == OP_RECV && res > 0) {
			prep(&r, OP_SEND, conns[conn], conn, res);
		} else if (op == OP_SEND && res > 0) {
			echoed++;
			prep(&r, OP_RECV, conns[conn], conn, 0);
		} else if (op == OP_RECV && res == 0) {
			prep(&r, OP_CLOSE, conns[conn], conn, 0);
		} else if (op == OP_CLOSE && res == 0) {
			ended++;
		} else {
			errors++;
			break;
		}
		io_uring_submit(&r);
	}
	waitpid(pid, &st, 0);
	is_int(errors, 0, "no accept, recv, send or close failed");
	is_int(echoed, CLIENTS * MSGS, "64 messages echoed through the ring");
	ok(more == CLIENTS && accept_ended && cancelled,
	   "one multishot ACCEPT: 4 CQEs with F_MORE, then ECANCELED by its cancel");
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "every client saw its own bytes back");
	io_uring_queue_exit(&r);
	close(lfd);
	return done();
}
