/*
 * recvmsg of SCM_RIGHTS fds by a process at its fd limit (RLIMIT_NOFILE):
 * as Linux, the data is delivered, as many fds as fit arrive, MSG_CTRUNC
 * says some did not and those are dropped (closed); the next read goes on
 * with the next message.  Stream and datagram.
 */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "sock_util.h"

#define LIMIT 16

/* Receives up to 3 bytes (into got) with room for 2 fds: recvmsg's result;
 * the fds that arrived in *nfds, and closed; msg_flags in *flags. */
static ssize_t recv_fds(int sock, char *got, int *nfds, int *flags)
{
	char buf[CMSG_SPACE(2 * sizeof(int))] __attribute__((aligned(8)));
	struct iovec v = {got, 3};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf)};
	ssize_t n = recvmsg(sock, &m, 0);
	struct cmsghdr *h = n < 0 ? NULL : CMSG_FIRSTHDR(&m);

	*nfds = 0;
	*flags = m.msg_flags;
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
		*nfds = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (int i = 0; i < *nfds; i++)
			close(((int *)CMSG_DATA(h))[i]);
	}
	return n;
}

/* Fills every fd below LIMIT but free ones, with RLIMIT_NOFILE at LIMIT. */
static bool leave_free(int free)
{
	struct rlimit rl = {LIMIT, LIMIT};
	int fd;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return false;
	while ((fd = dup(0)) >= 0)
		;
	if (errno != EMFILE)
		return false;
	for (fd = LIMIT - 1; free > 0; fd--, free--)
		close(fd);
	return true;
}

/*
 * In a child with `room` fds free: a message with two write ends of a
 * pipe, then a plain one.  Exits 0 when the first read gets its data, the
 * fds that fit and MSG_CTRUNC (if not both fit), and the second read the
 * next message.  The parent checks that the dropped ends were closed.
 */
static void test_limit(int type, int room)
{
	int sv[2], pp[2], ends[2];
	char got[4] = {0};

	require(socketpair(AF_UNIX, type, 0, sv) == 0 && pipe(pp) == 0, "set-up");
	ends[0] = pp[1];
	ends[1] = dup(pp[1]);
	require(send_fds(sv[0], "one", 3, ends, 2) == 3 && send_fds(sv[0], "two", 3, ends, 0) == 3,
		"sendmsg");
	close(pp[1]);
	close(ends[1]);
	close(sv[0]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int nfds, flags, want_ctrunc = room < 2 ? MSG_CTRUNC : 0;
		close(pp[0]);
		if (!leave_free(room))
			_exit(10);
		if (recv_fds(sv[1], got, &nfds, &flags) != 3 || strcmp(got, "one"))
			_exit(11);
		if (nfds != (room < 2 ? room : 2) || (flags & MSG_CTRUNC) != want_ctrunc)
			_exit(12);
		if (recv_fds(sv[1], got, &nfds, &flags) != 3 || strcmp(got, "two") || nfds)
			_exit(13);
		_exit(0);
	}
	close(sv[1]);
	int status;
	char b;
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "%s, room for %d of 2 fds: the data, %d fds%s, then the next",
	   type_name(type), room, room < 2 ? room : 2, room < 2 ? ", MSG_CTRUNC" : "");
	if (!exited_with(status, 0))
		diag("child status %#x", status);
	is_int(read(pp[0], &b, 1), 0, "%s, room for %d: no write end is left open (EOF)",
	       type_name(type), room);
	close(pp[0]);
}

int main(void)
{
	plan(2 * 2 * 3);
	for (int room = 0; room <= 2; room++) {
		test_limit(SOCK_STREAM, room);
		test_limit(SOCK_DGRAM, room);
	}
	return done();
}
