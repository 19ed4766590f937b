/*
 * A datagram receiver's queue is bounded by what its messages cost, not by
 * their bytes alone: empty datagrams, with or without SCM_RIGHTS fds, fill
 * it, the non-blocking sender gets EAGAIN, and the kernel heap grows by a
 * bounded amount (checked through /proc/kstat on fdkernel).
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include "robust.h"
#include "sock_util.h"

#define CAP	 20000	      /* sends tried before calling the queue unbounded */
#define HEAP_MAX (512 * 1024) /* kernel heap a full default queue may take */

/* Sends empty datagrams (carrying fd unless -1) until one fails: how many
 * went; the failure's errno in *err. */
static int fill(int sock, int fd, int *err)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr m = {.msg_control = fd >= 0 ? &ctl : NULL,
			   .msg_controllen = fd >= 0 ? sizeof(ctl.buf) : 0};
	int n = 0;

	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(&ctl.h), &fd, sizeof(int));
	*err = 0;
	while (n < CAP) {
		if (sendmsg(sock, &m, MSG_DONTWAIT) < 0) {
			*err = errno;
			break;
		}
		n++;
	}
	return n;
}

static void test_fill(const char *what, bool with_fd)
{
	struct kstat before, full;
	bool have = kstat_read(&before);
	int sv[2], err, null = open("/dev/null", O_RDONLY);

	require(null >= 0 && socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	int n = fill(sv[0], with_fd ? null : -1, &err);
	ok(n > 0 && n < CAP && err == EAGAIN, "%s: EAGAIN after a bounded number of sends (%d)",
	   what, n);
	if (have && kstat_read(&full))
		ok(full.v[KS_HEAP_BYTES] - before.v[KS_HEAP_BYTES] < HEAP_MAX,
		   "%s: kernel heap grew by %ld bytes", what,
		   full.v[KS_HEAP_BYTES] - before.v[KS_HEAP_BYTES]);
	else
		skip("no " KSTAT_PATH, "kernel heap growth");

	char b;
	ok(recv(sv[1], &b, 1, MSG_DONTWAIT) == 0 && send(sv[0], "", 0, MSG_DONTWAIT) == 0,
	   "%s: reading one makes room for one", what);
	close(sv[0]);
	close(sv[1]);
	close(null);
	kstat_unchanged(&before, have, "closing the pair frees the queue and its fds");
}

/* A blocking sender of empty datagrams waits for the reader. */
static void test_block(void)
{
	int sv[2], err;

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	int n = fill(sv[0], -1, &err);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(send(sv[0], "", 0, 0) == 0 ? 0 : 1);
	sleep_ms(50);
	int status;
	ok(waitpid(pid, &status, WNOHANG) == 0, "a blocking sender to a full queue waits");
	char b;
	for (int i = 0; i < n; i++)
		recv(sv[1], &b, 1, 0);
	ok(child_ok(pid), "... and sends once the reader drained the queue");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(2 * 4 + 2);
	test_fill("empty datagrams", false);
	test_fill("empty datagrams with an fd", true);
	test_block();
	return done();
}
