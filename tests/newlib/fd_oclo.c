/*
 * Close-on-exec and close-on-fork, table-driven as illumos's oclo tests:
 * every fd-creating call x {no flag, CLOEXEC, CLOFORK, both}, checked with
 * F_GETFD at once, in a forked child and after execve of /bin/fdcheck.
 */
#include "fd_util.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <uapi/memfd.h>
#include <uapi/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#define TARGET 40 /* where dup2/dup3 put their copy */
#define MINFD  20 /* F_DUPFD's lower bound */

struct flagset {
	const char *name;
	int oflags;  /* for open, dup3, pipe2 and the source of copies */
	int fdflags; /* what F_GETFD shows for it */
};

static const struct flagset flagsets[] = {
    {"no flag", 0, 0},
    {"CLOEXEC", O_CLOEXEC, FD_CLOEXEC},
    {"CLOFORK", O_CLOFORK, FD_CLOFORK},
    {"CLOEXEC|CLOFORK", O_CLOEXEC | O_CLOFORK, FD_CLOEXEC | FD_CLOFORK},
};

/* How a call treats the flag set of a row. */
enum kind {
	TAKES_FLAGS, /* the call's own flags argument: the fd gets them */
	COPIES,	     /* a copy of a source opened with them: the copy's flags are fixed */
	FLAGLESS,    /* no flags anywhere: only the "no flag" row */
};

struct creator {
	const char *name;
	enum kind kind;
	int fixed;	    /* COPIES: the flags the new fd always has */
	bool fdkernel_only; /* the call itself is fdkernel's (F_DUPFD_CLOFORK) */
	/* Makes the fds (returns how many, or -1) from oflags. */
	int (*make)(int oflags, int fds[2]);
};

static int make_open(int oflags, int fds[2])
{
	fds[0] = open("/dev/null", O_RDONLY | oflags);
	return fds[0] < 0 ? -1 : 1;
}

static int make_openat(int oflags, int fds[2])
{
	int dir = open("/dev", O_RDONLY | O_DIRECTORY);

	fds[0] = openat(dir, "null", O_RDONLY | oflags);
	close(dir);
	return fds[0] < 0 ? -1 : 1;
}

/* openat2 takes Linux's open flags, not newlib's: translate O_CLOEXEC
 * (O_CLOFORK has one value on both sides). */
#define LINUX_O_CLOEXEC 02000000

static int make_openat2(int oflags, int fds[2])
{
	struct open_how how = {(oflags & O_CLOEXEC ? LINUX_O_CLOEXEC : 0) | (oflags & O_CLOFORK), 0,
			       0};

	fds[0] = syscall(__NR_openat2, UAPI_AT_FDCWD, "/dev/null", &how, sizeof how);
	return fds[0] < 0 ? -1 : 1;
}

/* creat has no flags argument: only the "no flag" row.  /dev/null takes
 * its O_TRUNC without harm. */
static int make_creat(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = creat("/dev/null", 0666);
	return fds[0] < 0 ? -1 : 1;
}

/* A copy of a source opened with oflags, by copy(); the source is closed. */
static int make_copy(int oflags, int fds[2], int (*copy)(int src))
{
	int src = open_null(oflags);

	fds[0] = copy(src);
	close(src);
	return fds[0] < 0 ? -1 : 1;
}

static int dup_it(int src)
{
	return dup(src);
}

static int dup2_it(int src)
{
	return dup2(src, TARGET);
}

static int dupfd_it(int src)
{
	return fcntl(src, F_DUPFD, MINFD);
}

static int dupfd_cloexec_it(int src)
{
	return fcntl(src, F_DUPFD_CLOEXEC, MINFD);
}

static int dupfd_clofork_it(int src)
{
	return fcntl(src, F_DUPFD_CLOFORK, MINFD);
}

static int make_dup(int oflags, int fds[2])
{
	return make_copy(oflags, fds, dup_it);
}

/* dup2 onto a target that itself had the flags: they must not survive. */
static int make_dup2(int oflags, int fds[2])
{
	int old = open_null(0);

	dup3(old, TARGET, oflags);
	close(old);
	return make_copy(oflags, fds, dup2_it);
}

static int make_dup3(int oflags, int fds[2])
{
	int src = open_null(0);

	fds[0] = dup3(src, TARGET, oflags);
	close(src);
	return fds[0] < 0 ? -1 : 1;
}

static int make_dupfd(int oflags, int fds[2])
{
	return make_copy(oflags, fds, dupfd_it);
}

static int make_dupfd_cloexec(int oflags, int fds[2])
{
	return make_copy(oflags, fds, dupfd_cloexec_it);
}

static int make_dupfd_clofork(int oflags, int fds[2])
{
	return make_copy(oflags, fds, dupfd_clofork_it);
}

static int make_pipe(int oflags, int fds[2])
{
	(void)oflags;
	return pipe(fds) < 0 ? -1 : 2;
}

static int make_pipe2(int oflags, int fds[2])
{
	return pipe2(fds, oflags) < 0 ? -1 : 2;
}

/* SOCK_CLOEXEC/SOCK_CLOFORK are the open flags' bits in the kernel, but
 * newlib's O_CLOEXEC is not SOCK_CLOEXEC: translate. */
static int sock_flags(int oflags)
{
	return (oflags & O_CLOEXEC ? SOCK_CLOEXEC : 0) | (oflags & O_CLOFORK ? SOCK_CLOFORK : 0);
}

static int make_socket(int oflags, int fds[2])
{
	fds[0] = socket(AF_UNIX, SOCK_STREAM | sock_flags(oflags), 0);
	return fds[0] < 0 ? -1 : 1;
}

static int make_socketpair(int oflags, int fds[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | sock_flags(oflags), 0, fds) < 0 ? -1 : 2;
}

/* A signalfd for SIGUSR1: signalfd() when flags is 0, else signalfd4(). */
static int sfd_plain(int flags)
{
	uint64_t mask = 1UL << (10 - 1); /* Linux's SIGUSR1 */

	if (!flags)
		return (int)syscall(__NR_signalfd, -1, &mask, 8);
	return (int)syscall(__NR_signalfd4, -1, &mask, 8, flags);
}

static int make_epoll_create(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = epoll_create(1);
	return fds[0] < 0 ? -1 : 1;
}

/* EPOLL_CLOEXEC is Linux's O_CLOEXEC, not newlib's: translate. */
static int make_epoll_create1(int oflags, int fds[2])
{
	fds[0] = epoll_create1((oflags & O_CLOEXEC ? EPOLL_CLOEXEC : 0) |
			       (oflags & O_CLOFORK ? EPOLL_CLOFORK : 0));
	return fds[0] < 0 ? -1 : 1;
}

static int make_eventfd(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = syscall(__NR_eventfd, 0);
	return fds[0] < 0 ? -1 : 1;
}

/* EFD_ and TFD_ CLOEXEC/CLOFORK are SOCK_'s values: the same translation. */
static int make_eventfd2(int oflags, int fds[2])
{
	fds[0] = eventfd(0, sock_flags(oflags));
	return fds[0] < 0 ? -1 : 1;
}

static int make_timerfd(int oflags, int fds[2])
{
	fds[0] = timerfd_create(CLOCK_MONOTONIC, sock_flags(oflags));
	return fds[0] < 0 ? -1 : 1;
}

static int make_signalfd(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = sfd_plain(0);
	return fds[0] < 0 ? -1 : 1;
}

/* SFD_CLOEXEC is Linux's O_CLOEXEC, not newlib's: translate. */
static int make_signalfd4(int oflags, int fds[2])
{
	fds[0] = sfd_plain((oflags & O_CLOEXEC ? SFD_CLOEXEC : 0) |
			   (oflags & O_CLOFORK ? SFD_CLOFORK : 0));
	return fds[0] < 0 ? -1 : 1;
}

/* MFD_CLOEXEC is 1: translate; MFD_CLOFORK is O_CLOFORK's bit. */
static int make_memfd(int oflags, int fds[2])
{
	fds[0] = syscall(__NR_memfd_create, "oclo",
			 (oflags & O_CLOEXEC ? MFD_CLOEXEC : 0) |
			     (oflags & O_CLOFORK ? MFD_CLOFORK : 0));
	return fds[0] < 0 ? -1 : 1;
}

/* pidfd_open takes no fd flags: its fd is always close-on-exec. */
static int make_pidfd_open(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = syscall(__NR_pidfd_open, getpid(), 0);
	return fds[0] < 0 ? -1 : 1;
}

/* pidfd_getfd of one of our own fds: a copy, always close-on-exec. */
static int make_pidfd_getfd(int oflags, int fds[2])
{
	int pidfd = syscall(__NR_pidfd_open, getpid(), 0),
	    src = open("/dev/null", O_RDONLY | oflags);

	fds[0] = syscall(__NR_pidfd_getfd, pidfd, src, 0);
	close(src);
	close(pidfd);
	return fds[0] < 0 ? -1 : 1;
}

static int make_inotify_init(int oflags, int fds[2])
{
	(void)oflags;
	fds[0] = syscall(__NR_inotify_init);
	return fds[0] < 0 ? -1 : 1;
}

/* IN_CLOEXEC and IN_CLOFORK are SOCK_'s values too. */
static int make_inotify_init1(int oflags, int fds[2])
{
	fds[0] = syscall(__NR_inotify_init1, sock_flags(oflags));
	return fds[0] < 0 ? -1 : 1;
}

/* io_uring_setup: a ring fd, always close-on-exec (Linux's). */
static int make_io_uring(int oflags, int fds[2])
{
	uint32_t params[30] = {0}; /* struct io_uring_params, zeroed */

	(void)oflags;
	fds[0] = syscall(__NR_io_uring_setup, 4, params);
	return fds[0] < 0 ? -1 : 1;
}

static const struct creator creators[] = {
    {"open", TAKES_FLAGS, 0, false, make_open},
    {"openat", TAKES_FLAGS, 0, false, make_openat},
    {"openat2", TAKES_FLAGS, 0, false, make_openat2},
    {"creat", FLAGLESS, 0, false, make_creat},
    {"dup", COPIES, 0, false, make_dup},
    {"dup2", COPIES, 0, false, make_dup2},
    {"dup3", TAKES_FLAGS, 0, false, make_dup3},
    {"F_DUPFD", COPIES, 0, false, make_dupfd},
    {"F_DUPFD_CLOEXEC", COPIES, FD_CLOEXEC, false, make_dupfd_cloexec},
    {"F_DUPFD_CLOFORK", COPIES, FD_CLOFORK, true, make_dupfd_clofork},
    {"pipe", FLAGLESS, 0, false, make_pipe},
    {"pipe2", TAKES_FLAGS, 0, false, make_pipe2},
    {"socket", TAKES_FLAGS, 0, false, make_socket},
    {"socketpair", TAKES_FLAGS, 0, false, make_socketpair},
    {"epoll_create", FLAGLESS, 0, false, make_epoll_create},
    {"epoll_create1", TAKES_FLAGS, 0, false, make_epoll_create1},
    {"eventfd", FLAGLESS, 0, false, make_eventfd},
    {"eventfd2", TAKES_FLAGS, 0, false, make_eventfd2},
    {"timerfd_create", TAKES_FLAGS, 0, false, make_timerfd},
    {"signalfd", FLAGLESS, 0, false, make_signalfd},
    {"signalfd4", TAKES_FLAGS, 0, false, make_signalfd4},
    {"memfd_create", TAKES_FLAGS, 0, false, make_memfd},
    {"pidfd_open", COPIES, FD_CLOEXEC, false, make_pidfd_open},
    {"pidfd_getfd", COPIES, FD_CLOEXEC, false, make_pidfd_getfd},
    {"inotify_init", FLAGLESS, 0, false, make_inotify_init},
    {"inotify_init1", TAKES_FLAGS, 0, false, make_inotify_init1},
    {"io_uring_setup", COPIES, FD_CLOEXEC, false, make_io_uring},
};

#define NCREATORS (sizeof(creators) / sizeof(creators[0]))
#define NFLAGSETS (sizeof(flagsets) / sizeof(flagsets[0]))

static const char *argv0;

/* The flags each new fd of this row must carry. */
static int wanted(const struct creator *c, const struct flagset *fs)
{
	return c->kind == COPIES ? c->fixed : fs->fdflags;
}

/* Only Linux-compatible rows run on the host. */
static bool runs_here(const struct creator *c, const struct flagset *fs)
{
	bool clofork = (fs->fdflags | wanted(c, fs)) & FD_CLOFORK;

	return on_fdkernel() || !(clofork || c->fdkernel_only);
}

static bool flags_are(const int *fds, int n, int want)
{
	for (int i = 0; i < n; i++)
		if (fcntl(fds[i], F_GETFD) != want)
			return false;
	return true;
}

/* In a forked child: CLOFORK fds are gone, the others keep their flags. */
static bool fork_keeps(const int *fds, int n, int want)
{
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		for (int i = 0; i < n; i++) {
			int got = fcntl(fds[i], F_GETFD);
			if (want & FD_CLOFORK ? !(got < 0 && errno == EBADF) : got != want)
				_exit(1);
		}
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

/* In a child that makes the fds and execs fdcheck: CLOEXEC closes, CLOFORK clears. */
static bool exec_keeps(const struct creator *c, const struct flagset *fs, int want)
{
	char path[300], args[2][32], *argv[] = {"fdcheck", args[0], args[1], NULL},
				     *envp[] = {NULL};
	int fds[2], n, status;
	pid_t pid;

	test_bin_path(argv0, "fdcheck", path, sizeof path);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if ((n = c->make(fs->oflags, fds)) < 0)
			_exit(100);
		for (int i = 0; i < n; i++)
			snprintf(args[i], sizeof args[i], want & FD_CLOEXEC ? "%d=closed" : "%d=0",
				 fds[i]);
		argv[1 + n] = NULL;
		execve(path, argv, envp);
		_exit(101);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

static void close_all(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

static void check_row(const struct creator *c, const struct flagset *fs)
{
	int want = wanted(c, fs), fds[2], n;

	if (!runs_here(c, fs)) {
		char what[64];
		snprintf(what, sizeof what, "%s, %s", c->name, fs->name);
		for (int i = 0; i < 3; i++)
			skip(NOT_LINUX, what);
		return;
	}
	n = c->make(fs->oflags, fds);
	if (n < 0 && errno == ENOSYS) { /* e.g. sockets not in this kernel yet */
		for (int i = 0; i < 3; i++)
			skip("ENOSYS", c->name);
		return;
	}
	if (!ok(n > 0 && flags_are(fds, n, want), "%s, %s: F_GETFD is %d", c->name, fs->name, want))
		diag("made %d fds (%s)", n, n < 0 ? strerror(errno) : "ok");
	ok(n > 0 && fork_keeps(fds, n, want), "%s, %s: forked child %s", c->name, fs->name,
	   want & FD_CLOFORK ? "has it closed" : "keeps it and its flags");
	ok(exec_keeps(c, fs, want), "%s, %s: after execve %s", c->name, fs->name,
	   want & FD_CLOEXEC ? "it is closed" : "it is open, flags 0");
	if (n > 0)
		close_all(fds, n);
}

static int rows(void)
{
	int n = 0;

	for (size_t i = 0; i < NCREATORS; i++)
		n += creators[i].kind == FLAGLESS ? 1 : (int)NFLAGSETS;
	return n;
}

int main(int argc, char **argv)
{
	(void)argc;
	argv0 = argv[0];
	plan(3 * rows() + 1);
	int before = next_fd();
	for (size_t i = 0; i < NCREATORS; i++)
		for (size_t j = 0; j < (creators[i].kind == FLAGLESS ? 1 : NFLAGSETS); j++)
			check_row(&creators[i], &flagsets[j]);
	close(TARGET);
	is_int(next_fd(), before, "no fd left open");
	return done();
}
