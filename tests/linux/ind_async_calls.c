/* SYSIND_ASYNC for each call that blocks, beyond ind_async's: write to a
 * full pipe, connect (and its refusal), recvfrom and recvmsg (SCM_RIGHTS
 * with NONSEQFD and CLOEXEC applied to the received fd), poll (its
 * revents in the caller's memory), accept with NONBLOCK on the new file,
 * openat with NOFOLLOW, a futex whose word differs, wait4 without a
 * child, and a nanosleep that a signal to the caller leaves alone (the
 * worker runs with every signal blocked: docs/syscall_indirect.md).
 * Each asserts the record: the token and the call's result.  On Linux
 * the calls run through ind_async.h's stand-in (a thread each), the
 * per-call flags replaced by the calls' own (SOCK_NONBLOCK,
 * MSG_CMSG_CLOEXEC, O_NOFOLLOW): the same results, Linux's. */
#define _GNU_SOURCE
#include "ind_async.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "testutil.h"

#define FUTEX_WAIT_PRIVATE 128 /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG (musl has no linux/futex.h) */

/* Whether the next record of q is token tok with result res. */
static bool rec_is(int q, long tok, long res)
{
	struct sysind_completion c = next_rec(q);

	if ((long)c.token != tok || c.result != res)
		diag("record (%ld, %ld), expected (%ld, %ld)", (long)c.token, (long)c.result, tok,
		     res);
	return (long)c.token == tok && c.result == res;
}

static void check_write(int q)
{
	static char big[4096];
	int p[2], n = 0;
	long tok;

	require(!pipe(p), "a pipe");
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], big, sizeof(big)) == (ssize_t)sizeof(big))
		n++;
	fcntl(p[1], F_SETFL, 0);
	tok = ASYNC(0, q, SYS_write, (unsigned long)p[1], (unsigned long)"xyz", 3);
	ok(tok > 0 && !readable(q, 20), "async write to a full pipe waits (%d pages in it)", n);
	while (n-- >= 0 && read(p[0], big, sizeof(big)) > 0)
		;
	ok(rec_is(q, tok, 3), "a reader makes room: its record, 3");
	close(p[0]);
	close(p[1]);
}

static int listener(struct sockaddr_in *a)
{
	socklen_t alen = sizeof(*a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)a, sizeof(*a)) && !listen(lfd, 4) &&
		    !getsockname(lfd, (struct sockaddr *)a, &alen),
		"a listener");
	return lfd;
}

static void check_connect_accept(int q)
{
	struct sockaddr_in a;
	int lfd = listener(&a), cfd = socket(AF_INET, SOCK_STREAM, 0), sfd;
	long tok;

	tok = ASYNC(0, q, SYS_connect, (unsigned long)cfd, (unsigned long)&a, sizeof(a));
	ok(rec_is(q, tok, 0), "async connect to a listener: 0");
	sfd = accept(lfd, NULL, NULL);
	ok(sfd >= 0 && write(cfd, "c", 1) == 1, "and the connection is there");
	close(sfd);
	close(cfd);

	tok = on_fdkernel() ? ASYNC(SYSIND_NONBLOCK, q, SYS_accept4, (unsigned long)lfd, 0, 0, 0)
			    : ASYNC(0, q, SYS_accept4, (unsigned long)lfd, 0, 0, SOCK_NONBLOCK);
	ok(tok > 0 && !readable(q, 20), "async accept with NONBLOCK waits for a client");
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	require(!connect(cfd, (struct sockaddr *)&a, sizeof(a)), "connect");
	struct sysind_completion c = next_rec(q);
	ok((long)c.token == tok && c.result >= 0 && (fcntl((int)c.result, F_GETFL) & O_NONBLOCK),
	   "its fd's file is O_NONBLOCK (NONBLOCK reaches the file it creates)");
	close((int)c.result);
	close(cfd);
	close(lfd);

	cfd = socket(AF_INET, SOCK_STREAM, 0);
	tok = ASYNC(0, q, SYS_connect, (unsigned long)cfd, (unsigned long)&a, sizeof(a));
	ok(rec_is(q, tok, -ECONNREFUSED), "async connect to a closed port: ECONNREFUSED");
	close(cfd);
}

static void check_recv(int q)
{
	int sv[2], p[2];
	char buf[16] = {0}, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	long tok;

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv) && !pipe(p), "a socket pair, a pipe");
	tok = ASYNC(0, q, SYS_recvfrom, (unsigned long)sv[0], (unsigned long)buf, sizeof(buf), 0, 0,
		    0);
	ok(tok > 0 && !readable(q, 20), "async recvfrom of an empty socket waits");
	is_int(send(sv[1], "ping", 4, 0), 4, "the peer sends");
	ok(rec_is(q, tok, 4) && !memcmp(buf, "ping", 4), "its record: 4, the bytes in the buffer");

	tok = on_fdkernel() ? ASYNC(SYSIND_NONSEQFD | SYSIND_CLOEXEC, q, SYS_recvmsg,
				    (unsigned long)sv[0], (unsigned long)&m, 0)
			    : ASYNC(0, q, SYS_recvmsg, (unsigned long)sv[0], (unsigned long)&m,
				    MSG_CMSG_CLOEXEC);
	ok(tok > 0 && !readable(q, 20), "async recvmsg waits");
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} out;
	struct msghdr sm = {.msg_iov = &(struct iovec){"f", 1},
			    .msg_iovlen = 1,
			    .msg_control = out.b,
			    .msg_controllen = sizeof(out.b)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&sm);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &p[0], sizeof(int));
	is_int(sendmsg(sv[1], &sm, 0), 1, "the peer sends a pipe's fd");
	ok(rec_is(q, tok, 1), "its record: 1 byte");
	h = CMSG_FIRSTHDR(&m);
	int fd = -1;
	if (h && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	ok((fd >= NONSEQ_FD_BASE || !on_fdkernel()) && fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
	   "the fd received is non-sequential (fdkernel) and close-on-exec (%d)", fd);
	close(fd);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void check_poll(int q)
{
	int p[2];
	struct pollfd pf[1];
	long tok;

	require(!pipe(p), "a pipe");
	pf[0] = (struct pollfd){.fd = p[0], .events = POLLIN};
	tok = ASYNC(0, q, SYS_poll, (unsigned long)pf, 1, (unsigned long)-1);
	ok(tok > 0 && !readable(q, 20), "async poll of an empty pipe waits");
	is_int(write(p[1], "x", 1), 1, "a writer comes");
	ok(rec_is(q, tok, 1) && pf[0].revents == POLLIN,
	   "its record: 1, POLLIN in the caller's array");
	pf[0] = (struct pollfd){.fd = p[1], .events = POLLIN};
	tok = ASYNC(0, q, SYS_poll, (unsigned long)pf, 1, 10);
	ok(rec_is(q, tok, 0) && pf[0].revents == 0, "a poll timing out after 10 ms: 0");
	close(p[0]);
	close(p[1]);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void check_misc(int q)
{
	static int word = 1;
	long tok;

	tok = ASYNC(0, q, SYS_futex, (unsigned long)&word, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
	ok(rec_is(q, tok, -EAGAIN), "async FUTEX_WAIT on a word that differs: EAGAIN");
	tok = ASYNC(0, q, SYS_wait4, (unsigned long)-1, 0, 0, 0);
	ok(rec_is(q, tok, -ECHILD), "async wait4 without a child: ECHILD");

	require(!symlink("/nonexistent-target", "/tmp/ind_async_calls.lnk") || errno == EEXIST,
		"a symbolic link");
	tok = on_fdkernel()
		  ? ASYNC(SYSIND_NOFOLLOW, q, SYS_openat, (unsigned long)AT_FDCWD,
			  (unsigned long)"/tmp/ind_async_calls.lnk", O_RDONLY, 0)
		  : ASYNC(0, q, SYS_openat, (unsigned long)AT_FDCWD,
			  (unsigned long)"/tmp/ind_async_calls.lnk", O_RDONLY | O_NOFOLLOW, 0);
	ok(rec_is(q, tok, -ELOOP), "async openat with NOFOLLOW of a link: ELOOP");
	unlink("/tmp/ind_async_calls.lnk");

	struct sigaction sa = {.sa_handler = on_usr1};
	sigaction(SIGUSR1, &sa, NULL);
	tok = ASYNC(0, q, SYS_nanosleep, (unsigned long)&(struct timespec){0, 50000000}, 0);
	kill(getpid(), SIGUSR1);
	ok(got_usr1, "the caller takes its signal while an async nanosleep runs");
	ok(rec_is(q, tok, 0), "the sleep is not interrupted: 0");
	signal(SIGUSR1, SIG_DFL);
}

int main(void)
{
	int q;

	plan(24);
	q = async_queue(O_CLOEXEC);
	require(q >= 0, "a queue");
	check_write(q);
	check_connect_accept(q);
	check_recv(q);
	check_poll(q);
	check_misc(q);
	ok(!readable(q, 0), "no record left");
	close(q);
	return done();
}
