/* The price of syscall_indirect(): getpid through it (compare with the
 * getpid row of bench_getpid, measured the same way), and
 * socket2(O_NONSEQFD|O_CLOEXEC)+close against socket+F_SETFD+close, in ns
 * per call.  On Linux the fdkernel-only rows are reported as skipped. */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "indirect.h"

#define CALLS	20000
#define SOCKETS 2000
#define REPS	11

static double getpid_indirect_rep(const char *name, void *arg)
{
	static const unsigned long args[6];
	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < CALLS; i++)
		if (syscall(__NR_syscall_indirect, 0, 0, __NR_getpid, args) < 0) {
			bench_fail(name, "syscall_indirect(getpid): %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

static double socket_fcntl_rep(const char *name, void *arg)
{
	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < SOCKETS; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			bench_fail(name, "socket+fcntl: %s", strerror(errno));
			return -1;
		}
		close(fd);
	}
	return bench_ns_per_op(start, SOCKETS);
}

static double socket2_rep(const char *name, void *arg)
{
	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < SOCKETS; i++) {
		int fd = socket2(AF_UNIX, SOCK_STREAM, 0, O_NONSEQFD | O_CLOEXEC);
		if (fd < 0) {
			bench_fail(name, "socket2: %s", strerror(errno));
			return -1;
		}
		close(fd);
	}
	return bench_ns_per_op(start, SOCKETS);
}

/* Row NAME measured by ONE_REP where the kernel has the new calls. */
static void fdkernel_row(const char *name, double (*one_rep)(const char *, void *))
{
	if (indirect_available())
		bench_row(name, "ns", REPS, one_rep, NULL);
	else
		bench_skip(name, "fdkernel only (ENOSYS here)");
}

int main(void)
{
	bench_begin("bench_indirect", "getpid_indirect,socket_fcntl_close,socket2_close");
	fdkernel_row("getpid_indirect", getpid_indirect_rep);
	bench_row("socket_fcntl_close", "ns", REPS, socket_fcntl_rep, NULL);
	fdkernel_row("socket2_close", socket2_rep);
	return bench_end();
}
