/* open(O_PATH): an fd that names a file without opening it.  read, write,
 * ioctl, mmap, fchmod, flock, lseek, getdents, epoll and sendfile see
 * EBADF (poll POLLNVAL); fstat, fstatfs, fchdir, *at calls, dup, the fd
 * fcntls, linkat and fchmodat with AT_EMPTY_PATH, readlinkat of "" on a
 * link, /proc/self/fd and close work; F_GETFL shows O_PATH; no device is
 * opened and no FIFO waits. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64], file[96], fifo[96], link_path[96];

/* Calls that need an open file, each on an O_PATH fd: EBADF from every one. */
static void test_refused(int fd, int dfd)
{
	char buf[8], ent[256];
	int arg = 0, ep = epoll_create1(0), bad = 0;
	struct epoll_event ev = {.events = EPOLLIN};
	struct {
		const char *name;
		long r;
	} calls[] = {
	    {"read", read(fd, buf, 1)},
	    {"write", write(fd, "x", 1)},
	    {"pread", pread(fd, buf, 1, 0)},
	    {"lseek", lseek(fd, 0, SEEK_SET)},
	    {"ioctl(FIONREAD)", ioctl(fd, FIONREAD, &arg)},
	    {"ioctl(FIONBIO)", ioctl(fd, FIONBIO, &arg)},
	    {"mmap", (long)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0)},
	    /* by number: musl's fchmod and fchown retry an O_PATH fd
	       through /proc/self/fd */
	    {"fchmod", syscall(SYS_fchmod, fd, 0600)},
	    {"fchown", syscall(SYS_fchown, fd, 0, 0)},
	    {"futimens", futimens(fd, NULL)},
	    {"flock", flock(fd, LOCK_SH)},
	    {"ftruncate", ftruncate(fd, 0)},
	    {"fallocate", fallocate(fd, 0, 0, 1)},
	    {"fcntl(F_SETFL)", fcntl(fd, F_SETFL, O_NONBLOCK)},
	    {"getdents64", syscall(SYS_getdents64, dfd, ent, sizeof ent)},
	    {"epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)},
	    {"sendfile", sendfile(1, fd, NULL, 1)},
	};

	for (unsigned i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (calls[i].r != -1) {
			diag("%s returned %ld", calls[i].name, calls[i].r);
			bad++;
		}
	is_int(bad, 0, "read, write, ioctl, mmap, fchmod, flock, lseek, getdents...: all fail");
	close(ep);
	/* errno of each, one at a time (the list above evaluates them all) */
	bad = 0;
	errno = 0;
	bad += read(fd, buf, 1) != -1 || errno != EBADF;
	bad += write(fd, "x", 1) != -1 || errno != EBADF;
	bad += ioctl(fd, FIONREAD, &arg) != -1 || errno != EBADF;
	bad += mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED || errno != EBADF;
	bad += syscall(SYS_fchmod, fd, 0600) != -1 || errno != EBADF;
	bad += flock(fd, LOCK_SH) != -1 || errno != EBADF;
	bad += fcntl(fd, F_SETFL, 0) != -1 || errno != EBADF;
	bad += syscall(SYS_getdents64, dfd, ent, sizeof ent) != -1 || errno != EBADF;
	is_int(bad, 0, "and each with EBADF");
	struct pollfd p = {fd, POLLIN, 0};
	ok(poll(&p, 1, 0) == 1 && p.revents == POLLNVAL, "poll: POLLNVAL");
}

static void test_allowed(int fd, int dfd)
{
	char path[128], target[128];
	struct stat st, st2;
	struct statfs sf;
	ssize_t n;
	int fd2;

	ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5,
	   "fstat (O_TRUNC did nothing)");
	ok(fstatfs(fd, &sf) == 0, "fstatfs");
	ok(fstatat(fd, "", &st2, AT_EMPTY_PATH) == 0 && st2.st_ino == st.st_ino,
	   "fstatat AT_EMPTY_PATH");
	is_int(fcntl(fd, F_GETFL), O_PATH, "F_GETFL: O_PATH (the access mode and O_TRUNC dropped)");
	is_int(fcntl(dfd, F_GETFL), O_PATH | O_DIRECTORY, "a directory's: O_PATH | O_DIRECTORY");
	ok(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
	   "F_SETFD, F_GETFD");
	fd2 = dup(fd);
	ok(fd2 >= 0 && fcntl(fd2, F_GETFL) == O_PATH, "dup keeps O_PATH");
	ok(read(fd2, path, 1) == -1 && errno == EBADF, "and the copy cannot read either");
	close(fd2);
	fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	ok(fd2 >= 0 && close(fd2) == 0, "F_DUPFD_CLOEXEC, close");
	fd2 = openat(dfd, "file", O_RDONLY);
	ok(fd2 >= 0 && read(fd2, path, 5) == 5, "an O_PATH directory as an openat dirfd");
	close(fd2);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof target - 1);
	ok(n > 0 && (target[n] = '\0', !strcmp(target, file)), "/proc/self/fd names it (%s)",
	   n > 0 ? target : "?");
	fd2 = open(path, O_RDONLY);
	ok(fd2 >= 0 && read(fd2, target, 5) == 5 && !memcmp(target, "hello", 5),
	   "reopened through /proc/self/fd it reads");
	close(fd2);
	snprintf(path, sizeof path, "%s/hard", dir);
	ok(linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0 && stat(path, &st2) == 0 &&
	       st2.st_ino == st.st_ino && st2.st_nlink == 2,
	   "linkat AT_EMPTY_PATH gives it a second name");
	unlink(path);
	ok(syscall(452 /* fchmodat2 */, fd, "", 0640, AT_EMPTY_PATH) == 0 && fstat(fd, &st2) == 0 &&
	       (st2.st_mode & 0777) == 0640,
	   "fchmodat2 AT_EMPTY_PATH changes it");
	ok(fchdir(dfd) == 0, "fchdir to an O_PATH directory");
	ok(stat("file", &st2) == 0 && st2.st_ino == st.st_ino, "and the cwd is there");
	ok(chdir("/") == 0, "back to /");
}

static void test_open_rules(void)
{
	struct stat st;
	int fd;

	fd = open("/dev/tty0", O_PATH);
	ok(fd >= 0 || errno == ENOENT, "a device: opened without its driver");
	close(fd);
	fd = open(fifo, O_PATH | O_WRONLY);
	ok(fd >= 0, "a FIFO: no wait for a reader");
	close(fd);
	fd = open(link_path, O_PATH | O_NOFOLLOW);
	ok(fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode),
	   "O_NOFOLLOW on a link: the link itself");
	is_int(fcntl(fd, F_GETFL), O_PATH | O_NOFOLLOW, "F_GETFL: O_PATH | O_NOFOLLOW");
	close(fd);
	is_errno(open(link_path, O_PATH), ENOENT, "a dangling link followed: ENOENT");
	is_errno(open(file, O_PATH | O_DIRECTORY), ENOTDIR, "O_DIRECTORY on a file: ENOTDIR");
	char missing[128];
	snprintf(missing, sizeof missing, "%s/missing", dir);
	is_errno(open(missing, O_PATH | O_CREAT, 0600), ENOENT, "O_CREAT is ignored: ENOENT");
	fd = open(dir, O_PATH | O_WRONLY);
	ok(fd >= 0, "O_WRONLY on a directory is ignored too");
	close(fd);
}

/* readlinkat with an empty path reads the link an O_PATH|O_NOFOLLOW fd
 * names; any other file there (dirfd's, the cwd's) is ENOENT, not EINVAL. */
static void test_readlink_empty(int fd, int dfd)
{
	int lfd = open(link_path, O_PATH | O_NOFOLLOW);
	char buf[32] = "";

	ok(readlinkat(lfd, "", buf, sizeof buf) == 7 && !memcmp(buf, "nowhere", 7),
	   "readlinkat(link fd, \"\"): the link's target");
	is_errno(readlinkat(fd, "", buf, sizeof buf), ENOENT, "readlinkat(file fd, \"\"): ENOENT");
	is_errno(readlinkat(dfd, "", buf, sizeof buf), ENOENT, "readlinkat(dir fd, \"\"): ENOENT");
	is_errno(readlinkat(AT_FDCWD, "", buf, sizeof buf), ENOENT,
		 "readlinkat(AT_FDCWD, \"\"): ENOENT");
	is_errno(readlinkat(lfd + 100, "", buf, sizeof buf), EBADF,
		 "readlinkat(bad fd, \"\"): EBADF");
	is_errno(readlinkat(dfd, "file", buf, sizeof buf), EINVAL,
		 "a named file, not a link: EINVAL");
	close(lfd);
}

int main(void)
{
	int fd, dfd;

	plan(35);
	snprintf(dir, sizeof dir, "/tmp/opath-%d", (int)getpid());
	snprintf(file, sizeof file, "%s/file", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(link_path, sizeof link_path, "%s/dangling", dir);
	require(mkdir(dir, 0755) == 0, "mkdir");
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	require(fd >= 0 && write(fd, "hello", 5) == 5, "write the file");
	close(fd);
	require(mkfifo(fifo, 0600) == 0 && symlink("nowhere", link_path) == 0, "fifo, link");
	fd = open(file, O_PATH | O_RDWR | O_TRUNC);
	dfd = open(dir, O_PATH | O_DIRECTORY);
	require(fd >= 0 && dfd >= 0, "open O_PATH");
	test_refused(fd, dfd);
	test_allowed(fd, dfd);
	test_open_rules();
	test_readlink_empty(fd, dfd);
	close(fd);
	close(dfd);
	ok(unlink(file) == 0 && unlink(fifo) == 0 && unlink(link_path) == 0 && rmdir(dir) == 0,
	   "clean up");
	return done();
}
