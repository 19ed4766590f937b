/* syscall_indirect() fd flags on every fd-creating call: NONSEQFD puts the
 * fds at or above 2^30, CLOEXEC/CLOFORK show in F_GETFD, NONBLOCK in
 * F_GETFL; calls without fds accept the flags; the flags do not stick. */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "indirect.h"
#include "sock_util.h"
#include "tap.h"

#define DUP2_TARGET 100

/* One fd-creating call: MAKE runs it through syscall_indirect with FLAGS and
 * stores the new fds; returns how many (or -1).  BASE is the F_GETFD value
 * the call gives by itself; EXPLICIT: the target fd is the caller's. */
struct maker {
	const char *name;
	int (*make)(unsigned long flags, int fds[2]);
	int base;
	bool explicit;
};

static int one(long fd, int fds[2])
{
	fds[0] = (int)fd;
	return fd < 0 ? -1 : 1;
}

static int null_fd(void)
{
	return open("/dev/null", O_RDONLY);
}

static int make_open(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_open, (unsigned long)"/dev/null", 0), fds);
}

static int make_openat(unsigned long flags, int fds[2])
{
	return one(
	    IND(flags, __NR_openat, (unsigned long)UAPI_AT_FDCWD, (unsigned long)"/dev/null"), fds);
}

static int make_openat2(unsigned long flags, int fds[2])
{
	struct open_how how = {0, 0, 0};

	return one(IND(flags, __NR_openat2, (unsigned long)UAPI_AT_FDCWD,
		       (unsigned long)"/dev/null", (unsigned long)&how, sizeof how),
		   fds);
}

static int make_creat(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_creat, (unsigned long)"/dev/null", 0666), fds);
}

/* Runs dup-like call NR on a fresh plain fd with A1 and A2, then closes it. */
static int dup_of_fresh(unsigned long flags, int nr, unsigned long a1, unsigned long a2, int fds[2])
{
	int src = null_fd();
	long fd = IND(flags, nr, (unsigned long)src, a1, a2);

	close(src);
	return one(fd, fds);
}

static int make_dup(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_dup, 0, 0, fds);
}

static int make_dupfd(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_fcntl, F_DUPFD, 0, fds);
}

static int make_dupfd_cloexec(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_fcntl, UAPI_F_DUPFD_CLOEXEC, 0, fds);
}

static int make_dupfd_clofork(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_fcntl, F_DUPFD_CLOFORK, 0, fds);
}

static int make_dup2(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_dup2, DUP2_TARGET, 0, fds);
}

static int make_dup3(unsigned long flags, int fds[2])
{
	return dup_of_fresh(flags, __NR_dup3, DUP2_TARGET, 0, fds);
}

static int make_pipe(unsigned long flags, int fds[2])
{
	return IND(flags, __NR_pipe, (unsigned long)fds) < 0 ? -1 : 2;
}

static int make_pipe2(unsigned long flags, int fds[2])
{
	return IND(flags, __NR_pipe2, (unsigned long)fds, 0) < 0 ? -1 : 2;
}

static int make_socket(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_socket, AF_UNIX, SOCK_STREAM, 0), fds);
}

static int make_socketpair(unsigned long flags, int fds[2])
{
	return IND(flags, __NR_socketpair, AF_UNIX, SOCK_STREAM, 0, (unsigned long)fds) < 0 ? -1
											    : 2;
}

static int make_epoll_create(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_epoll_create, 1), fds);
}

static int make_epoll_create1(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_epoll_create1, 0), fds);
}

static uint64_t usr1_mask = 1UL << (10 - 1); /* Linux's SIGUSR1 */

static int make_signalfd(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_signalfd, -1UL, (unsigned long)&usr1_mask, 8), fds);
}

static int make_signalfd4(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_signalfd4, -1UL, (unsigned long)&usr1_mask, 8, 0), fds);
}

/* accept (NR) of a connection queued on a fresh AF_UNIX listener. */
static int accept_queued(unsigned long flags, int nr, int fds[2])
{
	struct saddr a;
	int lfd = sock_server(AF_UNIX, SOCK_STREAM, "ind", &a);
	int cfd = lfd < 0 ? -1 : sock_client(AF_UNIX, SOCK_STREAM, &a);
	long fd = cfd < 0 ? -1 : IND(flags, nr, (unsigned long)lfd, 0, 0, 0);

	close(cfd);
	close(lfd);
	saddr_drop(&a);
	return one(fd, fds);
}

static int make_accept(unsigned long flags, int fds[2])
{
	return accept_queued(flags, __NR_accept, fds);
}

static int make_accept4(unsigned long flags, int fds[2])
{
	return accept_queued(flags, __NR_accept4, fds);
}

/* Sends FD over socket S with SCM_RIGHTS. */
static bool send_fd(int s, int fd)
{
	char byte = 'f', ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {&byte, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(s, &m, 0) == 1;
}

static int make_recvmsg(unsigned long flags, int fds[2])
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	int sv[2], passed = null_fd(), n = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	if (send_fd(sv[0], passed) &&
	    IND(flags, __NR_recvmsg, (unsigned long)sv[1], (unsigned long)&m, 0) == 1 &&
	    CMSG_FIRSTHDR(&m) && CMSG_FIRSTHDR(&m)->cmsg_type == SCM_RIGHTS) {
		memcpy(&fds[0], CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
		n = 1;
	}
	close(passed);
	close(sv[0]);
	close(sv[1]);
	return n;
}

static int make_eventfd(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_eventfd, 0), fds);
}

static int make_eventfd2(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_eventfd2, 0, 0), fds);
}

static int make_timerfd(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_timerfd_create, 1 /* CLOCK_MONOTONIC */, 0), fds);
}

static int make_memfd(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_memfd_create, (unsigned long)"ind", 0), fds);
}

static int make_pidfd_open(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_pidfd_open, (unsigned long)getpid(), 0), fds);
}

static int make_io_uring(unsigned long flags, int fds[2])
{
	uint32_t params[30] = {0}; /* struct io_uring_params, zeroed */

	return one(IND(flags, __NR_io_uring_setup, 4, (unsigned long)params), fds);
}

/* sysind_queue(0): SYSIND_ASYNC's completion queue, through the call's
 * own flags only. */
static int make_sysind_queue(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_sysind_queue, 0), fds);
}

static int make_pidfd_getfd(unsigned long flags, int fds[2])
{
	int pidfd = (int)syscall(__NR_pidfd_open, getpid(), 0), src = null_fd();
	long fd = IND(flags, __NR_pidfd_getfd, (unsigned long)pidfd, (unsigned long)src, 0);

	close(src);
	close(pidfd);
	return one(fd, fds);
}

/* clone(CLONE_PIDFD) as a fork whose child exits at once: the pidfd. */
static int make_clone_pidfd(unsigned long flags, int fds[2])
{
	int pidfd = -1, status;
	long pid = IND(flags, __NR_clone, 0x1000 /* CLONE_PIDFD */ | 17 /* Linux's SIGCHLD */, 0,
		       (unsigned long)&pidfd, 0, 0);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return one(pid < 0 ? -1 : pidfd, fds);
}

static int make_inotify_init(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_inotify_init, 0), fds);
}

static int make_inotify_init1(unsigned long flags, int fds[2])
{
	return one(IND(flags, __NR_inotify_init1, 0), fds);
}

static const struct maker makers[] = {
    {"open", make_open, 0, false},
    {"openat", make_openat, 0, false},
    {"openat2", make_openat2, 0, false},
    {"creat", make_creat, 0, false},
    {"dup", make_dup, 0, false},
    {"fcntl(F_DUPFD)", make_dupfd, 0, false},
    {"fcntl(F_DUPFD_CLOEXEC)", make_dupfd_cloexec, FD_CLOEXEC, false},
    {"fcntl(F_DUPFD_CLOFORK)", make_dupfd_clofork, FD_CLOFORK, false},
    {"dup2", make_dup2, 0, true},
    {"dup3", make_dup3, 0, true},
    {"pipe", make_pipe, 0, false},
    {"pipe2", make_pipe2, 0, false},
    {"socket", make_socket, 0, false},
    {"socketpair", make_socketpair, 0, false},
    {"accept", make_accept, 0, false},
    {"accept4", make_accept4, 0, false},
    {"epoll_create", make_epoll_create, 0, false},
    {"epoll_create1", make_epoll_create1, 0, false},
    {"signalfd", make_signalfd, 0, false},
    {"signalfd4", make_signalfd4, 0, false},
    {"recvmsg SCM_RIGHTS", make_recvmsg, 0, false},
    {"eventfd", make_eventfd, 0, false},
    {"eventfd2", make_eventfd2, 0, false},
    {"timerfd_create", make_timerfd, 0, false},
    {"memfd_create", make_memfd, 0, false},
    {"pidfd_open", make_pidfd_open, FD_CLOEXEC, false},
    {"pidfd_getfd", make_pidfd_getfd, FD_CLOEXEC, false},
    {"clone(CLONE_PIDFD)", make_clone_pidfd, FD_CLOEXEC, false},
    {"inotify_init", make_inotify_init, 0, false},
    {"inotify_init1", make_inotify_init1, 0, false},
    {"io_uring_setup", make_io_uring, FD_CLOEXEC, false},
    {"sysind_queue", make_sysind_queue, 0, false},
};

static const struct {
	const char *name;
	unsigned long flag;
} flag_cases[] = {
    {"no flag", 0},
    {"NONSEQFD", SYSIND_NONSEQFD},
    {"CLOEXEC", SYSIND_CLOEXEC},
    {"CLOFORK", SYSIND_CLOFORK},
    {"NONBLOCK", SYSIND_NONBLOCK},
};

/* Whether FD looks as call M through syscall_indirect(FLAG) must leave it. */
static bool fd_as_expected(const struct maker *m, unsigned long flag, int fd)
{
	bool nonseq = flag == SYSIND_NONSEQFD && !m->explicit;
	bool nonblock = flag == SYSIND_NONBLOCK && !m->explicit;
	int fdflags = m->base | (flag == SYSIND_CLOEXEC ? FD_CLOEXEC : 0) |
		      (flag == SYSIND_CLOFORK ? FD_CLOFORK : 0);
	int fl = fcntl(fd, F_GETFL);

	if (m->explicit && fd != DUP2_TARGET)
		return false;
	if (fl < 0 || (fd >= NONSEQ_FD_BASE) != nonseq || fcntl(fd, F_GETFD) != fdflags ||
	    ((fl & O_NONBLOCK) != 0) != nonblock) {
		diag("fd %d: F_GETFD %d (want %d), F_GETFL %#x", fd, fcntl(fd, F_GETFD), fdflags,
		     fl);
		return false;
	}
	return true;
}

static void test_call(const struct maker *m, unsigned long flag, const char *flag_name)
{
	int fds[2] = {-1, -1}, n = m->make(flag, fds);
	bool good = n > 0;

	for (int i = 0; i < n; i++) {
		good = good && fd_as_expected(m, flag, fds[i]);
		close(fds[i]);
	}
	ok(good, "%s with %s: %d fd(s) %d %d", m->name, flag_name, n, fds[0], fds[1]);
}

static void test_no_fd_call(void)
{
	int fd;

	is_int(IND(SYSIND_NONSEQFD | SYSIND_CLOEXEC | SYSIND_CLOFORK | SYSIND_NONBLOCK, __NR_getpid,
		   0),
	       getpid(), "getpid with every fd flag: accepted, result unchanged");
	fd = null_fd();
	ok(fd >= 0 && fd < NONSEQ_FD_BASE && fcntl(fd, F_GETFD) == 0 &&
	       !(fcntl(fd, F_GETFL) & O_NONBLOCK),
	   "the flags do not stick: a plain open afterwards is plain");
	close(fd);
}

static void clofork_child(void)
{
	_exit(fcntl(DUP2_TARGET, F_GETFD) < 0 && errno == EBADF ? 0 : 1);
}

static void test_clofork_effect(void)
{
	int src = null_fd();

	IND(SYSIND_CLOFORK, __NR_dup2, (unsigned long)src, DUP2_TARGET);
	ok(exited_with(child_status(clofork_child), 0), "a CLOFORK fd is closed in a forked child");
	close(DUP2_TARGET);
	close(src);
}

int main(void)
{
	const size_t nflags = sizeof(flag_cases) / sizeof(flag_cases[0]);
	const size_t nmakers = sizeof(makers) / sizeof(makers[0]);

	if (!indirect_available())
		skip_all("no syscall_indirect (fdkernel only)");
	plan(nmakers * nflags + 3);
	for (size_t i = 0; i < nmakers; i++)
		for (size_t j = 0; j < nflags; j++)
			test_call(&makers[i], flag_cases[j].flag, flag_cases[j].name);
	test_no_fd_call();
	test_clofork_effect();
	return done();
}
