/* io_uring's path ops (MKDIRAT, SYMLINKAT, LINKAT, RENAMEAT, UNLINKAT)
 * and extended-attribute ops (FSETXATTR, SETXATTR, FGETXATTR, GETXATTR),
 * as liburing's mkdir, symlink, hardlink, rename, unlink and xattr tests
 * use them: each does its system call's work, which another process
 * sees, with its errors (EEXIST, ENOENT, EISDIR, EINVAL, EFAULT), and a
 * field the opcode does not take is EINVAL in the CQE, a direct
 * descriptor EBADF, and the paths are copied at submission, as Linux's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "testutil.h"
#include "uring_raw.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

static struct uring r;
static int dfd; /* the scratch directory */

static struct io_uring_sqe *prep_path2(uint8_t op, int fd, const char *a, int fd2, const char *b,
				       uint32_t flags)
{
	struct io_uring_sqe *s =
	    uring_prep(&r, op, fd, (uint64_t)(uintptr_t)a, (uint32_t)fd2, 0, 0);

	s->addr2 = (uint64_t)(uintptr_t)b;
	s->rename_flags = flags; /* hardlink_flags too: one word */
	return s;
}

static int32_t mkdirat_r(const char *path, uint32_t mode)
{
	uring_prep(&r, IORING_OP_MKDIRAT, dfd, (uint64_t)(uintptr_t)path, mode, 0, 0);
	return uring_run1(&r);
}

static int32_t unlinkat_r(const char *path, uint32_t flags)
{
	uring_prep(&r, IORING_OP_UNLINKAT, dfd, (uint64_t)(uintptr_t)path, 0, 0, 0)->unlink_flags =
	    flags;
	return uring_run1(&r);
}

/* Whether another process finds path (relative to dfd) there: 1, 0
 * (ENOENT), or -1. */
static int child_sees(const char *path)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(faccessat(dfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ? 1
		      : errno == ENOENT					   ? 0
									   : 2);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return -1;
	return WEXITSTATUS(st);
}

static void check_mkdirat(void)
{
	struct stat st;

	is_int(mkdirat_r("d", 0750), 0, "MKDIRAT: 0");
	ok(!fstatat(dfd, "d", &st, 0) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0750,
	   "a directory with the mode given");
	is_int(child_sees("d"), 1, "another process sees it");
	is_int(mkdirat_r("d", 0750), -EEXIST, "MKDIRAT again: EEXIST");
	is_int(mkdirat_r("none/d", 0750), -ENOENT, "under a missing directory: ENOENT");
	uring_prep(&r, IORING_OP_MKDIRAT, dfd, (uint64_t)(uintptr_t) "e", 0755, 8, 0);
	is_int(uring_run1(&r), -EINVAL, "with off set: EINVAL");
	uring_prep(&r, IORING_OP_MKDIRAT, dfd, 8, 0755, 0, 0);
	is_int(uring_run1(&r), -EFAULT, "a path at a bad address: EFAULT");
	uring_prep(&r, IORING_OP_MKDIRAT, 0, (uint64_t)(uintptr_t) "e", 0755, 0, 0)->flags =
	    IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), -EBADF, "with IOSQE_FIXED_FILE: EBADF");
}

static void check_symlinkat(void)
{
	char buf[16] = {0};

	/* SYMLINKAT: addr the target, fd the directory, addr2 the link */
	prep_path2(IORING_OP_SYMLINKAT, dfd, "d", 0, "l", 0);
	is_int(uring_run1(&r), 0, "SYMLINKAT: 0");
	ok(readlinkat(dfd, "l", buf, sizeof(buf) - 1) == 1 && buf[0] == 'd', "the link names d");
	prep_path2(IORING_OP_SYMLINKAT, dfd, "d", 0, "l", 0);
	is_int(uring_run1(&r), -EEXIST, "SYMLINKAT onto it again: EEXIST");
	prep_path2(IORING_OP_SYMLINKAT, dfd, "d", 0, "m", 0)->len = 1;
	is_int(uring_run1(&r), -EINVAL, "with len set: EINVAL");
}

static void check_linkat(void)
{
	struct stat st;
	int fd = openat(dfd, "f", O_CREAT | O_RDWR, 0600);

	require(fd >= 0 && write(fd, "hello", 5) == 5, "a file f");
	prep_path2(IORING_OP_LINKAT, dfd, "f", dfd, "g", 0);
	is_int(uring_run1(&r), 0, "LINKAT f to g: 0");
	ok(!fstat(fd, &st) && st.st_nlink == 2, "f has two links");
	prep_path2(IORING_OP_LINKAT, dfd, "f", dfd, "g", 0);
	is_int(uring_run1(&r), -EEXIST, "LINKAT onto g again: EEXIST");
	prep_path2(IORING_OP_LINKAT, dfd, "f", dfd, "h", 0x8000);
	is_int(uring_run1(&r), -EINVAL, "with an unknown flag: EINVAL");
	prep_path2(IORING_OP_LINKAT, dfd, "f", dfd, "h", 0)->buf_index = 1;
	is_int(uring_run1(&r), -EINVAL, "with buf_index set: EINVAL");
	close(fd);
}

static void check_renameat(void)
{
	char buf[8] = {0};
	int fd;

	prep_path2(IORING_OP_RENAMEAT, dfd, "g", dfd, "h", 0);
	is_int(uring_run1(&r), 0, "RENAMEAT g to h: 0");
	is_int(child_sees("g"), 0, "another process no longer finds g");
	is_int(child_sees("h"), 1, "and finds h");
	fd = openat(dfd, "h", O_RDONLY);
	ok(fd >= 0 && read(fd, buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5),
	   "h has f's bytes");
	close(fd);
	prep_path2(IORING_OP_RENAMEAT, dfd, "h", dfd, "f", RENAME_NOREPLACE);
	is_int(uring_run1(&r), -EEXIST, "RENAME_NOREPLACE onto f: EEXIST");
	prep_path2(IORING_OP_RENAMEAT, dfd, "g", dfd, "i", 0);
	is_int(uring_run1(&r), -ENOENT, "RENAMEAT of g, gone: ENOENT");
	prep_path2(IORING_OP_RENAMEAT, dfd, "h", dfd, "i", 0)->splice_fd_in = 3;
	is_int(uring_run1(&r), -EINVAL, "with splice_fd_in set: EINVAL");
}

static void check_unlinkat(void)
{
	struct stat st;

	is_int(unlinkat_r("h", 0), 0, "UNLINKAT h: 0");
	ok(!fstatat(dfd, "f", &st, 0) && st.st_nlink == 1, "f has one link again");
	is_int(unlinkat_r("h", 0), -ENOENT, "UNLINKAT h again: ENOENT");
	is_int(unlinkat_r("d", 0), -EISDIR, "UNLINKAT of a directory: EISDIR");
	is_int(unlinkat_r("d", AT_SYMLINK_NOFOLLOW), -EINVAL, "a flag but AT_REMOVEDIR: EINVAL");
	is_int(unlinkat_r("d", AT_REMOVEDIR), 0, "UNLINKAT with AT_REMOVEDIR: 0");
	is_int(child_sees("d"), 0, "another process no longer finds d");
	uring_prep(&r, IORING_OP_UNLINKAT, dfd, (uint64_t)(uintptr_t) "l", 1, 0, 0);
	is_int(uring_run1(&r), -EINVAL, "with len set: EINVAL");
}

/* A chain: each path op starts when the one before it has completed. */
static void check_chain(void)
{
	int32_t res[3] = {1, 1, 1};
	struct io_uring_sqe *s;

	s = uring_prep(&r, IORING_OP_MKDIRAT, dfd, (uint64_t)(uintptr_t) "c", 0700, 0, 0);
	s->flags = IOSQE_IO_LINK;
	s = prep_path2(IORING_OP_RENAMEAT, dfd, "c", dfd, "c2", 0);
	s->flags = IOSQE_IO_LINK;
	s->user_data = 1;
	prep_path2(IORING_OP_RENAMEAT, dfd, "c", dfd, "c3", 0)->user_data = 2;
	is_int(uring_submit_wait(&r, 0), 3, "a chain of MKDIRAT and two RENAMEATs submitted");
	require(!uring_wait_n(&r, 3, res), "their CQEs");
	ok(res[0] == 0 && res[1] == 0 && res[2] == -ENOENT,
	   "in order: 0, 0, then ENOENT for c, renamed (%d %d %d)", res[0], res[1], res[2]);
	is_int(unlinkat_r("c2", AT_REMOVEDIR), 0, "c2 removed");
}

/* The paths are copied at submission (IORING_FEAT_SUBMIT_STABLE): a
 * RENAMEAT linked after a READ of an empty pipe runs once the READ is
 * done, after its path buffers were overwritten, on the names it was
 * given. */
static void check_stable(void)
{
	char a[8] = "s1", b[8] = "s2", byte;
	int32_t res[2] = {1, 1};
	int p[2];

	require(!pipe(p) && !mkdirat(dfd, "s1", 0700), "a pipe and a directory s1");
	uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)(uintptr_t)&byte, 1, (uint64_t)-1, 0)
	    ->flags = IOSQE_IO_LINK;
	prep_path2(IORING_OP_RENAMEAT, dfd, a, dfd, b, 0)->user_data = 1;
	is_int(uring_submit_wait(&r, 0), 2,
	       "a READ of an empty pipe and a linked RENAMEAT submitted");
	strcpy(a, "x1");
	strcpy(b, "x2");
	require(write(p[1], "r", 1) == 1, "the READ's byte written");
	require(!uring_wait_n(&r, 2, res), "their CQEs");
	ok(res[0] == 1 && res[1] == 0, "the READ, then the RENAMEAT: 1, 0 (%d %d)", res[0], res[1]);
	ok(child_sees("s2") == 1 && child_sees("s1") == 0 && child_sees("x2") == 0,
	   "s1 was renamed s2, the names given at submission");
	is_int(unlinkat_r("s2", AT_REMOVEDIR), 0, "s2 removed");
	close(p[0]);
	close(p[1]);
}

/* The xattr ops answer what their system calls answer (a file system
 * without xattrs says EOPNOTSUPP, as fdkernel's ramfs), after Linux's
 * own checks. */
static void check_xattrs(const char *dir)
{
	char path[256], val[16] = {0};
	int fd = openat(dfd, "f", O_RDWR);
	struct io_uring_sqe *s;
	long got;
	int32_t res;

	snprintf(path, sizeof(path), "%s/f", dir);
	require(fd >= 0, "f opened");
	s = uring_prep(&r, IORING_OP_FSETXATTR, fd, (uint64_t)(uintptr_t) "user.u", 3, 0, 0);
	s->addr2 = (uint64_t)(uintptr_t) "abc";
	s->xattr_flags = XATTR_CREATE;
	res = uring_run1(&r);
	got = fgetxattr(fd, "user.u", val, sizeof(val));
	ok(res == 0 ? got == 3 && !memcmp(val, "abc", 3)
		    : res == -EOPNOTSUPP && got < 0 && errno == EOPNOTSUPP,
	   "FSETXATTR sets what fgetxattr reads, or both say EOPNOTSUPP (%d)", res);
	s = uring_prep(&r, IORING_OP_FGETXATTR, fd, (uint64_t)(uintptr_t) "user.u", sizeof(val), 0,
		       0);
	s->addr2 = (uint64_t)(uintptr_t)val;
	is_int(uring_run1(&r), res == 0 ? 3 : -EOPNOTSUPP, "FGETXATTR answers as fgetxattr");
	s = uring_prep(&r, IORING_OP_GETXATTR, 0, (uint64_t)(uintptr_t) "user.u", sizeof(val), 0,
		       0);
	s->addr2 = (uint64_t)(uintptr_t)val;
	s->addr3 = (uint64_t)(uintptr_t)path;
	is_int(uring_run1(&r), res == 0 ? 3 : -EOPNOTSUPP, "GETXATTR of its path: the same");
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t) "user.u", 3, 0, 0);
	s->addr2 = (uint64_t)(uintptr_t) "xyz";
	s->addr3 = (uint64_t)(uintptr_t)path;
	s->xattr_flags = 4;
	is_int(uring_run1(&r), -EINVAL, "SETXATTR with an unknown flag: EINVAL");
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t) "", 3, 0, 0);
	s->addr3 = (uint64_t)(uintptr_t)path;
	is_int(uring_run1(&r), -ERANGE, "SETXATTR of an empty name: ERANGE");
	s = uring_prep(&r, IORING_OP_GETXATTR, 0, (uint64_t)(uintptr_t) "user.u", 0, 0, 0);
	s->addr3 = (uint64_t)(uintptr_t) "/nonexistent/f";
	is_int(uring_run1(&r), -ENOENT, "GETXATTR of a missing path: ENOENT");
	s = uring_prep(&r, IORING_OP_FGETXATTR, fd, (uint64_t)(uintptr_t) "user.u", 0, 0, 0);
	s->xattr_flags = XATTR_CREATE;
	is_int(uring_run1(&r), -EINVAL, "FGETXATTR with flags: EINVAL");
	uring_prep(&r, IORING_OP_FGETXATTR, 999, (uint64_t)(uintptr_t) "user.u", 0, 0, 0);
	is_int(uring_run1(&r), -EBADF, "FGETXATTR of a closed fd: EBADF");
	close(fd);
}

/* An xattr op's name, value and path are copied at its preparation
 * (IORING_FEAT_SUBMIT_STABLE, Linux's io_uring/xattr.c): a SETXATTR
 * linked behind a poll of an empty pipe, its memory then overwritten
 * (an empty name, another value, a missing path), sets what it was
 * given; and the preparation's errors come in Linux's order, before the
 * file or path is looked at. */
static void check_xattr_prep(const char *dir)
{
	char path[256], name[16] = "user.s", val[4] = "abc", got[8] = {0}, longname[300];
	struct io_uring_sqe *s;
	int32_t res[2] = {-1, -1};
	int p[2], fd = openat(dfd, "f", O_RDWR);
	long n;
	void *bad = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(fd >= 0 && bad != MAP_FAILED && !munmap(bad, 4096) && !pipe(p),
		"f, an unmapped page, a pipe");
	snprintf(path, sizeof(path), "%s/f", dir);
	s = uring_prep(&r, IORING_OP_POLL_ADD, p[0], 0, 0, 0, 0);
	s->poll32_events = POLLIN;
	s->flags = IOSQE_IO_LINK;
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t)name, 3, 0, 1);
	s->addr2 = (uint64_t)(uintptr_t)val;
	s->addr3 = (uint64_t)(uintptr_t)path;
	is_int(uring_submit_wait(&r, 0), 2, "a poll linked to a SETXATTR submitted");
	name[0] = 0;
	memcpy(val, "zzz", 3);
	strcpy(path, "/nonexistent");
	require(write(p[1], "x", 1) == 1, "the pipe written");
	uring_wait_n(&r, 2, res);
	n = fgetxattr(fd, "user.s", got, sizeof(got));
	ok(res[1] == 0 ? n == 3 && !memcmp(got, "abc", 3)
		       : res[1] == -EOPNOTSUPP && n < 0 && errno == EOPNOTSUPP,
	   "its name, value and path were copied at submission: it set 'abc' on f, or "
	   "EOPNOTSUPP as fgetxattr (%d)",
	   res[1]);

	snprintf(path, sizeof(path), "%s/f", dir);
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t)bad, 3, 0, 0);
	s->addr3 = (uint64_t)(uintptr_t)bad;
	is_int(uring_run1(&r), -EFAULT, "SETXATTR with its name and path unmapped: EFAULT");
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t) "user.s", 65537, 0, 0);
	s->addr2 = (uint64_t)(uintptr_t)bad;
	s->addr3 = (uint64_t)(uintptr_t) "/nonexistent/f";
	is_int(uring_run1(&r), -E2BIG, "SETXATTR of 65537 bytes: E2BIG, before the value and path");
	s = uring_prep(&r, IORING_OP_SETXATTR, 0, (uint64_t)(uintptr_t) "user.s", 3, 0, 0);
	s->addr2 = (uint64_t)(uintptr_t)bad;
	s->addr3 = (uint64_t)(uintptr_t) "/nonexistent/f";
	is_int(uring_run1(&r), -EFAULT,
	       "SETXATTR with its value unmapped: EFAULT, before the path");
	s = uring_prep(&r, IORING_OP_FSETXATTR, 999, (uint64_t)(uintptr_t) "user.s", 3, 0, 0);
	s->addr2 = (uint64_t)(uintptr_t)bad;
	is_int(uring_run1(&r), -EFAULT, "FSETXATTR of a closed fd with its value unmapped: EFAULT");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	s = uring_prep(&r, IORING_OP_GETXATTR, 0, (uint64_t)(uintptr_t)longname, 0, 0, 0);
	s->addr3 = (uint64_t)(uintptr_t) "/nonexistent/f";
	is_int(uring_run1(&r), -ERANGE, "GETXATTR of a 299-byte name: ERANGE, before the path");
	uring_prep(&r, IORING_OP_FGETXATTR, 999, (uint64_t)(uintptr_t)bad, 0, 0, 0);
	is_int(uring_run1(&r), -EFAULT, "FGETXATTR of a closed fd with its name unmapped: EFAULT");
	s = uring_prep(&r, IORING_OP_GETXATTR, 0, (uint64_t)(uintptr_t) "user.s", 0, 0, 0);
	s->addr3 = (uint64_t)(uintptr_t) "";
	is_int(uring_run1(&r), -ENOENT, "GETXATTR of an empty path: ENOENT");
	fremovexattr(fd, "user.s");
	close(p[0]);
	close(p[1]);
	close(fd);
}

int main(void)
{
	char dir[] = "/tmp/urpathXXXXXX";

	plan(48 + 9);
	umask(0);
	require(mkdtemp(dir) && (dfd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0,
		"a scratch directory");
	require(!uring_init(&r, 8, 0), "a ring");
	check_mkdirat();
	check_symlinkat();
	check_linkat();
	check_renameat();
	check_unlinkat();
	check_chain();
	check_stable();
	check_xattrs(dir);
	check_xattr_prep(dir);
	unlinkat(dfd, "l", 0);
	unlinkat(dfd, "f", 0);
	ok(!rmdir(dir), "the scratch directory empty at the end");
	uring_exit(&r);
	close(dfd);
	return done();
}
