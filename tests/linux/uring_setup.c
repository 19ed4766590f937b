/* io_uring_setup, io_uring_enter and io_uring_register argument checks,
 * in Linux's order and with its errno: entry counts (rounding, CQSIZE,
 * CLAMP), reserved words, the params pointer, the mmap offsets and
 * lengths, the ring fd's close-on-exec, enter's flags and fds, register's
 * opcodes; a ring fd never passes in SCM_RIGHTS (Linux 6.7+); and a NOP
 * batch of 32 with each user_data back. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "testutil.h"
#include "uring_raw.h"

static void check_sizes(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	is_int(uring_setup_raw(0, &p), -EINVAL, "0 entries: EINVAL");
	is_int(uring_setup_raw(IORING_MAX_ENTRIES + 1, &p), -EINVAL, "past the maximum: EINVAL");
	fd = uring_setup_raw(5, &p);
	ok(fd >= 0 && p.sq_entries == 8 && p.cq_entries == 16, "5 entries: 8 SQ, 16 CQ (%u %u)",
	   p.sq_entries, p.cq_entries);
	ok(fd >= 0 && (fcntl((int)fd, F_GETFD) & FD_CLOEXEC), "the ring fd is close-on-exec");
	ok((p.features & (IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_SUBMIT_STABLE |
			  IORING_FEAT_RW_CUR_POS)) ==
	       (IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_SUBMIT_STABLE |
		IORING_FEAT_RW_CUR_POS),
	   "features: SINGLE_MMAP, NODROP, SUBMIT_STABLE, RW_CUR_POS");
	close((int)fd);

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CLAMP;
	fd = uring_setup_raw(IORING_MAX_ENTRIES * 4, &p);
	ok(fd >= 0 && p.sq_entries == IORING_MAX_ENTRIES, "CLAMP: clamped to the maximum");
	close((int)fd);

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	is_int(uring_setup_raw(4, &p), -EINVAL, "CQSIZE with cq_entries 0: EINVAL");
	p.cq_entries = 2;
	is_int(uring_setup_raw(4, &p), -EINVAL, "CQSIZE smaller than the SQ: EINVAL");
	p.cq_entries = 100;
	fd = uring_setup_raw(4, &p);
	ok(fd >= 0 && p.cq_entries == 128, "CQSIZE 100: rounded to 128");
	close((int)fd);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = IORING_MAX_CQ_ENTRIES + 1;
	is_int(uring_setup_raw(4, &p), -EINVAL, "CQSIZE past its maximum: EINVAL");

	memset(&p, 0, sizeof(p));
	p.resv[1] = 1;
	is_int(uring_setup_raw(4, &p), -EINVAL, "a reserved word set: EINVAL");
	memset(&p, 0, sizeof(p));
	p.flags = 1U << 31;
	is_int(uring_setup_raw(4, &p), -EINVAL, "an unknown flag: EINVAL");
	is_int(uring_setup_raw(4, (void *)8), -EFAULT, "a bad params pointer: EFAULT");
}

static void check_mmap(void)
{
	struct uring r;
	void *m;

	require(!(uring_init(&r, 4, 0)), "a ring");
	/* Linux 6.1 (Debian 12's) says EINVAL, 6.18 ENOMEM: fdkernel is 6.1. */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, r.fd, 0x48000000);
	ok(m == MAP_FAILED && (errno == EINVAL || (!on_fdkernel() && errno == ENOMEM)),
	   "mmap at an unknown offset fails (EINVAL)");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, r.fd, IORING_OFF_CQ_RING);
	ok(m != MAP_FAILED && ((uint32_t *)m)[r.p.cq_off.ring_entries / 4] == r.p.cq_entries,
	   "OFF_CQ_RING maps the CQ ring (its entry count)");
	munmap(m, 4096);
	uring_exit(&r);
}

static void check_enter(void)
{
	struct uring r;
	int p[2];

	require(!(uring_init(&r, 4, 0) || pipe(p)), "a ring");
	is_int(uring_enter_raw(-1, 0, 0, 0, NULL, 0), -EBADF, "enter on fd -1: EBADF");
	is_int(uring_enter_raw(p[0], 0, 0, 0, NULL, 0), -EOPNOTSUPP, "enter on a pipe: EOPNOTSUPP");
	is_int(uring_enter_raw(r.fd, 0, 0, 1U << 30, NULL, 0), -EINVAL,
	       "enter with an unknown flag: EINVAL");
	is_int(uring_enter_raw(r.fd, 0, 0, 0, NULL, 0), 0, "enter with nothing to do: 0");
	is_int(uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			       &(struct io_uring_getevents_arg){0}, 8),
	       -EINVAL, "EXT_ARG with a wrong size: EINVAL");
	struct io_uring_getevents_arg ea = {0};
	struct {
		int64_t s, ns;
	} ts = {0, 1000000};
	ea.ts = (uint64_t)&ts;
	is_int(uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ea,
			       sizeof(ea)),
	       -ETIME, "EXT_ARG timeout with no CQE: ETIME");
	is_int(uring_register_raw(p[0], IORING_REGISTER_PROBE, NULL, 0), -EOPNOTSUPP,
	       "register on a pipe: EOPNOTSUPP");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_BUFFERS, NULL, 0), -ENXIO,
	       "unregister buffers none registered: ENXIO");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_EVENTFD, NULL, 0), -ENXIO,
	       "unregister eventfd none registered: ENXIO");
	close(p[0]);
	close(p[1]);
	uring_exit(&r);
}

static void check_nops(void)
{
	struct uring r;
	int32_t res[32];
	int i, bad = 0;

	require(!(uring_init(&r, 32, 0)), "a ring");
	for (i = 0; i < 32; i++)
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, (uint64_t)i);
	memset(res, 0x55, sizeof(res));
	is_int(uring_submit_wait(&r, 32), 32, "32 NOPs submitted at once");
	is_int(uring_wait_n(&r, 32, res), 0, "and 32 CQEs come back");
	for (i = 0; i < 32; i++)
		bad += res[i] != 0;
	is_int(bad, 0, "each NOP's user_data with res 0");

	/* A bad SQE fails in its CQE and ends the batch (no SUBMIT_ALL). */
	uring_prep(&r, 200, -1, 0, 0, 0, 0);
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1)->flags = 0x80;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 3)->flags = IOSQE_CQE_SKIP_SUCCESS;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 2);
	memset(res, 0x55, sizeof(res));
	is_int(uring_submit_wait(&r, 1), 1, "an unknown opcode ends the batch after itself");
	is_int(uring_submit_wait(&r, 1), 1, "so does an unknown SQE flag, next time");
	is_int(uring_submit_wait(&r, 1), 2, "then the other two go");
	uring_wait_n(&r, 3, res);
	ok(res[0] == -EINVAL && res[1] == -EINVAL,
	   "unknown opcode, unknown flag: EINVAL in the CQE");
	struct io_uring_cqe c;
	ok(res[2] == 0 && !uring_peek(&r, &c), "CQE_SKIP_SUCCESS: no CQE for the NOP that asked");
	ok(!uring_peek(&r, &c), "and nothing else");

	/* A bad index in the SQ array is dropped and counted. */
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 0);
	r.sq_array[(r.sq_local - 1) & *r.sq_mask] = 1000;
	uring_submit_wait(&r, 0);
	is_int(*r.sq_dropped, 1, "an SQ array index past the entries is dropped");
	uring_exit(&r);
}

/* A ring fd in SCM_RIGHTS is EINVAL, and nothing is sent: a ring
 * sent over a socket it registers would keep itself alive. */
static void check_scm(void)
{
	struct uring r;
	int sv[2], fds[2];
	char cbuf[CMSG_SPACE(sizeof(fds))] = {0}, c = 'x';
	struct iovec v = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	require(!uring_init(&r, 4, 0) && !socketpair(AF_UNIX, SOCK_DGRAM, 0, sv),
		"a ring and a socket pair");
	fds[0] = sv[0];
	fds[1] = r.fd;
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(h), fds, sizeof(fds));
	is_errno(sendmsg(sv[0], &m, 0), EINVAL, "a ring fd in SCM_RIGHTS: EINVAL");
	is_errno(recv(sv[1], &c, 1, MSG_DONTWAIT), EAGAIN, "nothing was sent");
	uring_exit(&r);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(36);
	check_sizes();
	check_mmap();
	check_enter();
	check_nops();
	check_scm();
	return done();
}
