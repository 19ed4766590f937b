/* io_uring's SPLICE and TEE (liburing's splice test), EPOLL_CTL
 * (poll-v-poll), FADVISE and MADVISE (fadvise, madvise): each does its
 * system call's work with its errors, on direct descriptors too
 * (IOSQE_FIXED_FILE, SPLICE_F_FD_IN_FIXED); a SPLICE that waits for its
 * pipe completes when a writer comes; a short one breaks its link;
 * EPOLL_CTL's event is copied at submission (IORING_FEAT_SUBMIT_STABLE);
 * a field the opcode does not take is EINVAL in the CQE, as Linux's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

static struct io_uring_sqe *prep_splice(uint8_t op, int in, int64_t off_in, int out,
					int64_t off_out, uint32_t len, uint32_t flags)
{
	struct io_uring_sqe *s = uring_prep(&r, op, out, 0, len, (uint64_t)off_out, 0);

	s->splice_off_in = (uint64_t)off_in;
	s->splice_fd_in = in;
	s->splice_flags = flags;
	return s;
}

static int32_t splice_r(int in, int64_t off_in, int out, int64_t off_out, uint32_t len)
{
	prep_splice(IORING_OP_SPLICE, in, off_in, out, off_out, len, 0);
	return uring_run1(&r);
}

static int32_t tee_r(int in, int out, uint32_t len)
{
	prep_splice(IORING_OP_TEE, in, 0, out, 0, len, 0);
	return uring_run1(&r);
}

static bool reads(int fd, const char *want, size_t n)
{
	char buf[64];

	return read(fd, buf, sizeof(buf)) == (ssize_t)n && !memcmp(buf, want, n);
}

static void check_splice(int f, int p[2], int q[2])
{
	char buf[8];

	require(pwrite(f, "0123456789", 10, 0) == 10 && lseek(f, 2, SEEK_SET) == 2, "a file");
	is_int(splice_r(f, 4, p[1], -1, 3), 3, "SPLICE file at offset 4 to a pipe: 3");
	ok(reads(p[0], "456", 3), "the pipe holds 456");
	is_int(lseek(f, 0, SEEK_CUR), 2, "the file's position stays");
	is_int(splice_r(f, -1, p[1], -1, 2), 2, "SPLICE at the position (-1): 2");
	ok(reads(p[0], "23", 2) && lseek(f, 0, SEEK_CUR) == 4, "23, and the position moves to 4");
	require(write(p[1], "abc", 3) == 3, "abc written into the pipe");
	is_int(splice_r(p[0], -1, f, 20, 8), 3, "SPLICE the pipe into the file at 20: 3");
	ok(pread(f, buf, 3, 20) == 3 && !memcmp(buf, "abc", 3), "the file has abc at 20");
	require(write(p[1], "xy", 2) == 2, "xy written into the pipe");
	is_int(splice_r(p[0], -1, q[1], -1, 8), 2, "SPLICE pipe to pipe: 2");
	ok(reads(q[0], "xy", 2), "the second pipe holds xy");
	is_int(splice_r(f, 0, p[1], 0, 3), -ESPIPE, "an offset on the pipe side: ESPIPE");
	is_int(splice_r(f, 0, p[1], -1, 0), 0, "a length of 0: 0");
	is_int(splice_r(999, -1, p[1], -1, 3), -EBADF, "a closed input fd: EBADF");
	is_int(splice_r(f, 0, 999, -1, 3), -EBADF, "a closed output fd: EBADF");
	is_int(splice_r(f, 0, f, 0, 3), -EINVAL, "no pipe on either side: EINVAL");
	prep_splice(IORING_OP_SPLICE, f, 0, p[1], -1, 3, 0x100);
	is_int(uring_run1(&r), -EINVAL, "an unknown splice flag: EINVAL");
}

static void check_tee(int p[2], int q[2])
{
	require(write(p[1], "tee", 3) == 3, "tee written into the pipe");
	is_int(tee_r(p[0], q[1], 8), 3, "TEE pipe to pipe: 3");
	ok(reads(q[0], "tee", 3), "the second pipe has the bytes");
	ok(reads(p[0], "tee", 3), "and the first still has them");
	is_int(tee_r(p[0], p[1], 8), -EINVAL, "TEE of a pipe to itself: EINVAL");
	prep_splice(IORING_OP_TEE, p[0], 0, q[1], 4, 8, 0);
	is_int(uring_run1(&r), -EINVAL, "TEE with off set: EINVAL");
	prep_splice(IORING_OP_TEE, p[0], 4, q[1], 0, 8, 0);
	is_int(uring_run1(&r), -EINVAL, "TEE with splice_off_in set: EINVAL");
}

/* Both ends as direct descriptors: the output through IOSQE_FIXED_FILE,
 * the input through SPLICE_F_FD_IN_FIXED. */
static void check_fixed(int f, int p[2])
{
	int fds[2] = {f, p[1]};

	require(!uring_register_raw(r.fd, IORING_REGISTER_FILES, fds, 2),
		"f and the pipe registered");
	prep_splice(IORING_OP_SPLICE, 0, 0, 1, -1, 4, SPLICE_F_FD_IN_FIXED)->flags =
	    IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), 4, "SPLICE between direct descriptors: 4");
	ok(reads(p[0], "0123", 4), "the pipe holds 0123");
	prep_splice(IORING_OP_SPLICE, 5, 0, 1, -1, 4, SPLICE_F_FD_IN_FIXED)->flags =
	    IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), -EBADF, "an input past the table: EBADF");
	require(!uring_register_raw(r.fd, IORING_UNREGISTER_FILES, NULL, 0), "unregistered");
}

/* A SPLICE of an empty pipe waits (on a worker) until a writer comes; a
 * short one (fewer bytes than asked) breaks its link, as Linux's. */
static void check_wait_and_link(int f, int p[2])
{
	struct io_uring_cqe c;
	int32_t res[2] = {1, 1};
	char buf[4];

	prep_splice(IORING_OP_SPLICE, p[0], -1, f, 40, 3, 0);
	is_int(uring_submit_wait(&r, 0), 1, "SPLICE of an empty pipe submitted");
	ok(!uring_peek(&r, &c), "no CQE while the pipe is empty");
	require(write(p[1], "wxy", 3) == 3, "wxy written into the pipe");
	ok(!uring_wait(&r, &c) && c.res == 3, "then the SPLICE completes: 3");
	ok(pread(f, buf, 3, 40) == 3 && !memcmp(buf, "wxy", 3), "the file has wxy at 40");
	require(write(p[1], "z", 1) == 1, "z written into the pipe");
	prep_splice(IORING_OP_SPLICE, p[0], -1, f, 50, 3, 0)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	is_int(uring_submit_wait(&r, 0), 2, "a short SPLICE linked to a NOP submitted");
	require(!uring_wait_n(&r, 2, res), "their CQEs");
	ok(res[0] == 1 && res[1] == -ECANCELED, "1 byte, and the NOP ECANCELED (%d %d)", res[0],
	   res[1]);
}

static int32_t epoll_ctl_r(int ep, int op, int fd, struct epoll_event *ev)
{
	uring_prep(&r, IORING_OP_EPOLL_CTL, ep, (uint64_t)(uintptr_t)ev, (uint32_t)op, (uint64_t)fd,
		   0);
	return uring_run1(&r);
}

static void check_epoll_ctl(int p[2], int q[2])
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42}, out;
	int ep = epoll_create1(0);
	struct io_uring_cqe c;
	char byte;

	require(ep >= 0 && write(p[1], "e", 1) == 1, "an epoll and a readable pipe");
	is_int(epoll_ctl_r(ep, EPOLL_CTL_ADD, p[0], &ev), 0, "EPOLL_CTL ADD: 0");
	ok(epoll_wait(ep, &out, 1, 0) == 1 && out.data.u64 == 42, "epoll_wait reports its data");
	is_int(epoll_ctl_r(ep, EPOLL_CTL_ADD, p[0], &ev), -EEXIST, "ADD again: EEXIST");
	is_int(epoll_ctl_r(ep, EPOLL_CTL_DEL, p[0], NULL), 0, "DEL: 0");
	is_int(epoll_ctl_r(ep, EPOLL_CTL_DEL, p[0], NULL), -ENOENT, "DEL again: ENOENT");
	is_int(epoll_ctl_r(ep, EPOLL_CTL_ADD, p[0], (struct epoll_event *)8), -EFAULT,
	       "an event at a bad address: EFAULT");
	is_int(epoll_ctl_r(p[0], EPOLL_CTL_ADD, q[0], &ev), -EINVAL, "on a pipe, no epoll: EINVAL");
	uring_prep(&r, IORING_OP_EPOLL_CTL, ep, (uint64_t)(uintptr_t)&ev, EPOLL_CTL_ADD, q[0], 0)
	    ->buf_index = 1;
	is_int(uring_run1(&r), -EINVAL, "with buf_index set: EINVAL");
	/* Linked after a READ of the empty second pipe: it runs once the READ
	 * is done, long after its event was changed in user memory. */
	uring_prep(&r, IORING_OP_READ, q[0], (uint64_t)(uintptr_t)&byte, 1, (uint64_t)-1, 0)
	    ->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_EPOLL_CTL, ep, (uint64_t)(uintptr_t)&ev, EPOLL_CTL_ADD, p[0], 1);
	is_int(uring_submit_wait(&r, 0), 2, "a READ and a linked EPOLL_CTL submitted");
	ev.data.u64 = 7;
	require(write(q[1], "r", 1) == 1, "the READ's byte written");
	ok(!uring_wait(&r, &c) && !uring_wait(&r, &c) && c.user_data == 1 && c.res == 0,
	   "the EPOLL_CTL completes: 0");
	ok(epoll_wait(ep, &out, 1, 0) == 1 && out.data.u64 == 42,
	   "with the event as it was at submission");
	require(read(p[0], &byte, 1) == 1, "the pipe drained");
	close(ep);
}

static void check_advice(int f, int p[2])
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	uring_prep(&r, IORING_OP_FADVISE, f, 0, 4096, 0, 0)->fadvise_advice = POSIX_FADV_WILLNEED;
	is_int(uring_run1(&r), 0, "FADVISE WILLNEED of a file: 0");
	uring_prep(&r, IORING_OP_FADVISE, p[0], 0, 4096, 0, 0)->fadvise_advice = POSIX_FADV_NORMAL;
	is_int(uring_run1(&r), -ESPIPE, "FADVISE of a pipe: ESPIPE");
	uring_prep(&r, IORING_OP_FADVISE, f, 0, 4096, 0, 0)->fadvise_advice = 99;
	is_int(uring_run1(&r), -EINVAL, "an unknown advice: EINVAL");
	uring_prep(&r, IORING_OP_FADVISE, f, 1UL << 40, 0, 0, 0)->fadvise_advice =
	    POSIX_FADV_RANDOM;
	is_int(uring_run1(&r), 0, "FADVISE of a 64-bit length (addr): 0");
	uring_prep(&r, IORING_OP_FADVISE, f, 0, 4096, 0, 0)->buf_index = 1;
	is_int(uring_run1(&r), -EINVAL, "FADVISE with buf_index set: EINVAL");
	require(m != MAP_FAILED, "two anonymous pages");
	m[0] = m[pg] = 'x';
	uring_prep(&r, IORING_OP_MADVISE, -1, (uint64_t)(uintptr_t)m, (uint32_t)pg, 0, 0)
	    ->fadvise_advice = MADV_DONTNEED;
	is_int(uring_run1(&r), 0, "MADVISE DONTNEED of the first page: 0");
	ok(m[0] == 0 && m[pg] == 'x', "the first page reads zero, the second keeps its byte");
	uring_prep(&r, IORING_OP_MADVISE, -1, (uint64_t)(uintptr_t)m + 1, (uint32_t)pg, 0, 0)
	    ->fadvise_advice = MADV_DONTNEED;
	is_int(uring_run1(&r), -EINVAL, "MADVISE of an unaligned address: EINVAL");
	m[0] = m[pg] = 'y';
	uring_prep(&r, IORING_OP_MADVISE, -1, (uint64_t)(uintptr_t)m, 0, 2 * pg, 0)
	    ->fadvise_advice = MADV_DONTNEED;
	is_int(uring_run1(&r), 0, "MADVISE DONTNEED of a 64-bit length (off): 0");
	ok(m[0] == 0 && m[pg] == 0, "both pages read zero");
	uring_prep(&r, IORING_OP_MADVISE, -1, (uint64_t)(uintptr_t)m, (uint32_t)pg, 0, 0)
	    ->splice_fd_in = 1;
	is_int(uring_run1(&r), -EINVAL, "MADVISE with splice_fd_in set: EINVAL");
	munmap(m, 2 * pg);
}

int main(void)
{
	int f = uring_tmpfile(), p[2], q[2];

	plan(52);
	require(f >= 0 && !pipe(p) && !pipe(q), "a file and two pipes");
	require(!uring_init(&r, 8, 0), "a ring");
	check_splice(f, p, q);
	check_tee(p, q);
	check_fixed(f, p);
	check_wait_and_link(f, p);
	check_epoll_ctl(p, q);
	check_advice(f, p);
	uring_exit(&r);
	close(f);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	return done();
}
