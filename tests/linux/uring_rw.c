/* io_uring reads and writes: files at an offset and at the file position
 * (offset -1), vectors, a read of an empty pipe that waits for a writer,
 * transfers on a pipe ignoring their offset, linked write -> read, a
 * failed link and a hard link, fsync, registered buffers (READ_FIXED and
 * their range checks), an eventfd told of each CQE, and the opcode probe. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/uio.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

static void check_files(void)
{
	int fd = uring_tmpfile();
	char buf[32] = {0};
	struct iovec iov[2] = {{buf, 3}, {buf + 3, 4}};

	require(fd >= 0, "a file");
	uring_prep(&r, IORING_OP_WRITE, fd, (uint64_t) "hello, ring", 11, 0, 0);
	is_int(uring_run1(&r), 11, "WRITE at offset 0: 11 bytes");
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 5, 7, 0);
	ok(uring_run1(&r) == 4 && !memcmp(buf, "ring", 4), "READ at offset 7: the last 4 bytes");
	lseek(fd, 0, SEEK_SET);
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 5, UINT64_MAX, 0);
	ok(uring_run1(&r) == 5 && !memcmp(buf, "hello", 5),
	   "READ at offset -1: from the file position");
	is_int(lseek(fd, 0, SEEK_CUR), 5, "which it moves (RW_CUR_POS)");
	uring_prep(&r, IORING_OP_READV, fd, (uint64_t)iov, 2, 0, 0);
	ok(uring_run1(&r) == 7 && !memcmp(buf, "hello, ", 7), "READV of two segments");
	uring_prep(&r, IORING_OP_WRITEV, fd, (uint64_t)iov, 1, 20, 0);
	is_int(uring_run1(&r), 3, "WRITEV at offset 20");
	uring_prep(&r, IORING_OP_FSYNC, fd, 0, 0, 0, 0);
	is_int(uring_run1(&r), 0, "FSYNC: 0");
	uring_prep(&r, IORING_OP_FSYNC, fd, 0, 0, 0, 0)->fsync_flags = 2;
	is_int(uring_run1(&r), -EINVAL, "FSYNC with an unknown flag: EINVAL");
	uring_prep(&r, IORING_OP_READ, 999, (uint64_t)buf, 5, 0, 0);
	is_int(uring_run1(&r), -EBADF, "READ of a closed fd: EBADF");
	uring_prep(&r, IORING_OP_READ, fd, 8, 5, 0, 0);
	is_int(uring_run1(&r), -EFAULT, "READ into a bad buffer: EFAULT");
	close(fd);
}

static void check_pipe(void)
{
	int p[2];
	char buf[8] = {0};
	struct iovec iov[2] = {{"xy", 2}, {"z", 1}}, rv = {buf, 2};
	struct io_uring_cqe c;

	require(!pipe(p), "a pipe");
	uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)buf, sizeof(buf), UINT64_MAX, 7);
	is_int(uring_submit_wait(&r, 0), 1, "READ of an empty pipe submitted");
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "it waits: no CQE");
	is_int(write(p[1], "abc", 3), 3, "a writer comes");
	ok(!uring_wait(&r, &c) && c.user_data == 7 && c.res == 3 && !memcmp(buf, "abc", 3),
	   "the READ completes with its bytes");
	/* The pipe's O_NONBLOCK does not end a READ with EAGAIN: io_uring
	 * waits on a file it can poll (Linux's REQ_F_SUPPORT_NOWAIT). */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)buf, sizeof(buf), UINT64_MAX, 9);
	is_int(uring_submit_wait(&r, 0), 1, "READ of an empty O_NONBLOCK pipe submitted");
	is_int(write(p[1], "de", 2), 2, "a writer comes");
	ok(!uring_wait(&r, &c) && c.user_data == 9 && c.res == 2 && !memcmp(buf, "de", 2),
	   "the READ waited for its bytes");
	fcntl(p[0], F_SETFL, 0);
	/* A pipe has no positions: every transfer ignores its offset
	 * (Linux's io_uring), where pwritev and preadv say ESPIPE. */
	uring_prep(&r, IORING_OP_WRITEV, p[1], (uint64_t)iov, 2, 5, 0);
	is_int(uring_run1(&r), 3, "WRITEV to a pipe at offset 5: the offset ignored");
	uring_prep(&r, IORING_OP_READV, p[0], (uint64_t)&rv, 1, 5, 0);
	ok(uring_run1(&r) == 2 && !memcmp(buf, "xy", 2), "READV of a pipe at offset 5 too");
	uring_prep(&r, IORING_OP_WRITE, p[1], (uint64_t) "q", 1, 9, 0);
	is_int(uring_run1(&r), 1, "WRITE to a pipe at offset 9");
	uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)buf, sizeof(buf), 9, 0);
	ok(uring_run1(&r) == 2 && !memcmp(buf, "zq", 2), "READ of a pipe at offset 9");
	is_int(pwritev(p[1], iov, 1, 5), -1, "pwritev of a pipe at offset 5: -1");
	is_int(errno, ESPIPE, "ESPIPE");
	/* IORING_FEAT_SUBMIT_STABLE: a waiting READV's iovec array may be
	 * reused once submitted; the read still goes where it said. */
	char other[4] = {0};
	struct iovec wv[2] = {{buf, 1}, {buf + 4, 2}};
	uring_prep(&r, IORING_OP_READV, p[0], (uint64_t)wv, 2, UINT64_MAX, 8);
	is_int(uring_submit_wait(&r, 0), 1, "READV of an empty pipe submitted");
	wv[0] = wv[1] = (struct iovec){other, sizeof(other)};
	is_int(write(p[1], "uvw", 3), 3, "its iovecs reused, a writer comes");
	ok(!uring_wait(&r, &c) && c.user_data == 8 && c.res == 3 && buf[0] == 'u' &&
	       !memcmp(buf + 4, "vw", 2) && !other[0],
	   "the READV fills the buffers its SQE named");
	close(p[0]);
	close(p[1]);
}

static void check_links(void)
{
	int fd = uring_tmpfile();
	char buf[16] = {0};
	int32_t res[3];

	uring_prep(&r, IORING_OP_WRITE, fd, (uint64_t) "linked", 6, 0, 0)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 6, 0, 1);
	is_int(uring_submit_wait(&r, 2), 2, "WRITE linked to READ: both submitted");
	uring_wait_n(&r, 2, res);
	ok(res[0] == 6 && res[1] == 6 && !memcmp(buf, "linked", 6), "the READ saw the WRITE");

	uring_prep(&r, IORING_OP_READ, -1, (uint64_t)buf, 6, 0, 0)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 2);
	uring_submit_wait(&r, 3);
	uring_wait_n(&r, 3, res);
	ok(res[0] == -EBADF && res[1] == -ECANCELED && res[2] == -ECANCELED,
	   "a failed link cancels the rest of its chain");
	uring_prep(&r, IORING_OP_READ, -1, (uint64_t)buf, 6, 0, 0)->flags = IOSQE_IO_HARDLINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	uring_wait_n(&r, 2, res);
	ok(res[0] == -EBADF && res[1] == 0, "a hard link goes on after a failure");
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 16, 0, 0)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	uring_wait_n(&r, 2, res);
	ok(res[0] == 6 && res[1] == -ECANCELED, "a short READ breaks its link too");
	close(fd);
}

static void check_fixed(void)
{
	char *mem = malloc(8192), buf[4];
	struct iovec iov = {mem, 8192};
	int fd = uring_tmpfile();

	is_int(uring_register_raw(r.fd, IORING_REGISTER_BUFFERS, &iov, 0), -EINVAL,
	       "register 0 buffers: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_BUFFERS, &iov, 1), 0, "register a buffer");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_BUFFERS, &iov, 1), -EBUSY, "again: EBUSY");
	memcpy(mem + 100, "fixed", 5);
	uring_prep(&r, IORING_OP_WRITE_FIXED, fd, (uint64_t)(mem + 100), 5, 0, 0);
	is_int(uring_run1(&r), 5, "WRITE_FIXED from inside the buffer");
	uring_prep(&r, IORING_OP_READ_FIXED, fd, (uint64_t)(mem + 8190), 5, 0, 0);
	is_int(uring_run1(&r), -EFAULT, "READ_FIXED past the buffer's end: EFAULT");
	uring_prep(&r, IORING_OP_READ_FIXED, fd, (uint64_t)mem, 5, 0, 0)->buf_index = 1;
	is_int(uring_run1(&r), -EFAULT, "READ_FIXED of buffer index 1 of 1: EFAULT");
	uring_prep(&r, IORING_OP_READ_FIXED, fd, (uint64_t)mem, 5, 0, 0);
	ok(uring_run1(&r) == 5 && !memcmp(mem, "fixed", 5), "READ_FIXED into it");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_BUFFERS, NULL, 0), 0, "unregister");
	(void)buf;
	close(fd);
	free(mem);
}

static void check_eventfd_probe(void)
{
	int efd = eventfd(0, EFD_NONBLOCK), p[2];
	uint64_t v = 0;
	struct {
		struct io_uring_probe p;
		struct io_uring_probe_op ops[256];
	} pr;

	require(efd >= 0 && !pipe(p), "an eventfd");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_EVENTFD, &p[0], 1), -EINVAL,
	       "register a pipe as the eventfd: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_EVENTFD, &efd, 2), -EINVAL,
	       "with nr_args 2: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_EVENTFD, &efd, 1), 0,
	       "register an eventfd");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_EVENTFD, &efd, 1), -EBUSY, "again: EBUSY");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 0);
	uring_run1(&r);
	ok(read(efd, &v, 8) == 8 && v == 1, "a CQE signals it once");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_EVENTFD, NULL, 0), 0, "unregister it");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 0);
	uring_run1(&r);
	ok(read(efd, &v, 8) < 0 && errno == EAGAIN, "then CQEs no longer do");

	memset(&pr, 0, sizeof(pr));
	is_int(uring_register_raw(r.fd, IORING_REGISTER_PROBE, &pr, 256), 0, "PROBE");
	ok(pr.p.last_op >= IORING_OP_SOCKET && (pr.p.ops[IORING_OP_NOP].flags & 1) &&
	       (pr.p.ops[IORING_OP_READ].flags & 1),
	   "NOP and READ supported, last_op %u", pr.p.last_op);
	pr.p.resv = 1;
	is_int(uring_register_raw(r.fd, IORING_REGISTER_PROBE, &pr, 4), -EINVAL,
	       "PROBE into a struct not zeroed: EINVAL");
	close(efd);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	plan(49);
	require(!uring_init(&r, 16, 0), "a ring");
	check_files();
	check_pipe();
	check_links();
	check_fixed();
	check_eventfd_probe();
	uring_exit(&r);
	return done();
}
