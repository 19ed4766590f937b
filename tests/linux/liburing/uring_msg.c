/* io_uring's MSG_RING and registered rings through Debian's liburing
 * (the errno cases through the raw call): a message's CQE to its own
 * ring and to another, which a thread waiting on that ring receives;
 * a direct descriptor passed to another ring's table (into a slot, or
 * IORING_FILE_INDEX_ALLOC), still usable there once the sender closed
 * its own, and with IORING_MSG_RING_CQE_SKIP no CQE in the target; the
 * target's CQ ring full: the message overflows, kept (NODROP); Linux's
 * errnos (EBADFD for a file that is no ring, on an fd or a direct
 * descriptor, EBADF, EINVAL, ENXIO).  IORING_REGISTER_RING_FDS:
 * io_uring_enter through a registered index, which keeps the ring after
 * its fd is closed, UNREGISTER_RING_FDS, their errnos, and a child that
 * does not inherit the parent's table. */
#define _GNU_SOURCE
#include <liburing.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_run1.h"

#define NSLOTS 8

/* io_uring_register: its result, or -errno. */
static int reg(int fd, unsigned op, const void *arg, unsigned nr)
{
	long r = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return r < 0 ? -errno : (int)r;
}

/* A MSG_RING to fd (flags: the SQE's) of command cmd: its CQE's res. */
static int msg(struct io_uring *r, int fd, uint8_t flags, uint64_t cmd, unsigned len, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	io_uring_prep_msg_ring(s, fd, len, data, 0);
	s->addr = cmd;
	s->flags = flags;
	return run1(r);
}

/* SEND_FD of r's direct descriptor src into target's slot dst (1-based,
 * or IORING_FILE_INDEX_ALLOC), with msg_ring_flags mflags. */
static int send_fd(struct io_uring *r, int target, unsigned src, unsigned dst, unsigned mflags,
		   uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	io_uring_prep_msg_ring(s, target, 0, data, mflags);
	s->addr = IORING_MSG_SEND_FD;
	s->addr3 = src;
	s->file_index = dst;
	return run1(r);
}

/* Whether r's CQ ring holds a CQE now (consumed into *out). */
static bool peek(struct io_uring *r, struct io_uring_cqe *out)
{
	struct io_uring_cqe *c;

	if (io_uring_peek_cqe(r, &c))
		return false;
	*out = *c;
	io_uring_cqe_seen(r, c);
	return true;
}

static void *waiter(void *arg)
{
	struct io_uring_cqe c = {0};

	next_cqe(arg, &c);
	return (void *)(uintptr_t)(c.user_data == 0x5aa5 && c.res == 0x20);
}

static void check_data(struct io_uring *a, struct io_uring *b)
{
	struct io_uring_cqe c1 = {0}, c2 = {0};
	struct io_uring_sqe *s = io_uring_get_sqe(a);
	pthread_t t;
	void *got = NULL;

	io_uring_prep_msg_ring(s, a->ring_fd, 0x10, 0x1234, 0);
	s->user_data = 1;
	io_uring_submit(a);
	next_cqe(a, &c1);
	next_cqe(a, &c2);
	if (c1.user_data != 1) {
		struct io_uring_cqe t2 = c1;
		c1 = c2;
		c2 = t2;
	}
	ok(c1.user_data == 1 && c1.res == 0 && c2.user_data == 0x1234 && c2.res == 0x10 &&
	       !c2.flags,
	   "DATA to its own ring: its CQE 0, the message's res 0x10, user_data 0x1234");
	pthread_create(&t, NULL, waiter, b);
	is_int(msg(a, b->ring_fd, 0, IORING_MSG_DATA, 0x20, 0x5aa5), 0, "DATA to another ring: 0");
	pthread_join(t, &got);
	ok(got != NULL, "a thread waiting on that ring receives res 0x20, user_data 0x5aa5");
}

static void check_errors(struct io_uring *a, int pipefd)
{
	struct io_uring_sqe *s;
	int fd = pipefd;

	is_int(msg(a, pipefd, 0, IORING_MSG_DATA, 0, 1), -EBADFD, "to a pipe: EBADFD");
	is_int(msg(a, 999, 0, IORING_MSG_DATA, 0, 1), -EBADF, "to a closed fd: EBADF");
	is_int(io_uring_register_files(a, &fd, 1), 0, "a pipe as direct descriptor 0");
	is_int(msg(a, 0, IOSQE_FIXED_FILE, IORING_MSG_DATA, 0, 1), -EBADFD,
	       "to a direct descriptor that is no ring: EBADFD");
	is_int(io_uring_unregister_files(a), 0, "unregistered");
	is_int(msg(a, a->ring_fd, 0, 7, 0, 1), -EINVAL, "an unknown command: EINVAL");
	s = io_uring_get_sqe(a);
	io_uring_prep_msg_ring(s, a->ring_fd, 0, 1, 0);
	s->addr3 = 1;
	is_int(run1(a), -EINVAL, "DATA naming a source descriptor: EINVAL");
	s = io_uring_get_sqe(a);
	io_uring_prep_msg_ring(s, a->ring_fd, 0, 1, 0x80);
	is_int(run1(a), -EINVAL, "an unknown msg_ring flag: EINVAL");
	s = io_uring_get_sqe(a);
	io_uring_prep_msg_ring(s, a->ring_fd, 0, 1, 0);
	s->buf_index = 1;
	is_int(run1(a), -EINVAL, "a buf_index: EINVAL");
}

/* A fixed READ of 5 bytes at offset 0 through slot: the bytes, or "". */
static const char *fixed_read(struct io_uring *r, int slot, char *buf)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	memset(buf, 0, 8);
	io_uring_prep_read(s, slot, buf, 5, 0);
	s->flags |= IOSQE_FIXED_FILE;
	return run1(r) == 5 ? buf : "";
}

static void check_send_fd(struct io_uring *a, struct io_uring *b, struct io_uring *c, int file)
{
	struct io_uring_cqe cqe = {0};
	char buf[8];
	int fds[1] = {file}, res;

	is_int(send_fd(a, b->ring_fd, 0, 1, 0, 9), -EBADF,
	       "SEND_FD from a ring with no table: EBADF");
	require(!io_uring_register_files_sparse(a, NSLOTS) &&
		    !io_uring_register_files_sparse(b, NSLOTS),
		"sparse tables of 8 slots");
	is_int(io_uring_register_files_update(a, 0, fds, 1), 1, "the file into slot 0");
	is_int(send_fd(a, b->ring_fd, 3, 1, 0, 9), -EBADF, "SEND_FD of an empty slot: EBADF");
	is_int(send_fd(a, a->ring_fd, 0, 1, 0, 9), -EINVAL, "SEND_FD to its own ring: EINVAL");
	is_int(send_fd(a, c->ring_fd, 0, 1, 0, 9), -ENXIO,
	       "SEND_FD to a ring with no table: ENXIO");
	is_int(send_fd(a, b->ring_fd, 0, NSLOTS + 1, 0, 9), -EINVAL,
	       "SEND_FD past the target's table: EINVAL");
	ok(!peek(b, &cqe), "no CQE in the target for those");

	is_int(send_fd(a, b->ring_fd, 0, 3, 0, 0x89), 0,
	       "SEND_FD of slot 0 into the target's slot 2: 0");
	ok(peek(b, &cqe) && cqe.user_data == 0x89 && cqe.res == 0, "the target's CQE: 0x89, res 0");
	ok(!strcmp(fixed_read(b, 2, buf), "hello"), "the target reads the file through slot 2");
	res = send_fd(a, b->ring_fd, 0, IORING_FILE_INDEX_ALLOC, 0, 0x8a);
	ok(res >= 0 && res < NSLOTS && res != 2, "SEND_FD into a free slot: slot %d", res);
	ok(peek(b, &cqe) && cqe.user_data == 0x8a && cqe.res == res, "the target's CQE names it");
	ok(!strcmp(fixed_read(b, res, buf), "hello"), "and reads through it");
	is_int(send_fd(a, b->ring_fd, 0, 6, IORING_MSG_RING_CQE_SKIP, 0x8b), 0,
	       "SEND_FD with MSG_RING_CQE_SKIP: 0");
	ok(!peek(b, &cqe), "no CQE in the target");
	ok(!strcmp(fixed_read(b, 5, buf), "hello"), "the file is in its slot 5");

	io_uring_prep_close_direct(io_uring_get_sqe(a), 0);
	is_int(run1(a), 0, "the sender closes its slot 0");
	ok(!*fixed_read(a, 0, buf), "the sender reads nothing through it");
	ok(!strcmp(fixed_read(b, 2, buf), "hello"), "the target still reads through its slot 2");
}

/* The target's CQ ring (2 entries) full: a message overflows (NODROP)
 * and arrives once the target consumes. */
static void check_overflow(struct io_uring *a)
{
	struct io_uring t;
	struct io_uring_cqe cqe;
	int n = 0, good = 0;

	require(!io_uring_queue_init(1, &t, 0), "a ring of 2 CQEs");
	for (int i = 0; i < 3; i++)
		good += msg(a, t.ring_fd, 0, IORING_MSG_DATA, i, 100 + i) == 0;
	is_int(good, 3, "three messages to it: 0 each");
	ok(IO_URING_READ_ONCE(*t.sq.kflags) & IORING_SQ_CQ_OVERFLOW, "the third overflowed");
	for (struct io_uring_cqe *c; n < 3 && !io_uring_wait_cqe_nr(&t, &c, 1); n++) {
		cqe = *c;
		io_uring_cqe_seen(&t, c);
		good += cqe.user_data == (uint64_t)(100 + n) && cqe.res == n;
	}
	is_int(good, 6, "all three arrive in order");
	io_uring_queue_exit(&t);
}

static int enter_registered(unsigned idx, struct io_uring *r)
{
	io_uring_prep_nop(io_uring_get_sqe(r));
	io_uring_smp_store_release(r->sq.ktail, r->sq.sqe_tail);
	r->sq.sqe_head = r->sq.sqe_tail;
	long ret = syscall(__NR_io_uring_enter, idx, 1, 1,
			   IORING_ENTER_GETEVENTS | IORING_ENTER_REGISTERED_RING, NULL, 0);
	return ret < 0 ? -errno : (int)ret;
}

static void check_ring_fds(int pipefd)
{
	struct io_uring r;
	struct io_uring_rsrc_update up = {.offset = -1U};
	struct io_uring_cqe cqe;
	int status = -1;
	pid_t pid;

	require(!io_uring_queue_init(4, &r, 0), "a ring for RING_FDS");
	up.data = r.ring_fd;
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), 1, "REGISTER_RING_FDS: 1");
	is_int(up.offset, 0, "at the first free index, written back: 0");
	is_int(enter_registered(up.offset, &r), 1, "io_uring_enter through index 0: 1 submitted");
	ok(peek(&r, &cqe) && cqe.res == 0, "its NOP's CQE");
	up.offset = 0;
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), -EBUSY, "index 0 again: EBUSY");
	up = (struct io_uring_rsrc_update){.offset = 16, .data = r.ring_fd};
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), -EINVAL, "index 16: EINVAL");
	up = (struct io_uring_rsrc_update){.offset = -1U, .data = pipefd};
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), -EOPNOTSUPP, "a pipe: EOPNOTSUPP");
	up.data = 999;
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), -EBADF, "a closed fd: EBADF");
	up = (struct io_uring_rsrc_update){.offset = -1U, .resv = 1, .data = r.ring_fd};
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 1), -EINVAL, "resv set: EINVAL");
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 0), -EINVAL, "nr 0: EINVAL");
	is_int(reg(r.ring_fd, IORING_REGISTER_RING_FDS, &up, 17), -EINVAL, "nr 17: EINVAL");

	if ((pid = fork()) == 0) {
		/* A ring of its own used, then the index: not inherited. */
		struct io_uring own;

		if (io_uring_queue_init(2, &own, 0))
			_exit(2);
		io_uring_prep_nop(io_uring_get_sqe(&own));
		io_uring_submit_and_wait(&own, 1);
		_exit(enter_registered(0, &own) == -EBADF ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	is_int(status, 0, "a child's index 0 is empty: EBADF");

	close(r.ring_fd);
	is_int(enter_registered(0, &r), 1, "its fd closed, the ring is there through index 0");
	ok(peek(&r, &cqe) && cqe.res == 0, "its NOP's CQE");
	up = (struct io_uring_rsrc_update){.offset = 0};
	is_int(reg(999, IORING_UNREGISTER_RING_FDS, &up, 1), -EBADF,
	       "UNREGISTER_RING_FDS on a closed fd: EBADF");
	up.data = 1;
	is_int(syscall(__NR_io_uring_register, 0, IORING_UNREGISTER_RING_FDS | (1U << 31), &up, 1) <
		       0
		   ? -errno
		   : 0,
	       -EINVAL, "UNREGISTER_RING_FDS with data set: EINVAL");
	up.data = 0;
	is_int((int)syscall(__NR_io_uring_register, 0, IORING_UNREGISTER_RING_FDS | (1U << 31), &up,
			    1),
	       1, "UNREGISTER_RING_FDS through the registered ring itself: 1");
	is_int(enter_registered(0, &r), -EBADF, "index 0 then: EBADF");
}

/* An unlinked scratch file holding text: its fd, or -1. */
static int scratch(const char *text)
{
	char path[] = "/tmp/uringmsgXXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0) {
		unlink(path);
		if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
			return -1;
	}
	return fd;
}

int main(void)
{
	struct io_uring a, b, c;
	int p[2], file = scratch("hello");

	plan(52);
	require(file >= 0 && !pipe(p), "a file and a pipe");
	require(!io_uring_queue_init(8, &a, 0) && !io_uring_queue_init(8, &b, 0) &&
		    !io_uring_queue_init(8, &c, 0),
		"three rings");
	check_data(&a, &b);
	check_errors(&a, p[0]);
	check_send_fd(&a, &b, &c, file);
	check_overflow(&a);
	check_ring_fds(p[0]);
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
	io_uring_queue_exit(&c);
	return done();
}
