/* io_uring personalities (IORING_REGISTER_PERSONALITY): root registers
 * its credentials, becomes an ordinary user (setresuid), and the OPENAT
 * and STATX requests that name the personality reach a root-only file
 * and directory, inline and on a worker (IOSQE_ASYNC), while the same
 * requests without it get EACCES; a file one creates is root's.  A
 * request keeps its personality's credentials once submitted, even if
 * the id is unregistered before it runs, or its ring closes while it
 * waits.  Bad register arguments and unknown ids: Linux's EINVAL (in
 * the CQE for an SQE).  Root only. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cred_util.h"
#include "uring_raw.h"

#define SECRET "root only\n"
#define NO_ID  0xfffe /* an id never registered here */

static char dir[64], secret[96], private_dir[96], private_file[128], made[128];
static struct uring r;

/* An OPENAT of path (O_RDONLY, or O_CREAT|O_WRONLY with create) with
 * personality id (0: none) and SQE flags: its CQE's res. */
static int32_t open_as(uint16_t id, const char *path, bool create, uint8_t flags)
{
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, (uint64_t)path, create ? 0644 : 0, 0, 1);

	s->open_flags = create ? O_CREAT | O_EXCL | O_WRONLY : O_RDONLY;
	s->personality = id;
	s->flags = flags;
	return uring_run1(&r);
}

/* A STATX of path with personality id, into buf: its CQE's res. */
static int32_t statx_as(uint16_t id, const char *path, uint8_t *buf)
{
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_STATX, AT_FDCWD, (uint64_t)path, 0x7ff, (uint64_t)buf, 2);

	s->personality = id;
	return uring_run1(&r);
}

/* fd holds the secret: read, compared, closed. */
static bool holds_secret(int fd)
{
	char buf[32] = "";
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(SECRET) && !strcmp(buf, SECRET);
}

static void register_errors(void)
{
	is_int(uring_register_raw(r.fd, IORING_REGISTER_PERSONALITY, NULL, 1), -EINVAL,
	       "REGISTER_PERSONALITY with nr_args 1: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_PERSONALITY, &r, 0), -EINVAL,
	       "REGISTER_PERSONALITY with an argument: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_PERSONALITY, NULL, 0), -EINVAL,
	       "UNREGISTER_PERSONALITY of id 0: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_PERSONALITY, NULL, NO_ID), -EINVAL,
	       "UNREGISTER_PERSONALITY of an unknown id: EINVAL");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_PERSONALITY, &r, 1), -EINVAL,
	       "UNREGISTER_PERSONALITY with an argument: EINVAL");
}

/* A one-byte READ of the empty pipe p (user_data data, personality id),
 * which waits for a writer: its SQE.  Offset -1: the current position,
 * as a stream has no other.  The byte goes to a static: the ring may
 * outlive the caller's frame. */
static struct io_uring_sqe *pipe_read(const int p[2], uint16_t id, uint64_t data)
{
	static char byte;
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)&byte, 1, UINT64_MAX, data);

	s->personality = id;
	return s;
}

/* Submitted with the personality, run after its unregister: a READ of
 * an empty pipe linked to an OPENAT, completed once the id is gone. */
static void kept_after_unregister(uint16_t id)
{
	struct io_uring_cqe c;
	int p[2], fd = -1, read_res = -1;

	if (!ok(pipe(p) == 0, "a pipe"))
		return;
	pipe_read(p, 0, 3)->flags = IOSQE_IO_LINK;
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, (uint64_t)secret, 0, 0, 4);
	s->open_flags = O_RDONLY;
	s->personality = id;
	is_int(uring_submit_wait(&r, 0), 2,
	       "a READ of an empty pipe and a linked OPENAT submitted");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_PERSONALITY, NULL, id), 0,
	       "the id unregistered while its request waits");
	ok(write(p[1], "x", 1) == 1, "the READ can complete");
	for (int i = 0; i < 2 && !uring_wait(&r, &c); i++) {
		if (c.user_data == 3)
			read_res = c.res;
		else
			fd = c.res;
	}
	is_int(read_res, 1, "the READ read its byte");
	ok(holds_secret(fd), "the OPENAT still ran with the personality: %d", fd);
	close(p[0]);
	close(p[1]);
}

/* The ring closed while a request holding the personality waits: its
 * cancel drops the request's reference, the ring's end the id's (the
 * guest's leak check counts credentials). */
static void close_in_flight(uint16_t id)
{
	int p[2];

	if (!ok(pipe(p) == 0, "another pipe"))
		return;
	pipe_read(p, id, 5);
	is_int(uring_submit_wait(&r, 0), 1, "a READ with the personality waits on a pipe");
	uring_exit(&r); /* id still registered too */
	close(p[0]);
	close(p[1]);
}

static void as_user(void)
{
	uint8_t st[256] = {0};
	int32_t id, id2, res;
	struct stat sb;

	if (!ok(!uring_init(&r, 8, 0), "a ring"))
		return;
	register_errors();
	/* credentials of their own, not the first process's static ones,
	 * which no leak check could count */
	ok(setgroups(1, (gid_t[]){G1}) == 0, "root takes a supplementary group");
	id = (int32_t)uring_register_raw(r.fd, IORING_REGISTER_PERSONALITY, NULL, 0);
	id2 = (int32_t)uring_register_raw(r.fd, IORING_REGISTER_PERSONALITY, NULL, 0);
	ok(id > 0 && id <= 0xffff, "root's credentials registered: id %d", id);
	ok(id2 > 0 && id2 <= 0xffff && id2 != id, "again: another id, %d", id2);
	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(open(secret, O_RDONLY), EACCES, "U1 cannot open the root-only file");

	is_int(open_as(0, secret, false, 0), -EACCES, "OPENAT without a personality: EACCES");
	is_int(open_as(0, secret, false, IOSQE_ASYNC), -EACCES,
	       "the same on a worker (IOSQE_ASYNC): EACCES");
	ok(holds_secret(open_as((uint16_t)id, secret, false, 0)),
	   "OPENAT with the personality opens it");
	ok(holds_secret(open_as((uint16_t)id, secret, false, IOSQE_ASYNC)),
	   "and so on a worker (IOSQE_ASYNC)");
	is_int(open_as(NO_ID, secret, false, 0), -EINVAL,
	       "an unknown personality: EINVAL in the CQE");

	is_int(statx_as(0, private_file, st), -EACCES,
	       "STATX in a root-only directory without the personality: EACCES");
	res = statx_as((uint16_t)id, private_file, st);
	ok(res == 0 && *(uint32_t *)(st + 20) == 0, "with it: done, the file is root's (%d)", res);

	res = open_as((uint16_t)id2, made, true, IOSQE_ASYNC);
	ok(res >= 0 && fstat(res, &sb) == 0 && sb.st_uid == 0,
	   "a file the personality creates (on a worker) is root's (%d)", res);
	if (res >= 0)
		close(res);
	kept_after_unregister((uint16_t)id2);
	is_int(open_as((uint16_t)id2, secret, false, 0), -EINVAL,
	       "an unregistered personality: EINVAL in the CQE");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_PERSONALITY, NULL, (unsigned)id2),
	       -EINVAL, "unregistered twice: EINVAL");
	ok(holds_secret(open_as((uint16_t)id, secret, false, 0)), "the other id still works");
	close_in_flight((uint16_t)id);
}

/* The root-only file and directory, in a directory of /tmp U1 can read. */
static bool make_files(void)
{
	int fd;

	snprintf(dir, sizeof dir, "/tmp/uring_pers.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755))
		return false;
	snprintf(secret, sizeof secret, "%s/secret", dir);
	snprintf(private_dir, sizeof private_dir, "%s/private", dir);
	snprintf(private_file, sizeof private_file, "%s/private/file", dir);
	if ((fd = open(secret, O_CREAT | O_WRONLY, 0600)) < 0)
		return false;
	if (write(fd, SECRET, strlen(SECRET)) != (ssize_t)strlen(SECRET) || close(fd))
		return false;
	if (mkdir(private_dir, 0700) || (fd = open(private_file, O_CREAT | O_WRONLY, 0600)) < 0)
		return false;
	close(fd);
	snprintf(made, sizeof made, "%s/private/made", dir); /* OPENAT's O_CREAT */
	return true;
}

int main(void)
{
	if (geteuid() != 0)
		skip_all("registers root's credentials: run as root");
	plan(31);
	require(make_files(), "a root-only file and directory in /tmp");
	in_child("as U1", as_user);
	unlink(made);
	unlink(private_file);
	rmdir(private_dir);
	unlink(secret);
	ok(rmdir(dir) == 0, "nothing else left behind");
	return done();
}
