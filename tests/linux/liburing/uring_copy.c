/* A file copy through Debian's liburing: each 4 KiB block is a READ
 * linked to the WRITE of the same block (IOSQE_IO_LINK), 8 blocks in
 * flight, the copy compared with its source; then a pipe in the middle
 * (a READ of a pipe end waits for its WRITE) and the probe as liburing
 * reports it. */
#define _GNU_SOURCE
#include <liburing.h>
#include <fcntl.h>
#include <stdlib.h>

#include "testutil.h"

#define BLOCK  4096
#define BLOCKS 64
#define DEPTH  8

static char src[BLOCK * BLOCKS], dst[BLOCK * BLOCKS], bufs[DEPTH][BLOCK];

static int make_file(const char *tmpl, char *path)
{
	strcpy(path, tmpl);
	return mkstemp(path);
}

/* Copies in to out through ring r, DEPTH blocks at a time (each block's
 * buffer free again once its batch is done): 0 or the first failing
 * CQE's res. */
static int copy(struct io_uring *r, int in, int out)
{
	struct io_uring_cqe *c;
	int err = 0;

	for (int base = 0; base < BLOCKS && !err; base += DEPTH) {
		for (int k = 0; k < DEPTH; k++) {
			struct io_uring_sqe *s = io_uring_get_sqe(r);
			uint64_t off = (uint64_t)(base + k) * BLOCK;
			io_uring_prep_read(s, in, bufs[k], BLOCK, off);
			s->flags |= IOSQE_IO_LINK;
			io_uring_prep_write(io_uring_get_sqe(r), out, bufs[k], BLOCK, off);
		}
		if (io_uring_submit(r) != 2 * DEPTH)
			return -1;
		for (int k = 0; k < 2 * DEPTH; k++) {
			if (io_uring_wait_cqe(r, &c))
				return -1;
			if (c->res != BLOCK && !err)
				err = c->res ? c->res : -1;
			io_uring_cqe_seen(r, c);
		}
	}
	return err;
}

int main(void)
{
	struct io_uring r;
	char sp[64], dp[64], buf[8] = {0};
	int in, out, p[2];

	plan(8);
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 131 + i / 4096);
	require((in = make_file("/tmp/uring_copy_inXXXXXX", sp)) >= 0 &&
		    (out = make_file("/tmp/uring_copy_outXXXXXX", dp)) >= 0,
		"files");
	require(write(in, src, sizeof(src)) == sizeof(src), "the source");
	is_int(io_uring_queue_init(2 * DEPTH, &r, 0), 0, "io_uring_queue_init");
	is_int(copy(&r, in, out), 0, "64 linked READ -> WRITE pairs, each 4096 bytes");
	ok(pread(out, dst, sizeof(dst), 0) == sizeof(dst) && !memcmp(src, dst, sizeof(src)),
	   "the copy equals its source");

	require(!pipe(p), "a pipe");
	struct io_uring_sqe *s = io_uring_get_sqe(&r);
	io_uring_prep_read(s, p[0], buf, 5, -1);
	s->user_data = 1;
	s = io_uring_get_sqe(&r);
	io_uring_prep_write(s, p[1], "hello", 5, -1);
	s->user_data = 2;
	is_int(io_uring_submit(&r), 2, "a pipe READ and then its WRITE submitted together");
	struct io_uring_cqe *c;
	int got = 0;
	for (int i = 0; i < 2 && !io_uring_wait_cqe(&r, &c); i++) {
		got |= c->res == 5 ? (int)c->user_data : 0;
		io_uring_cqe_seen(&r, c);
	}
	ok(got == 3 && !memcmp(buf, "hello", 5), "both complete, the READ with the bytes");

	struct io_uring_probe *pr = io_uring_get_probe_ring(&r);
	ok(pr && io_uring_opcode_supported(pr, IORING_OP_READ) &&
	       io_uring_opcode_supported(pr, IORING_OP_ACCEPT),
	   "liburing's probe: READ and ACCEPT supported");
	io_uring_free_probe(pr);
	io_uring_queue_exit(&r);
	ok(fcntl(r.ring_fd, F_GETFD) < 0 && errno == EBADF, "io_uring_queue_exit closed the ring");
	ok(!unlink(sp) && !unlink(dp), "clean up");
	return done();
}
