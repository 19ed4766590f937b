/* Direct descriptors made by io_uring ops, through Debian's liburing:
 * OPENAT, SOCKET and ACCEPT into a chosen slot or IORING_FILE_INDEX_ALLOC
 * (the result is the slot), FILE_ALLOC_RANGE and ENFILE, CLOSE of a slot,
 * the errno cases (no table, past the table, O_CLOEXEC), an OPENAT
 * linked to a READ of the slot it fills, the process's lowest free fd
 * untouched, and a ring closed with registered files and a request in
 * flight. */
#define _GNU_SOURCE
#include <liburing.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "testutil.h"
#include "uring_run1.h"

#define ALLOC (IORING_FILE_INDEX_ALLOC - 1) /* liburing's slot argument for it */

static char path[64];

static int open_direct(struct io_uring *r, unsigned slot, int flags)
{
	io_uring_prep_openat_direct(io_uring_get_sqe(r), AT_FDCWD, path, flags, 0, slot);
	return run1(r);
}

static int close_direct(struct io_uring *r, unsigned slot)
{
	io_uring_prep_close_direct(io_uring_get_sqe(r), slot);
	return run1(r);
}

static int read_fixed_slot(struct io_uring *r, int slot, char *buf, unsigned len)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	io_uring_prep_read(s, slot, buf, len, 0);
	s->flags |= IOSQE_FIXED_FILE;
	return run1(r);
}

static int range(struct io_uring *r, unsigned off, unsigned len, uint64_t resv, unsigned nr)
{
	struct io_uring_file_index_range rg = {.off = off, .len = len, .resv = resv};
	long ret =
	    syscall(__NR_io_uring_register, r->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE, &rg, nr);

	return ret < 0 ? -errno : (int)ret;
}

static void no_table(struct io_uring *r)
{
	is_int(open_direct(r, 0, O_RDONLY), -ENXIO, "OPENAT into slot 0, no table: ENXIO");
	is_int(open_direct(r, ALLOC, O_RDONLY), -ENFILE, "OPENAT with ALLOC, no table: ENFILE");
	is_int(close_direct(r, 0), -ENXIO, "CLOSE of slot 0, no table: ENXIO");
	is_int(range(r, 0, 0, 0, 0), 0, "FILE_ALLOC_RANGE 0+0 without a table");
	is_int(range(r, 0, 1, 0, 0), -EINVAL, "FILE_ALLOC_RANGE past no table: EINVAL");
}

static void opens(struct io_uring *r)
{
	char buf[8] = {0};
	int s[3], fd0 = open("/dev/null", O_RDONLY);

	close(fd0);
	is_int(io_uring_register_files_sparse(r, 8), 0, "a sparse table of 8");
	is_int(range(r, 2, 3, 0, 1), -EINVAL, "FILE_ALLOC_RANGE with nr 1: EINVAL");
	is_int(range(r, 2, 3, 1, 0), -EINVAL, "resv set: EINVAL");
	is_int(range(r, 6, 3, 0, 0), -EINVAL, "past the table: EINVAL");
	is_int(range(r, UINT32_MAX, 2, 0, 0), -EOVERFLOW, "off + len wraps: EOVERFLOW");
	is_int(range(r, 2, 3, 0, 0), 0, "FILE_ALLOC_RANGE slots 2..4");
	for (int i = 0; i < 3; i++)
		s[i] = open_direct(r, ALLOC, O_RDONLY);
	ok(s[0] >= 2 && s[0] < 5 && s[1] >= 2 && s[1] < 5 && s[2] >= 2 && s[2] < 5 &&
	       s[0] != s[1] && s[1] != s[2] && s[0] != s[2],
	   "three OPENATs with ALLOC: three slots of the range (%d %d %d)", s[0], s[1], s[2]);
	is_int(open_direct(r, ALLOC, O_RDONLY), -ENFILE, "a fourth: ENFILE");
	ok(read_fixed_slot(r, s[1], buf, 5) == 5 && !memcmp(buf, "hello", 5),
	   "a fixed READ of an allocated slot reads the file");
	is_int(close_direct(r, (unsigned)s[1]), 0, "CLOSE of that slot");
	is_int(close_direct(r, (unsigned)s[1]), -EBADF, "again: EBADF");
	is_int(read_fixed_slot(r, s[1], buf, 5), -EBADF, "a fixed READ of it: EBADF");
	is_int(open_direct(r, ALLOC, O_RDONLY), s[1], "ALLOC gives the one free slot of the range");
	is_int(close_direct(r, 8), -EINVAL, "CLOSE past the table: EINVAL");
	is_int(open_direct(r, 7, O_RDONLY), 0, "OPENAT into slot 7: 0");
	is_int(open_direct(r, 7, O_RDONLY), 0, "into slot 7 again: 0 (replaces)");
	ok(read_fixed_slot(r, 7, buf, 5) == 5, "slot 7 reads");
	is_int(open_direct(r, 8, O_RDONLY), -EINVAL, "into slot 8 (past the table): EINVAL");
	is_int(open_direct(r, 6, O_RDONLY | O_CLOEXEC), -EINVAL, "with O_CLOEXEC: EINVAL");
	is_int(open_direct(r, 6, O_RDONLY | O_NOFOLLOW | O_DIRECTORY), -ENOTDIR,
	       "the open's own error first (ENOTDIR)");
	int fd = open("/dev/null", O_RDONLY);
	is_int(fd, fd0, "the process's lowest free fd is as before");
	close(fd);

	struct io_uring_sqe *q = io_uring_get_sqe(r);
	io_uring_prep_close(q, 1);
	q->file_index = 1;
	is_int(run1(r), -EINVAL, "CLOSE with both fd and file_index: EINVAL");
}

static void linked(struct io_uring *r)
{
	struct io_uring_cqe *c;
	char buf[8] = {0};
	int res[2] = {-1, -1};

	struct io_uring_sqe *o = io_uring_get_sqe(r);
	io_uring_prep_openat_direct(o, AT_FDCWD, path, O_RDONLY, 0, 6);
	o->flags |= IOSQE_IO_LINK;
	o->user_data = 1;
	struct io_uring_sqe *s = io_uring_get_sqe(r);
	io_uring_prep_read(s, 6, buf, 5, 0);
	s->flags |= IOSQE_FIXED_FILE;
	s->user_data = 2;
	is_int(io_uring_submit(r), 2, "an OPENAT into slot 6 linked to a fixed READ of slot 6");
	for (int i = 0; i < 2 && !io_uring_wait_cqe(r, &c); i++) {
		res[c->user_data == 2] = c->res;
		io_uring_cqe_seen(r, c);
	}
	ok(res[0] == 0 && res[1] == 5 && !memcmp(buf, "hello", 5),
	   "the READ finds the file the OPENAT put there (%d %d)", res[0], res[1]);
}

static void sockets(struct io_uring *r)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char buf[8] = {0};
	int cfd, lslot, aslot;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s.sock", path);
	unlink(a.sun_path);
	require(!io_uring_register_file_alloc_range(r, 0, 8), "the whole table again");
	io_uring_prep_socket_direct(io_uring_get_sqe(r), AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 5,
				    0);
	is_int(run1(r), -EINVAL, "SOCKET direct with SOCK_CLOEXEC: EINVAL");
	io_uring_prep_socket_direct_alloc(io_uring_get_sqe(r), AF_UNIX, SOCK_STREAM, 0, 0);
	lslot = run1(r);
	ok(lslot >= 0 && lslot < 8, "SOCKET with ALLOC: slot %d", lslot);
	/* bind and listen on a plain fd: the listening socket's own. */
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 4),
		"a listening socket");
	require((cfd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0 &&
		    !connect(cfd, (struct sockaddr *)&a, sizeof(a)),
		"a client connected");
	io_uring_prep_accept_direct(io_uring_get_sqe(r), lfd, NULL, NULL, SOCK_CLOEXEC, 0);
	is_int(run1(r), -EINVAL, "ACCEPT direct with SOCK_CLOEXEC: EINVAL");
	io_uring_prep_accept_direct(io_uring_get_sqe(r), lfd, NULL, NULL, 0, ALLOC);
	aslot = run1(r);
	ok(aslot >= 0 && aslot < 8 && aslot != lslot, "ACCEPT with ALLOC: slot %d", aslot);
	struct io_uring_sqe *s = io_uring_get_sqe(r);
	io_uring_prep_send(s, aslot, "ping", 4, 0);
	s->flags |= IOSQE_FIXED_FILE;
	is_int(run1(r), 4, "a fixed SEND on the accepted connection");
	ok(read(cfd, buf, 4) == 4 && !memcmp(buf, "ping", 4), "the client reads it");
	require(write(cfd, "pong", 4) == 4, "the client answers");
	s = io_uring_get_sqe(r);
	io_uring_prep_recv(s, aslot, buf, 4, 0);
	s->flags |= IOSQE_FIXED_FILE;
	ok(run1(r) == 4 && !memcmp(buf, "pong", 4), "a fixed RECV gets the answer");
	is_int(close_direct(r, (unsigned)aslot), 0, "CLOSE of the connection's slot");
	ok(read(cfd, buf, 4) == 0, "the client sees EOF");
	close(cfd);
	close(lfd);
	unlink(a.sun_path);
}

/* The ring closed while a fixed READ waits on a pipe: the READ ends and
 * the table's files go (the writer slot's pipe reports EOF). */
static void close_in_flight(void)
{
	struct io_uring r;
	int p[2], q[2], files[2];
	char buf[4];

	require(!pipe(p) && !pipe(q), "pipes");
	require(!io_uring_queue_init(4, &r, 0), "a second ring");
	files[0] = p[0];
	files[1] = q[1];
	is_int(io_uring_register_files(&r, files, 2), 0,
	       "slots: a pipe's read end, another's write end");
	struct io_uring_sqe *s = io_uring_get_sqe(&r);
	io_uring_prep_read(s, 0, buf, 4, -1);
	s->flags |= IOSQE_FIXED_FILE;
	is_int(io_uring_submit(&r), 1, "a fixed READ that waits");
	close(q[1]);
	io_uring_queue_exit(&r);
	alarm(60); /* a hang fails the test */
	ok(read(q[0], buf, 4) == 0, "the ring closed: its slot's writer went (EOF)");
	alarm(0);
	close(p[0]);
	close(p[1]);
	close(q[0]);
}

int main(void)
{
	struct io_uring r;
	int fd;

	plan(43);
	strcpy(path, "/tmp/uring_directXXXXXX");
	require((fd = mkstemp(path)) >= 0 && write(fd, "hello", 5) == 5, "a file");
	close(fd);
	is_int(io_uring_queue_init(8, &r, 0), 0, "io_uring_queue_init");
	no_table(&r);
	opens(&r);
	linked(&r);
	sockets(&r);
	io_uring_queue_exit(&r);
	close_in_flight();
	ok(!unlink(path), "clean up");
	return done();
}
