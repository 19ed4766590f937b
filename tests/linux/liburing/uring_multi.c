/* io_uring's multishot requests on Debian's liburing.  A multishot
 * POLL_ADD posts a CQE with IORING_CQE_F_MORE each time its file becomes
 * ready (once at once if it is ready when armed) and stays armed until a
 * POLL_REMOVE ends it (-ECANCELED, no F_MORE); POLL_REMOVE's update
 * form changes its user_data and its events (the wait starts again).  A multishot ACCEPT posts one
 * CQE with F_MORE per connection until ASYNC_CANCEL ends it; with IORING_FILE_INDEX_ALLOC each CQE
 * is the direct descriptor it took.  Bad flags fail in the CQE; rings closed and processes exiting
 * with multishot requests armed leave nothing. */
#define _GNU_SOURCE
#include <liburing.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_child.h"
#include "uring_run1.h"

static struct io_uring r;

static bool more(const struct io_uring_cqe *c)
{
	return (c->flags & IORING_CQE_F_MORE) != 0;
}

static void poll_multi(int fd, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_poll_multishot(s, fd, POLLIN);
	io_uring_sqe_set_data64(s, data);
}

/* Submits a POLL_REMOVE (or an ASYNC_CANCEL: cancel) of target as
 * user_data 99 and reaps both ends: the target's CQE into *t, the
 * remove's res returned (-9999 if the CQEs are not those). */
static int end_it(uint64_t target, bool cancel, struct io_uring_cqe *t)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);
	struct io_uring_cqe c[2];
	int rm = -9999;

	if (cancel)
		io_uring_prep_cancel64(s, target, 0);
	else
		io_uring_prep_poll_remove(s, target);
	io_uring_sqe_set_data64(s, 99);
	io_uring_submit(&r);
	if (next_cqe(&r, &c[0]) || next_cqe(&r, &c[1]))
		return rm;
	for (int i = 0; i < 2; i++) {
		if (c[i].user_data == 99)
			rm = c[i].res;
		else if (c[i].user_data == target)
			*t = c[i];
	}
	return rm;
}

static void check_poll(int p0, int p1)
{
	struct io_uring_cqe c, t = {0};
	char b;
	int fires = 0;

	poll_multi(p0, 1);
	io_uring_submit(&r);
	is_int(io_uring_peek_cqe(&r, &(struct io_uring_cqe *){0}), -EAGAIN,
	       "a multishot POLL_ADD of an empty pipe: no CQE");
	for (int i = 0; i < 3; i++) {
		if (write(p1, "x", 1) != 1 || next_cqe(&r, &c))
			break;
		fires += c.user_data == 1 && (c.res & POLLIN) && more(&c);
		if (read(p0, &b, 1) != 1)
			break;
	}
	is_int(fires, 3, "three writes: three CQEs with POLLIN and F_MORE");
	is_int(end_it(1, false, &t), 0, "POLL_REMOVE of it: 0");
	ok(t.user_data == 1 && t.res == -ECANCELED && !more(&t),
	   "the multishot poll ends: ECANCELED, no F_MORE");

	is_int(write(p1, "y", 1), 1, "the pipe readable before the arming");
	poll_multi(p0, 2);
	io_uring_submit(&r);
	ok(!next_cqe(&r, &c) && c.user_data == 2 && (c.res & POLLIN) && more(&c),
	   "armed on a ready pipe: a CQE at once, F_MORE");
	is_int(read(p0, &b, 1), 1, "the byte read");
	is_int(end_it(2, true, &t), 0, "ASYNC_CANCEL of the multishot poll: 0");
	ok(t.res == -ECANCELED && !more(&t), "it ends ECANCELED");
}

static void check_poll_update(int p0, int p1)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe c, t = {0};
	char b;

	poll_multi(p0, 3);
	io_uring_submit(&r);
	s = io_uring_get_sqe(&r);
	io_uring_prep_poll_update(s, 3, 4, 0, IORING_POLL_UPDATE_USER_DATA);
	io_uring_sqe_set_data64(s, 5);
	io_uring_submit(&r);
	ok(!next_cqe(&r, &c) && c.user_data == 5 && c.res == 0,
	   "POLL_REMOVE updating user_data: 0");
	is_int(write(p1, "z", 1), 1, "a write");
	ok(!next_cqe(&r, &c) && c.user_data == 4 && (c.res & POLLIN) && more(&c),
	   "the poll's next CQE carries the new user_data");
	is_int(read(p0, &b, 1), 1, "the byte read");
	is_int(end_it(4, false, &t), 0, "POLL_REMOVE by the new user_data: 0");
	ok(t.res == -ECANCELED && !more(&t), "it ends ECANCELED");
}

/* POLL_REMOVE's UPDATE_EVENTS: a poll armed for POLLPRI, which a pipe
 * never raises, fires once its events are updated to POLLIN; one shot,
 * and multishot (which stays armed). */
static void check_poll_events(int p0, int p1)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe c, t = {0};
	char b;

	io_uring_prep_poll_add(s = io_uring_get_sqe(&r), p0, POLLPRI);
	io_uring_sqe_set_data64(s, 30);
	io_uring_submit(&r);
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 30, 0, POLLIN,
				  IORING_POLL_UPDATE_EVENTS);
	io_uring_sqe_set_data64(s, 31);
	io_uring_submit(&r);
	ok(!next_cqe(&r, &c) && c.user_data == 31 && c.res == 0, "POLL_REMOVE updating events: 0");
	is_int(write(p1, "e", 1), 1, "a write");
	ok(!next_cqe(&r, &c) && c.user_data == 30 && c.res == POLLIN && !more(&c),
	   "the one-shot poll fires for its new events: POLLIN");
	is_int(read(p0, &b, 1), 1, "the byte read");

	io_uring_prep_poll_multishot(s = io_uring_get_sqe(&r), p0, POLLPRI);
	io_uring_sqe_set_data64(s, 32);
	io_uring_submit(&r);
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 32, 33, POLLIN,
				  IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA |
				      IORING_POLL_ADD_MULTI);
	io_uring_sqe_set_data64(s, 34);
	io_uring_submit(&r);
	ok(!next_cqe(&r, &c) && c.user_data == 34 && c.res == 0,
	   "a multishot poll's events and user_data updated: 0");
	for (int i = 0; i < 2; i++) {
		is_int(write(p1, "f", 1), 1, "a write");
		ok(!next_cqe(&r, &c) && c.user_data == 33 && (c.res & POLLIN) && more(&c),
		   "a CQE with the new user_data, POLLIN, F_MORE");
		is_int(read(p0, &b, 1), 1, "the byte read");
	}
	is_int(end_it(33, false, &t), 0, "POLL_REMOVE of it: 0");
	ok(t.res == -ECANCELED && !more(&t), "it ends ECANCELED");
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 12345, 0, POLLIN,
				  IORING_POLL_UPDATE_EVENTS);
	io_uring_sqe_set_data64(s, 35);
	io_uring_submit(&r);
	ok(!next_cqe(&r, &c) && c.res == -ENOENT, "updating the events of no poll: ENOENT");
}

static int submit1(struct io_uring_sqe *s)
{
	struct io_uring_cqe c;

	io_uring_sqe_set_data64(s, 7);
	io_uring_submit(&r);
	return next_cqe(&r, &c) ? -9999 : c.res;
}

static void check_bad(int p0, int lfd)
{
	struct io_uring_sqe *s;

	io_uring_prep_poll_add(s = io_uring_get_sqe(&r), p0, POLLIN);
	s->len = 1U << 4;
	is_int(submit1(s), -EINVAL, "POLL_ADD with an unknown flag: EINVAL");
	io_uring_prep_poll_multishot(s = io_uring_get_sqe(&r), p0, POLLIN);
	s->len |= IORING_POLL_ADD_LEVEL;
	is_int(submit1(s), -EINVAL, "POLL_ADD with IORING_POLL_ADD_LEVEL: EINVAL, as Linux's");
	io_uring_prep_poll_multishot(s = io_uring_get_sqe(&r), p0, POLLIN);
	io_uring_sqe_set_flags(s, IOSQE_CQE_SKIP_SUCCESS);
	is_int(submit1(s), -EINVAL, "multishot POLL_ADD with CQE_SKIP_SUCCESS: EINVAL");
	io_uring_prep_poll_remove(s = io_uring_get_sqe(&r), 12345);
	s->len = IORING_POLL_ADD_MULTI;
	is_int(submit1(s), -EINVAL, "POLL_REMOVE with ADD_MULTI alone: EINVAL");
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 12345, 0, POLLIN,
				  IORING_POLL_UPDATE_USER_DATA);
	is_int(submit1(s), -EINVAL, "POLL_REMOVE with events but no UPDATE_EVENTS: EINVAL");
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 12345, 6, 0, 0);
	is_int(submit1(s), -EINVAL, "POLL_REMOVE with off but no UPDATE_USER_DATA: EINVAL");
	io_uring_prep_poll_update(s = io_uring_get_sqe(&r), 12345, 6, 0,
				  IORING_POLL_UPDATE_USER_DATA);
	is_int(submit1(s), -ENOENT, "POLL_REMOVE updating nothing: ENOENT");
	io_uring_prep_poll_remove(s = io_uring_get_sqe(&r), 12345);
	is_int(submit1(s), -ENOENT, "POLL_REMOVE of nothing: ENOENT");
	io_uring_prep_multishot_accept(s = io_uring_get_sqe(&r), lfd, NULL, NULL, 0);
	s->ioprio |= 1U << 5;
	is_int(submit1(s), -EINVAL, "ACCEPT with an unknown ioprio flag: EINVAL");
}

static void check_accept(int lfd, const struct sockaddr_in *a)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);
	struct io_uring_cqe c, t = {0};
	struct sockaddr_in peer;
	int cl[3], got = 0;

	io_uring_prep_multishot_accept(s, lfd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(s, 10);
	io_uring_submit(&r);
	for (int i = 0; i < 3; i++) {
		socklen_t len = sizeof(peer);

		cl[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (cl[i] < 0 || connect(cl[i], (const struct sockaddr *)a, sizeof(*a)) ||
		    next_cqe(&r, &c))
			break;
		got += c.user_data == 10 && c.res >= 0 && more(&c) &&
		       !getpeername(c.res, (struct sockaddr *)&peer, &len) &&
		       (fcntl(c.res, F_GETFD) & FD_CLOEXEC);
		close(c.res);
		close(cl[i]);
	}
	is_int(got, 3, "three connections: three accepted sockets (close-on-exec), F_MORE");
	is_int(end_it(10, true, &t), 0, "ASYNC_CANCEL of the multishot ACCEPT: 0");
	ok(t.res == -ECANCELED && !more(&t), "it ends ECANCELED, no F_MORE");
}

/* Multishot ACCEPT into direct descriptors (IORING_FILE_INDEX_ALLOC):
 * each connection's CQE is the free slot it took, F_MORE; once the
 * table is full the next connection ends it with ENFILE. */
static void check_accept_direct(int lfd, const struct sockaddr_in *a)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe c;
	int cl[3], slots[2] = {-1, -1}, got = 0, fd = lfd;
	char buf[2] = {0};

	is_int(io_uring_register_files_sparse(&r, 2), 0, "a sparse table of 2");
	io_uring_prep_multishot_accept(s = io_uring_get_sqe(&r), lfd, NULL, NULL, 0);
	__io_uring_set_target_fixed_file(s, 0);
	is_int(submit1(s), -EINVAL, "multishot ACCEPT into slot 0 (not ALLOC): EINVAL");
	io_uring_prep_multishot_accept_direct(s = io_uring_get_sqe(&r), fd, NULL, NULL, 0);
	io_uring_sqe_set_data64(s, 20);
	io_uring_submit(&r);
	for (int i = 0; i < 3; i++) {
		cl[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (cl[i] < 0 || connect(cl[i], (const struct sockaddr *)a, sizeof(*a)) ||
		    next_cqe(&r, &c))
			break;
		if (i < 2 && c.user_data == 20 && c.res >= 0 && c.res < 2 && more(&c))
			slots[got++] = c.res;
		else if (i == 2)
			ok(c.user_data == 20 && c.res == -ENFILE && !more(&c),
			   "the third connection, no slot free: ENFILE ends it (%d)", c.res);
	}
	ok(got == 2 && slots[0] != slots[1], "two connections: slots 0 and 1, F_MORE (%d %d)",
	   slots[0], slots[1]);
	is_int(write(cl[1], "d", 1), 1, "the second client writes");
	io_uring_prep_recv(s = io_uring_get_sqe(&r), slots[1], buf, 1, 0);
	s->flags |= IOSQE_FIXED_FILE;
	ok(submit1(s) == 1 && buf[0] == 'd', "a fixed RECV on its slot reads it");
	is_int(io_uring_unregister_files(&r), 0, "unregistered");
	for (int i = 0; i < 3; i++)
		close(cl[i]);
}

/* The teardown child's requests: a multishot poll of a pipe nobody
 * writes and a multishot accept of the listener lfd. */
static int arm_multi(struct io_uring *c, int lfd)
{
	int p[2];

	if (pipe(p))
		return -1;
	io_uring_prep_poll_multishot(io_uring_get_sqe(c), p[0], POLLIN);
	io_uring_prep_multishot_accept(io_uring_get_sqe(c), lfd, NULL, NULL, 0);
	return 2;
}

int main(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int p[2], lfd = socket(AF_INET, SOCK_STREAM, 0);

	plan(51);
	require(!pipe(p), "a pipe");
	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 8) &&
		    !getsockname(lfd, (struct sockaddr *)&a, &alen),
		"a listener");
	is_int(io_uring_queue_init(16, &r, 0), 0, "io_uring_queue_init");
	check_poll(p[0], p[1]);
	check_poll_update(p[0], p[1]);
	check_poll_events(p[0], p[1]);
	check_bad(p[0], lfd);
	check_accept(lfd, &a);
	check_accept_direct(lfd, &a);
	is_int(uring_child(true, arm_multi, lfd), 0, "a ring closed with multishot requests armed");
	is_int(uring_child(false, arm_multi, lfd), 0, "an exit with multishot requests armed");
	io_uring_queue_exit(&r);
	return done();
}
