/*
 * epoll lifetimes (Linux's rule: an item lives as long as the open file
 * description, not the fd number) and teardown in hostile orders: a dup'ed
 * fd closed, one file in several interest lists, the epoll closed with
 * items and while another process sleeps in epoll_wait on it, the watched
 * file closed under a sleeper, an epoll fd passed with SCM_RIGHTS (and
 * left in flight), and epoll watching epoll (readiness, ELOOP, the depth
 * limit, either closed first).  /proc/kstat shows nothing left behind.
 */
#include "epoll_util.h"
#include "robust.h"
#include "sock_util.h"

#include <signal.h>

/* Receives one byte and one fd over sock: the fd or -1. */
static int recv_fd(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	char c;
	struct iovec v = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof(ctl)};
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || m.msg_controllen < CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(&ctl.h), sizeof(fd));
	return fd;
}

static void check_dup(void)
{
	int ep = epoll_create1(0), p[2], d, fd = -1;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	d = dup(p[0]);
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	write(p[1], "x", 1);
	close(p[0]);
	is_int(ep_wait1(ep, 0, &fd), EPOLLIN, "dup: closing the registered fd keeps the item");
	is_int(fd, p[0], "dup: the event still carries the closed fd's data");
	is_errno(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), EBADF,
		 "dup: DEL by the closed fd: EBADF");
	is_errno(epoll_ctl(ep, EPOLL_CTL_DEL, d, NULL), ENOENT,
		 "dup: DEL by the dup: ENOENT (the key is the file and the fd)");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, d, EPOLLIN) == 0,
	   "dup: the same file under the dup is a new item");
	is_int(ep_count(ep), 2, "dup: both items report");
	close(d);
	is_int(ep_count(ep), 0, "dup: the last close removed both");
	close(p[1]);
	close(ep);
}

static void check_many_lists(void)
{
	int ep[3], p[2];

	require(pipe(p) == 0, "pipe");
	for (int i = 0; i < 3; i++) {
		ep[i] = epoll_create1(0);
		require(ep[i] >= 0, "epoll_create1");
		ep_ctl(ep[i], EPOLL_CTL_ADD, p[0], EPOLLIN);
		ep_ctl(ep[i], EPOLL_CTL_ADD, p[1], EPOLLOUT);
	}
	write(p[1], "x", 1);
	is_int(ep_count(ep[0]) + ep_count(ep[1]) + ep_count(ep[2]), 6, "3 lists x 2 ends ready");
	close(p[0]);
	is_int(ep_wait1(ep[1], 0, NULL), EPOLLOUT | EPOLLERR,
	       "read end closed: gone from every list, the write end sees EPOLLERR");
	close(ep[1]); /* an epoll closed with an item */
	close(p[1]);
	is_int(ep_count(ep[0]) + ep_count(ep[2]), 0, "both ends closed: the other lists are empty");
	close(ep[0]);
	close(ep[2]);
}

/* A child sleeps in epoll_wait on the shared epoll; the parent closes its
 * epoll fd, then wakes the child with a write. */
static void check_close_under_sleeper(void)
{
	int ep = epoll_create1(0), p[2], go[2];
	char c;
	pid_t pid;

	require(ep >= 0 && pipe(p) == 0 && pipe(go) == 0, "set-up");
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		write(go[1], "r", 1);
		_exit(ep_wait1(ep, 5000, NULL) == EPOLLIN ? 0 : 1);
	}
	read(go[0], &c, 1);
	sleep_ms(30);
	close(ep);
	write(p[1], "x", 1);
	ok(child_ok(pid), "epoll fd closed by the parent: the sleeping child still gets EPOLLIN");

	/* The watched file's last fd closed while a child sleeps on it. */
	ep = epoll_create1(0);
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	read(p[0], &c, 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]); /* the parent's fd is the last one */
		write(go[1], "r", 1);
		_exit(ep_wait1(ep, 300, NULL) == 0 ? 0 : 1);
	}
	read(go[0], &c, 1);
	sleep_ms(30);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	is_errno(write(p[1], "y", 1), EPIPE, "the last read end is gone (the item holds none)");
	signal(SIGPIPE, SIG_DFL);
	ok(child_ok(pid), "watched file released under a sleeper: it times out, no event");
	close(p[1]);
	close(go[0]);
	close(go[1]);
	close(ep);
}

static void check_scm(void)
{
	int ep = epoll_create1(0), p[2], sv[2], got, fd = -1;

	require(ep >= 0 && pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "set-up");
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	is_int(send_fds(sv[0], "e", 1, &ep, 1), 1, "SCM_RIGHTS: send an epoll fd");
	close(ep);
	got = recv_fd(sv[1]);
	ok(got >= 0, "SCM_RIGHTS: received it");
	write(p[1], "x", 1);
	is_int(ep_wait1(got, 0, &fd), EPOLLIN, "SCM_RIGHTS: the items came with it");
	is_int(fd, p[0], "SCM_RIGHTS: with their data");
	/* Left in flight in the socket it watches: freed with the socket (the
	 * item holds no reference, so this is no cycle). */
	ok(ep_ctl(got, EPOLL_CTL_ADD, sv[1], EPOLLIN) == 0, "SCM_RIGHTS: it watches the receiver");
	is_int(send_fds(sv[0], "e", 1, &got, 1), 1, "SCM_RIGHTS: send it into that socket");
	is_int(ep_wait1(got, 0, &fd), EPOLLIN, "SCM_RIGHTS: which is now readable");
	close(got);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void check_nested(void)
{
	int outer = epoll_create1(0), inner = epoll_create1(0), p[2], fd = -1;
	char c;

	require(outer >= 0 && inner >= 0 && pipe(p) == 0, "set-up");
	ok(ep_ctl(outer, EPOLL_CTL_ADD, inner, EPOLLIN) == 0, "nested: ADD an epoll to an epoll");
	ep_ctl(inner, EPOLL_CTL_ADD, p[0], EPOLLIN);
	is_int(ep_wait1(outer, 0, NULL), 0, "nested: inner empty: outer not ready");
	write(p[1], "x", 1);
	is_int(ep_wait1(outer, 0, &fd), EPOLLIN, "nested: inner ready: outer EPOLLIN");
	is_int(fd, inner, "nested: for the inner epoll");
	read(p[0], &c, 1);
	is_int(ep_wait1(outer, 0, NULL), 0, "nested: drained: outer not ready (re-checked)");
	is_errno(ep_ctl(inner, EPOLL_CTL_ADD, outer, EPOLLIN), ELOOP, "nested: a loop: ELOOP");
	write(p[1], "y", 1);
	is_int(ep_wait1(outer, 1000, NULL), EPOLLIN, "nested: a later write wakes the outer");
	close(inner);
	is_int(ep_wait1(outer, 0, NULL), 0, "nested: inner closed: gone from the outer");
	inner = epoll_create1(0);
	ep_ctl(outer, EPOLL_CTL_ADD, inner, EPOLLIN);
	ep_ctl(inner, EPOLL_CTL_ADD, p[0], EPOLLIN);
	close(outer); /* outer first, then inner with its item */
	is_int(ep_wait1(inner, 0, NULL), EPOLLIN, "nested: outer closed first: inner still works");
	close(inner);
	close(p[0]);
	close(p[1]);
}

/* A chain e[0] watched by e[1] ... : Linux allows 4 links (5 epolls). */
static void check_depth(void)
{
	int e[7], up = -1, loop3;

	for (int i = 0; i < 7; i++)
		require((e[i] = epoll_create1(0)) >= 0, "epoll_create1");
	for (int i = 1; i < 7; i++)
		if (ep_ctl(e[i], EPOLL_CTL_ADD, e[i - 1], EPOLLIN) < 0) {
			up = errno == ELOOP ? i : -1;
			break;
		}
	is_int(up, 5, "depth: growing a chain upwards: the 5th link is ELOOP");
	for (int i = 0; i < 7; i++)
		close(e[i]);
	for (int i = 0; i < 7; i++)
		require((e[i] = epoll_create1(0)) >= 0, "epoll_create1");
	up = -1;
	for (int i = 5; i >= 0; i--)
		if (ep_ctl(e[i + 1], EPOLL_CTL_ADD, e[i], EPOLLIN) < 0) {
			up = errno == ELOOP ? i : -1;
			break;
		}
	is_int(up, 1, "depth: growing it downwards: the 5th link is ELOOP too");
	/* A longer loop: e[3] -> e[4] -> e[5], then e[5] watching e[3]. */
	loop3 = ep_ctl(e[3], EPOLL_CTL_ADD, e[6], EPOLLIN);
	is_errno(loop3, ELOOP, "a 4-epoll loop: ELOOP");
	for (int i = 0; i < 7; i++)
		close(e[i]);
}

int main(void)
{
	struct kstat before;
	bool have = kstat_read(&before);

	plan(33);
	check_dup();
	check_many_lists();
	check_close_under_sleeper();
	check_scm();
	check_nested();
	check_depth();
	kstat_unchanged(&before, have, "nothing left: files, sockets, epoll watches");
	return done();
}
