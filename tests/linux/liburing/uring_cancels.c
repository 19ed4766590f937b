/* io_uring's cancels by more than a user_data, through Debian's liburing
 * (the errno cases through the raw call): ASYNC_CANCEL with
 * IORING_ASYNC_CANCEL_ALL (how many), _FD (the requests on an fd), _ANY,
 * _FD_FIXED (on a direct descriptor) and their errnos; and
 * IORING_REGISTER_SYNC_CANCEL, which returns once the request it cancels
 * has ended, armed or blocked on a worker (IOSQE_ASYNC), one or all, by
 * user_data or fd, and its errnos.  IORING_FEAT_CUR_PERSONALITY: a
 * request runs with the credentials its submitter had at submission,
 * even when it starts after the submitter has dropped them (root only). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_run1.h"

static char byte;

/* n one-byte READs of fd (user_data data, SQE flags), submitted. */
static void reads(struct io_uring *r, int fd, int n, uint64_t data, uint8_t flags)
{
	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(r);

		io_uring_prep_read(s, fd, &byte, 1, -1);
		s->user_data = data;
		s->flags = flags;
	}
	io_uring_submit(r);
}

/* An ASYNC_CANCEL (user_data 0xc) of addr, fd, with flags: its res,
 * after the CQEs of the expect requests it cancels, which must end in
 * ECANCELED for *cancelled to count them. */
static int cancel(struct io_uring *r, uint64_t addr, int fd, unsigned flags, int expect,
		  int *cancelled)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);
	struct io_uring_cqe c;
	int res = -9999, n = 0, seen = 0;

	io_uring_prep_cancel64(s, addr, (int)flags);
	s->fd = fd;
	s->user_data = 0xc;
	io_uring_submit(r);
	while ((res == -9999 || seen < expect) && !next_cqe(r, &c)) {
		if (c.user_data == 0xc) {
			res = c.res;
			continue;
		}
		seen++;
		n += c.res == -ECANCELED;
	}
	if (cancelled)
		*cancelled = n;
	return res;
}

/* The CQEs of n requests cancelled: how many ended with an error. */
static int ended(struct io_uring *r, int n)
{
	struct io_uring_cqe c;
	int bad = 0;

	for (int i = 0; i < n && !next_cqe(r, &c); i++)
		bad += c.res < 0;
	return bad;
}

static void check_async_cancel(struct io_uring *r, const int p[2], const int q[2])
{
	int n = -1, fd = q[0];

	reads(r, p[0], 3, 0x89, 0);
	is_int(cancel(r, 0x89, 0, IORING_ASYNC_CANCEL_ALL, 3, &n), 3,
	       "CANCEL_ALL of three waiting READs: 3");
	is_int(n, 3, "each ends ECANCELED");
	reads(r, p[0], 2, 1, 0);
	reads(r, q[0], 1, 2, 0);
	is_int(cancel(r, 0, p[0], IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL, 2, &n), 2,
	       "CANCEL_FD|ALL of a pipe's: 2");
	is_int(n, 2, "those two end");
	is_int(cancel(r, 0, 0, IORING_ASYNC_CANCEL_ANY, 1, &n), 1, "CANCEL_ANY: the other one, 1");
	is_int(n, 1, "it ends");
	is_int(cancel(r, 0, 0, IORING_ASYNC_CANCEL_ANY, 0, NULL), 0, "CANCEL_ANY of nothing: 0");
	reads(r, p[0], 2, 9, IOSQE_ASYNC);
	usleep(20000); /* tried on a worker and armed, most likely: ECANCELED either way */
	is_int(cancel(r, 0, p[0], IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL, 2, &n), 2,
	       "CANCEL_FD|ALL of two IOSQE_ASYNC READs: 2");
	is_int(n, 2, "both end ECANCELED (armed on the pipe, not blocked on a worker)");
	reads(r, p[0], 1, 1, 0);
	is_int(cancel(r, 0, p[0], IORING_ASYNC_CANCEL_FD, 1, &n), 0, "CANCEL_FD of one: 0");
	is_int(cancel(r, 0, 999, IORING_ASYNC_CANCEL_FD, 0, NULL), -EBADF,
	       "CANCEL_FD of fd 999: EBADF");
	is_int(cancel(r, 0, p[0], IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ANY, 0, NULL),
	       -EINVAL, "CANCEL_FD with CANCEL_ANY: EINVAL");
	is_int(cancel(r, 0, 0, 1U << 7, 0, NULL), -EINVAL, "an unknown cancel flag: EINVAL");
	is_int(cancel(r, 0x89, 0, 0, 0, NULL), -ENOENT, "by user_data, nothing: ENOENT");

	require(!io_uring_register_files(r, &fd, 1), "q's read end as direct descriptor 0");
	reads(r, 0, 2, 3, IOSQE_FIXED_FILE);
	is_int(
	    cancel(r, 0, 0,
		   IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_FD_FIXED | IORING_ASYNC_CANCEL_ALL,
		   2, &n),
	    2, "CANCEL_FD_FIXED|ALL of direct descriptor 0: 2");
	is_int(n, 2, "they end");
	reads(r, 0, 1, 3, IOSQE_FIXED_FILE);
	is_int(cancel(r, 0, q[0], IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL, 1, &n), 1,
	       "CANCEL_FD of the fd of that file: the waiting direct one too");
	is_int(cancel(r, 0, 5, IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_FD_FIXED, 0, NULL),
	       -EBADF, "CANCEL_FD_FIXED of an empty slot: EBADF");
	io_uring_unregister_files(r);
}

/* io_uring_register(SYNC_CANCEL) of reg with nr: its result, or -errno. */
static int sync_raw(struct io_uring *r, struct io_uring_sync_cancel_reg *reg, unsigned nr)
{
	long ret =
	    syscall(__NR_io_uring_register, r->ring_fd, IORING_REGISTER_SYNC_CANCEL, reg, nr);

	return ret < 0 ? -errno : (int)ret;
}

static void check_sync_cancel(struct io_uring *r, const int p[2])
{
	struct io_uring_sync_cancel_reg reg = {.addr = 0x89, .timeout = {-1, -1}};
	struct io_uring_cqe *c;

	reads(r, p[0], 1, 0x89, 0);
	is_int(io_uring_register_sync_cancel(r, &reg), 0, "SYNC_CANCEL of a waiting READ: 0");
	is_int(ended(r, 1), 1, "its CQE: an error");
	reads(r, p[0], 1, 0x89, IOSQE_ASYNC);
	usleep(20000); /* blocked on its worker, most likely; either way it is cancelled */
	is_int(io_uring_register_sync_cancel(r, &reg), 0, "SYNC_CANCEL of a READ on a worker: 0");
	is_int(ended(r, 1), 1, "its CQE: an error");
	is_int(io_uring_register_sync_cancel(r, &reg), -ENOENT, "SYNC_CANCEL of nothing: ENOENT");
	reads(r, p[0], 4, 0x89, 0);
	reg.flags = IORING_ASYNC_CANCEL_ALL;
	is_int(io_uring_register_sync_cancel(r, &reg), 4, "SYNC_CANCEL ALL of four: 4");
	is_int(ended(r, 4), 4, "their CQEs: errors");
	reads(r, p[0], 2, 7, 0);
	reg = (struct io_uring_sync_cancel_reg){
	    .fd = p[0], .flags = IORING_ASYNC_CANCEL_FD, .timeout = {200, 0}};
	is_int(io_uring_register_sync_cancel(r, &reg), 0, "SYNC_CANCEL by fd of one: 0");
	is_int(ended(r, 1), 1, "one CQE");
	ok(io_uring_peek_cqe(r, &c) == -EAGAIN, "and no other yet");
	reg.flags |= IORING_ASYNC_CANCEL_ALL;
	ok(io_uring_register_sync_cancel(r, &reg) >= 0, "SYNC_CANCEL ALL by fd of the other");
	is_int(ended(r, 1), 1, "its CQE");

	reg = (struct io_uring_sync_cancel_reg){.addr = 1, .timeout = {-1, -1}};
	is_int(sync_raw(r, &reg, 0), -EINVAL, "SYNC_CANCEL with nr_args 0: EINVAL");
	is_int(sync_raw(r, NULL, 1), -EINVAL, "with no argument: EINVAL");
	is_int(sync_raw(r, (void *)8, 1), -EFAULT, "at a bad address: EFAULT");
	reg.pad[2] = 1;
	is_int(sync_raw(r, &reg, 1), -EINVAL, "pad set: EINVAL");
	reg = (struct io_uring_sync_cancel_reg){.flags = 1U << 7};
	is_int(sync_raw(r, &reg, 1), -EINVAL, "an unknown flag: EINVAL");
	reg = (struct io_uring_sync_cancel_reg){.fd = 999, .flags = IORING_ASYNC_CANCEL_FD};
	is_int(sync_raw(r, &reg, 1), -EBADF, "by fd 999: EBADF");
}

/* In a child, root submits a READ of an empty pipe (on a worker) and an
 * OPENAT of a root-only file linked after it, becomes nobody, and lets
 * the READ complete: the OPENAT (started only then) opens the file with
 * the creds of its submission.  Nobody's own OPENAT is refused. */
static void check_cur_personality(const struct io_uring_params *p)
{
	char path[] = "/tmp/uringcredXXXXXX";
	int fd, status = -1;
	pid_t pid;

	ok(p->features & IORING_FEAT_CUR_PERSONALITY, "feature CUR_PERSONALITY");
	if (geteuid()) {
		skip("not root", "a linked OPENAT runs with its submitter's creds");
		skip("not root", "nobody's own is refused");
		return;
	}
	require((fd = mkstemp(path)) >= 0 && !fchmod(fd, 0600), "a root-only file");
	close(fd);
	if ((pid = fork()) == 0) {
		struct io_uring r;
		struct io_uring_cqe c[2];
		struct io_uring_sqe *s;
		int q[2], res[2] = {-1, -1};

		if (pipe(q) || io_uring_queue_init(4, &r, 0))
			_exit(9);
		s = io_uring_get_sqe(&r);
		io_uring_prep_read(s, q[0], &byte, 1, -1);
		s->flags = IOSQE_ASYNC | IOSQE_IO_LINK;
		s->user_data = 0;
		s = io_uring_get_sqe(&r);
		io_uring_prep_openat(s, AT_FDCWD, path, O_RDONLY, 0);
		s->user_data = 1;
		if (io_uring_submit(&r) != 2 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || write(q[1], "x", 1) != 1)
			_exit(8);
		for (int i = 0; i < 2; i++)
			if (!next_cqe(&r, &c[i]) && c[i].user_data < 2)
				res[c[i].user_data] = c[i].res;
		s = io_uring_get_sqe(&r);
		io_uring_prep_openat(s, AT_FDCWD, path, O_RDONLY, 0);
		s->flags = IOSQE_ASYNC;
		_exit(res[0] != 1 ? 7 : res[1] < 0 ? 6 : run1(&r) != -EACCES ? 5 : 0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) < 6,
	   "a linked OPENAT runs with its submitter's creds (%d)", WEXITSTATUS(status));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "nobody's own is refused");
	unlink(path);
}

int main(void)
{
	struct io_uring r;
	struct io_uring_params prm = {0};
	int p[2], q[2];

	plan(39);
	require(!pipe(p) && !pipe(q), "two pipes");
	require(!io_uring_queue_init_params(16, &r, &prm), "a ring");
	check_async_cancel(&r, p, q);
	check_sync_cancel(&r, p);
	check_cur_personality(&prm);
	io_uring_queue_exit(&r);
	return done();
}
