/*
 * The fd side of sockets: socket2() flags seen through F_GETFD, F_GETFL and
 * the fd's range; accept/accept4 flags, and the fdmap v2 rule that accept
 * on a listener in the non-sequential area returns a non-sequential fd
 * (its flags not inherited).  socket/socketpair rows are in fd_oclo.
 */
#include <fcntl.h>
#include <fdkernel.h>

#include "sock_util.h"

#define SKIP_HOST "fdkernel-only (socket2, SOCK_CLOFORK)"

/* A listener in the area and with the flags socket2 gives, and a pending
 * connection to it: *cl is the client end. */
static int listener2(int flags, const char *tag, int *cl)
{
	struct saddr a;
	int l = socket2(AF_UNIX, SOCK_STREAM, 0, flags);

	saddr_make(&a, AF_UNIX, tag);
	require(l >= 0 && bind(l, (struct sockaddr *)&a.ss, a.len) == 0 && listen(l, 4) == 0,
		"socket2 listener");
	*cl = sock_client(AF_UNIX, SOCK_STREAM, &a);
	require(*cl >= 0, "connect");
	saddr_drop(&a);
	return l;
}

struct row {
	const char *name;
	int flags;   /* socket2's */
	int fdflags; /* F_GETFD must show */
	bool nonblock;
	bool nonseq;
};

static const struct row rows[] = {
    {"no flags", 0, 0, false, false},
    {"O_CLOEXEC", O_CLOEXEC, FD_CLOEXEC, false, false},
    {"O_CLOFORK", O_CLOFORK, FD_CLOFORK, false, false},
    {"O_NONBLOCK", O_NONBLOCK, 0, true, false},
    {"O_NONSEQFD", O_NONSEQFD, 0, false, true},
    {"all four", O_NONSEQFD | O_CLOEXEC | O_CLOFORK | O_NONBLOCK, FD_CLOEXEC | FD_CLOFORK, true,
     true},
};
#define NROWS (int)(sizeof(rows) / sizeof(rows[0]))

static void test_socket2(void)
{
	for (int i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		int fd = socket2(AF_INET, SOCK_DGRAM, 0, r->flags);
		ok(fd >= 0 && fcntl(fd, F_GETFD) == r->fdflags &&
		       !!(fcntl(fd, F_GETFL) & O_NONBLOCK) == r->nonblock &&
		       (fd >= NONSEQ_FD_BASE) == r->nonseq,
		   "socket2 %s: F_GETFD, F_GETFL and the fd's area", r->name);
		close(fd);
	}
	is_errno(syscall(__NR_socket2, AF_UNIX, SOCK_STREAM, 0, 02000 /* Linux O_APPEND */), EINVAL,
		 "socket2 with an unknown flag: EINVAL");
	is_errno(socket2(AF_UNIX, 14, 0, 0), EINVAL, "socket2 checks the type as socket does");
}

static void test_accept_area(void)
{
	int c, l = listener2(O_NONSEQFD | O_CLOEXEC | O_NONBLOCK, "nsacc", &c);
	int s = accept(l, NULL, NULL);

	ok(l >= NONSEQ_FD_BASE && s >= NONSEQ_FD_BASE,
	   "accept on a non-sequential listener: a non-sequential fd");
	is_int(fcntl(s, F_GETFD), 0, "... with no fd flags (not inherited)");
	ok(!(fcntl(s, F_GETFL) & O_NONBLOCK), "... and blocking (O_NONBLOCK not inherited)");
	close(s);
	close(c);
	close(l);

	l = listener2(O_NONSEQFD, "nsacc4", &c);
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_CLOFORK);
	ok(s >= NONSEQ_FD_BASE && fcntl(s, F_GETFD) == (FD_CLOEXEC | FD_CLOFORK),
	   "accept4(SOCK_CLOEXEC|SOCK_CLOFORK) on it: non-sequential, with those flags");
	close(s);
	close(c);
	close(l);

	l = listener2(O_CLOEXEC, "seqacc", &c);
	s = accept(l, NULL, NULL);
	ok(s >= 0 && s < NONSEQ_FD_BASE, "accept on a sequential listener: a sequential fd");
	close(s);
	close(c);
	close(l);

	l = listener2(0, "indacc", &c);
	unsigned long args[6] = {(unsigned long)l, 0, 0};
	sigset_t none;
	sigemptyset(&none);
	s = syscall_indirect(SYSIND_NONSEQFD, none, __NR_accept, args);
	ok(s >= NONSEQ_FD_BASE, "syscall_indirect(NONSEQFD, accept): a non-sequential fd");
	close(s);
	close(c);
	close(l);
}

/* accept4's own flags, on the host too (CLOFORK rows only here). */
static void test_accept4(void)
{
	struct saddr a;
	int l = sock_server(AF_INET, SOCK_STREAM, "", &a), c, s;
	const struct {
		const char *name;
		int flags, fdflags;
		bool nonblock, fdkernel_only;
	} cases[] = {
	    {"accept4(0)", 0, 0, false, false},
	    {"accept4(SOCK_CLOEXEC)", SOCK_CLOEXEC, FD_CLOEXEC, false, false},
	    {"accept4(SOCK_NONBLOCK)", SOCK_NONBLOCK, 0, true, false},
	    {"accept4(SOCK_CLOFORK)", SOCK_CLOFORK, FD_CLOFORK, false, true},
	};

	require(l >= 0, "inet listener");
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].fdkernel_only && !on_fdkernel()) {
			skip(SKIP_HOST, cases[i].name);
			continue;
		}
		c = sock_client(AF_INET, SOCK_STREAM, &a);
		s = accept4(l, NULL, NULL, cases[i].flags);
		ok(s >= 0 && fcntl(s, F_GETFD) == cases[i].fdflags &&
		       !!(fcntl(s, F_GETFL) & O_NONBLOCK) == cases[i].nonblock,
		   "%s: F_GETFD and F_GETFL", cases[i].name);
		close(s);
		close(c);
	}
	is_errno(accept4(l, NULL, NULL, 0x1), EINVAL, "accept4 with an unknown flag: EINVAL");
	close(l);
}

/* A CLOFORK socket is gone in a forked child, a plain one is there. */
static void test_clofork(void)
{
	int a = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOFORK, 0), b = socket(AF_UNIX, SOCK_DGRAM, 0);

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(fcntl(a, F_GETFD) == -1 && errno == EBADF && fcntl(b, F_GETFD) == 0 ? 0 : 1);
	ok(child_ok(pid), "SOCK_CLOFORK socket closed in the child, the other kept");
	close(a);
	close(b);
}

int main(void)
{
	int probe = socket2(AF_UNIX, SOCK_STREAM, 0, 0);

	plan(NROWS + 2 + 6 + 5 + 1);
	if (probe < 0 && (errno == ENOSYS || !on_fdkernel())) {
		for (int i = 0; i < NROWS + 2 + 6; i++)
			skip(SKIP_HOST, "socket2 / non-sequential accept");
		test_accept4();
		skip(SKIP_HOST, "SOCK_CLOFORK in a forked child");
		return done();
	}
	close(probe);
	test_socket2();
	test_accept_area();
	test_accept4();
	test_clofork();
	return done();
}
