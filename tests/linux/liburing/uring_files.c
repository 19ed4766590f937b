/* io_uring's registered files through Debian's liburing (the errno
 * cases through the raw call, which liburing would retry): REGISTER_FILES
 * and its checks, IOSQE_FIXED_FILE reads and writes, FILES_UPDATE (skip,
 * clear, a bad fd that leaves its slot empty), FILES2 sparse tables and
 * their checks, tags, UNREGISTER_FILES, a fixed slot that outlives its
 * fd, the FILES_UPDATE op (also with IORING_FILE_INDEX_ALLOC, which
 * writes the slots it took over the fds), and fork with a ring holding
 * registered files. */
#define _GNU_SOURCE
#include <liburing.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_run1.h"

/* io_uring_register: its result, or -errno. */
static int reg(int fd, unsigned op, const void *arg, unsigned nr)
{
	long r = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return r < 0 ? -errno : (int)r;
}

/* A fixed READ or WRITE of len bytes on slot, at the file position. */
static int fixed_rw(struct io_uring *r, bool write, int slot, void *buf, unsigned len)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	if (write)
		io_uring_prep_write(s, slot, buf, len, -1);
	else
		io_uring_prep_read(s, slot, buf, len, -1);
	s->flags |= IOSQE_FIXED_FILE;
	return run1(r);
}

static void errno_cases(struct io_uring *r, int p[2])
{
	int fd = r->ring_fd, bad[2] = {p[0], 999}, self[1] = {fd};
	int four[4] = {p[0], -1, p[1], -1};
	struct rlimit rl, low;

	is_int(reg(fd, IORING_UNREGISTER_FILES, NULL, 0), -ENXIO, "UNREGISTER_FILES, none: ENXIO");
	is_int(reg(fd, IORING_REGISTER_FILES, four, 0), -EINVAL, "REGISTER_FILES of 0: EINVAL");
	is_int(reg(fd, IORING_REGISTER_FILES, NULL, 4), -EFAULT, "REGISTER_FILES of NULL: EFAULT");
	is_int(reg(fd, IORING_REGISTER_FILES, (void *)8, 4), -EFAULT, "a bad array: EFAULT");
	is_int(reg(fd, IORING_REGISTER_FILES, bad, 2), -EBADF, "a bad fd in the array: EBADF");
	is_int(reg(fd, IORING_REGISTER_FILES, self, 1), -EBADF, "the ring itself: EBADF");
	require(!getrlimit(RLIMIT_NOFILE, &rl), "getrlimit");
	low = rl;
	low.rlim_cur = 3;
	require(!setrlimit(RLIMIT_NOFILE, &low), "RLIMIT_NOFILE 3");
	is_int(reg(fd, IORING_REGISTER_FILES, four, 4), -EMFILE, "more than RLIMIT_NOFILE: EMFILE");
	require(!setrlimit(RLIMIT_NOFILE, &rl), "RLIMIT_NOFILE back");
	is_int(reg(fd, IORING_UNREGISTER_FILES, NULL, 0), -ENXIO,
	       "a failed registration left no table");
	is_int(reg(fd, IORING_REGISTER_FILES, four, 4), 0, "REGISTER_FILES of 4, two empty");
	is_int(reg(fd, IORING_REGISTER_FILES, four, 4), -EBUSY, "again: EBUSY");
	is_int(reg(fd, IORING_UNREGISTER_FILES, NULL, 1), -EINVAL, "UNREGISTER with nr 1: EINVAL");
}

static void fixed_ops(struct io_uring *r, int p[2])
{
	struct io_uring_rsrc_update up = {.offset = 1, .resv = 1};
	int fd = r->ring_fd, one[1] = {p[1]}, skip_clear[2] = {IORING_REGISTER_FILES_SKIP, -1};
	int badfd[1] = {999};
	char buf[8] = {0};

	is_int(fixed_rw(r, true, 2, "direct", 6), 6, "a fixed WRITE on slot 2 (the pipe's end)");
	ok(fixed_rw(r, false, 0, buf, 6) == 6 && !memcmp(buf, "direct", 6),
	   "a fixed READ on slot 0 reads it");
	require(write(p[1], "p", 1) == 1, "a byte to poll for");
	struct io_uring_sqe *ps = io_uring_get_sqe(r);
	io_uring_prep_poll_add(ps, 0, POLLIN);
	ps->flags |= IOSQE_FIXED_FILE;
	is_int(run1(r), POLLIN, "a fixed POLL_ADD on slot 0, data there: POLLIN");
	ok(fixed_rw(r, false, 0, buf, 1) == 1 && buf[0] == 'p', "(the byte read back)");
	is_int(fixed_rw(r, false, 1, buf, 6), -EBADF, "an empty slot: EBADF in the CQE");
	is_int(fixed_rw(r, false, 4, buf, 6), -EBADF, "a slot past the table: EBADF");
	is_int(fixed_rw(r, false, -1, buf, 6), -EBADF, "slot -1: EBADF");

	is_int(io_uring_register_files_update(r, 1, one, 1), 1, "FILES_UPDATE of slot 1: 1 done");
	is_int(fixed_rw(r, true, 1, "x", 1), 1, "slot 1 writes now");
	ok(fixed_rw(r, false, 0, buf, 1) == 1 && buf[0] == 'x', "and slot 0 reads it");
	is_int(io_uring_register_files_update(r, 3, one, 2), -EINVAL,
	       "an update past the end: EINVAL");
	is_int(reg(fd, IORING_REGISTER_FILES_UPDATE, &up, 1), -EINVAL, "resv set: EINVAL");
	up.resv = 0;
	is_int(reg(fd, IORING_REGISTER_FILES_UPDATE, &up, 0), -EINVAL, "nr 0: EINVAL");
	up.offset = UINT32_MAX;
	up.data = (uint64_t)(uintptr_t)one;
	is_int(reg(fd, IORING_REGISTER_FILES_UPDATE, &up, 2), -EOVERFLOW,
	       "offset + nr wraps: EOVERFLOW");
	is_int(io_uring_register_files_update(r, 1, skip_clear, 2), 2, "SKIP slot 1, clear slot 2");
	is_int(fixed_rw(r, true, 1, "y", 1), 1, "slot 1 kept its file");
	ok(read(p[0], buf, 1) == 1 && buf[0] == 'y', "(the byte read back)");
	is_int(fixed_rw(r, true, 2, "z", 1), -EBADF, "slot 2 is empty");
	is_int(io_uring_register_files_update(r, 1, badfd, 1), -EBADF,
	       "an update to a bad fd: EBADF");
	is_int(fixed_rw(r, true, 1, "y", 1), -EBADF, "which emptied its slot first (as Linux)");

	/* A slot holds its own reference: the fd's close leaves it. */
	int q[2];
	require(!pipe(q), "another pipe");
	int w[1] = {q[1]};
	is_int(io_uring_register_files_update(r, 3, w, 1), 1, "slot 3: a pipe's write end");
	close(q[1]);
	is_int(fixed_rw(r, true, 3, "kept", 4), 4, "its fd closed, the slot still writes");
	ok(read(q[0], buf, 4) == 4 && !memcmp(buf, "kept", 4), "the bytes arrive");
	is_int(reg(fd, IORING_UNREGISTER_FILES, NULL, 0), 0, "UNREGISTER_FILES");
	ok(read(q[0], buf, 4) == 0, "which dropped the last writer: EOF");
	close(q[0]);
	is_int(fixed_rw(r, false, 0, buf, 1), -EBADF, "a fixed op after it: EBADF");
	is_int(reg(fd, IORING_UNREGISTER_FILES, NULL, 0), -ENXIO, "UNREGISTER again: ENXIO");
}

static void sparse_and_tags(struct io_uring *r, int p[2])
{
	struct io_uring_rsrc_register rr = {.nr = 4, .flags = IORING_RSRC_REGISTER_SPARSE};
	struct io_uring_cqe *c;
	int fd = r->ring_fd, one[1] = {p[1]};
	__u64 tag[1] = {77};
	char buf[4];

	is_int(reg(fd, IORING_REGISTER_FILES2, &rr, sizeof(rr) - 1), -EINVAL,
	       "FILES2, a wrong size: EINVAL");
	rr.data = (uint64_t)(uintptr_t)one;
	is_int(reg(fd, IORING_REGISTER_FILES2, &rr, sizeof(rr)), -EINVAL,
	       "SPARSE with data: EINVAL");
	rr.data = 0;
	rr.flags = 2;
	is_int(reg(fd, IORING_REGISTER_FILES2, &rr, sizeof(rr)), -EINVAL,
	       "an unknown flag: EINVAL");
	rr.flags = IORING_RSRC_REGISTER_SPARSE;
	rr.nr = 0;
	is_int(reg(fd, IORING_REGISTER_FILES2, &rr, sizeof(rr)), -EINVAL, "nr 0: EINVAL");
	is_int(io_uring_register_files_sparse(r, 4), 0, "a sparse table of 4");
	is_int(fixed_rw(r, true, 0, "s", 1), -EBADF, "its slots are empty");
	is_int(io_uring_register_files_update_tag(r, 2, one, tag, 1), 1,
	       "UPDATE2: slot 2 with tag 77");
	is_int(fixed_rw(r, true, 2, "t", 1), 1, "slot 2 writes");
	ok(read(p[0], buf, 1) == 1 && buf[0] == 't', "to the pipe");
	ok(io_uring_peek_cqe(r, &c) != 0, "no CQE for the tag while the file is there");
	int clear[1] = {-1};
	is_int(io_uring_register_files_update(r, 2, clear, 1), 1, "slot 2 cleared");
	ok(!io_uring_wait_cqe(r, &c) && c->user_data == 77 && c->res == 0,
	   "the tag's CQE: user_data 77, res 0");
	io_uring_cqe_seen(r, c);
	int tagged_empty[1] = {-1};
	is_int(io_uring_register_files_update_tag(r, 1, tagged_empty, tag, 1), -EINVAL,
	       "a tag on an empty slot: EINVAL");
	is_int(io_uring_unregister_files(r), 0, "unregistered");
}

/* IORING_OP_FILES_UPDATE, on the request path: n fds at fds from slot
 * off, or (off -1) IORING_FILE_INDEX_ALLOC's free slots. */
static int op_update(struct io_uring *r, int *fds, unsigned n, int off)
{
	io_uring_prep_files_update(io_uring_get_sqe(r), fds, n, off);
	return run1(r);
}

static void update_op(struct io_uring *r, int p[2])
{
	int one[1] = {p[1]}, two[2] = {p[0], p[1]}, bad[1] = {999}, last[1] = {p[0]};
	struct io_uring_sqe *s;
	char buf[4];

	is_int(op_update(r, one, 1, 0), -ENXIO, "the FILES_UPDATE op, no table: ENXIO");
	is_int(op_update(r, one, 1, -1), -ENXIO, "with IORING_FILE_INDEX_ALLOC, no table: ENXIO");
	is_int(io_uring_register_files_sparse(r, 3), 0, "a sparse table of 3");
	is_int(op_update(r, one, 1, 1), 1, "the op puts the pipe's write end in slot 1: 1");
	is_int(fixed_rw(r, true, 1, "u", 1), 1, "slot 1 writes");
	ok(read(p[0], buf, 1) == 1 && buf[0] == 'u', "(the byte read back)");
	is_int(op_update(r, one, 0, 0), -EINVAL, "len 0: EINVAL");
	is_int(op_update(r, one, 1, 3), -EINVAL, "past the table: EINVAL");
	io_uring_prep_files_update(s = io_uring_get_sqe(r), one, 1, 0);
	s->rw_flags = 1;
	is_int(run1(r), -EINVAL, "rw_flags set: EINVAL");
	is_int(op_update(r, (int *)8, 1, -1), -EFAULT, "ALLOC from a bad array: EFAULT");
	is_int(op_update(r, bad, 1, -1), -EBADF, "ALLOC of a bad fd: EBADF");
	is_int(op_update(r, two, 2, -1), 2, "ALLOC of both pipe ends: 2 done");
	ok((two[0] == 0 && two[1] == 2) || (two[0] == 2 && two[1] == 0),
	   "the array now holds their slots, the free ones 0 and 2 (%d %d)", two[0], two[1]);
	is_int(fixed_rw(r, true, two[1], "a", 1), 1, "the write end's slot writes");
	ok(fixed_rw(r, false, two[0], buf, 1) == 1 && buf[0] == 'a',
	   "the read end's slot reads it");
	is_int(op_update(r, last, 1, -1), -ENFILE, "ALLOC with no slot free: ENFILE");
	ok(last[0] == p[0], "and the fd is left in the array");
	is_int(io_uring_unregister_files(r), 0, "unregistered");
}

/* The child submits on the parent's ring, through its registered files. */
static void fork_child(struct io_uring *r)
{
	is_int(fixed_rw(r, true, 0, "child", 5), 5, "child: a fixed WRITE on the shared ring");
	_exit(tap_failed ? 1 : 0);
}

static void fork_case(struct io_uring *r, int p[2])
{
	int one[1] = {p[1]}, st;
	char buf[8] = {0};
	pid_t pid;

	is_int(io_uring_register_files(r, one, 1), 0, "slot 0: the pipe's write end, before fork");
	fflush(stdout);
	if (!(pid = fork()))
		fork_child(r);
	tap_count++; /* the child's line */
	ok(waitpid(pid, &st, 0) == pid && exited_with(st, 0), "the child's submission succeeded");
	ok(read(p[0], buf, 5) == 5 && !memcmp(buf, "child", 5), "the parent reads what it wrote");
	is_int(io_uring_unregister_files(r), 0, "unregistered");
}

int main(void)
{
	struct io_uring r;
	int p[2];

	plan(76);
	require(!pipe(p), "a pipe");
	is_int(io_uring_queue_init(8, &r, 0), 0, "io_uring_queue_init");
	errno_cases(&r, p);
	fixed_ops(&r, p);
	sparse_and_tags(&r, p);
	update_op(&r, p);
	fork_case(&r, p);
	io_uring_queue_exit(&r);
	return done();
}
