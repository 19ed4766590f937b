/* fcntl record locks, POSIX ones (F_GETLK/F_SETLK/F_SETLKW): byte ranges
 * from whence/start/len (len 0 to the end of file, negative len), split
 * and merge of a process's own locks, shared and exclusive, released by
 * any close of the file and at exit, waits that a release, the holder's
 * death or a signal ends, EDEADLK across three processes, and the errno
 * of every bad argument.  A child sees the parent's locks as another
 * owner's: each question about "the other side" is asked from a fork. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/time.h>
#include <unistd.h>

#include "testutil.h"

static char path[64];

static int lk(int fd, int cmd, short type, short whence, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = whence, .l_start = start, .l_len = len};

	return fcntl(fd, cmd, &fl);
}

/* F_GETLK for [start, start+len) of type, asked by a child: what another
 * process sees.  The answer comes back through a pipe. */
static struct flock probe(int fd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	int p[2];
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (fcntl(fd, F_GETLK, &fl) < 0)
			fl.l_type = -1;
		_exit(write(p[1], &fl, sizeof fl) != sizeof fl);
	}
	require(pid > 0 && read(p[0], &fl, sizeof fl) == sizeof fl, "probe");
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	return fl;
}

/* Whether a child could take a lock of type over [start, start+len) now. */
static bool other_can_lock(int fd, short type, off_t start, off_t len)
{
	return probe(fd, type, start, len).l_type == F_UNLCK;
}

static bool is_lock(struct flock fl, short type, off_t start, off_t len, pid_t pid)
{
	if (fl.l_type == type && fl.l_start == start && fl.l_len == len && fl.l_pid == pid &&
	    fl.l_whence == SEEK_SET)
		return true;
	diag("got type %d start %ld len %ld pid %d whence %d", fl.l_type, (long)fl.l_start,
	     (long)fl.l_len, fl.l_pid, fl.l_whence);
	return false;
}

static void test_ranges(int fd)
{
	pid_t me = getpid();

	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10), 0, "write lock on [10, 20)");
	ok(is_lock(probe(fd, F_RDLCK, 0, 100), F_WRLCK, 10, 10, me),
	   "another process sees it, with our pid");
	ok(other_can_lock(fd, F_WRLCK, 0, 10) && other_can_lock(fd, F_WRLCK, 20, 5),
	   "the bytes beside it are free");
	is_int(lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 14, 2), 0,
	       "a read lock inside our own write lock");
	ok(is_lock(probe(fd, F_RDLCK, 0, 100), F_WRLCK, 10, 4, me),
	   "splits it: [10, 14) stays write");
	ok(is_lock(probe(fd, F_WRLCK, 14, 2), F_RDLCK, 14, 2, me), "[14, 16) is read");
	ok(other_can_lock(fd, F_RDLCK, 14, 2), "which a reader may share");
	ok(is_lock(probe(fd, F_RDLCK, 16, 100), F_WRLCK, 16, 4, me), "[16, 20) stays write");
	is_int(lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0), 0, "unlock everything");
	ok(other_can_lock(fd, F_WRLCK, 0, 0), "nothing left");

	lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 10);
	lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 10, 10);
	lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 30, 10);
	ok(is_lock(probe(fd, F_WRLCK, 0, 100), F_RDLCK, 0, 20, me), "adjacent read locks merge");
	lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 15, 20);
	ok(is_lock(probe(fd, F_WRLCK, 0, 100), F_RDLCK, 0, 40, me),
	   "one bridging two merges all three");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 5, 30);
	ok(is_lock(probe(fd, F_WRLCK, 0, 100), F_RDLCK, 0, 5, me) &&
	       other_can_lock(fd, F_WRLCK, 5, 30) &&
	       is_lock(probe(fd, F_WRLCK, 5, 100), F_RDLCK, 35, 5, me),
	   "unlocking the middle leaves both ends");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);

	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 5, 0), 0, "len 0: from 5 to the end of file");
	ok(is_lock(probe(fd, F_RDLCK, 1000000, 1), F_WRLCK, 5, 0, me),
	   "reported with len 0, far past the end");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 10, -5), 0,
	       "negative len: the 5 bytes before 10");
	ok(is_lock(probe(fd, F_RDLCK, 0, 0), F_WRLCK, 5, 5, me), "seen as [5, 10)");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);

	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 40, 5);
	lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 20, 5);
	ok(is_lock(probe(fd, F_WRLCK, 0, 0), F_RDLCK, 20, 5, me),
	   "F_GETLK reports the lowest conflicting range, whatever the order set");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 20, 2);
	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 30, 1);
	ok(is_lock(probe(fd, F_WRLCK, 0, 0), F_RDLCK, 22, 3, me),
	   "also after a lock was cut from below");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);

	require(ftruncate(fd, 100) == 0 && lseek(fd, 50, SEEK_SET) == 50, "size 100, offset 50");
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_CUR, -10, 5), 0, "SEEK_CUR -10");
	ok(is_lock(probe(fd, F_RDLCK, 0, 0), F_WRLCK, 40, 5, me), "is [40, 45)");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_END, -1, 0), 0, "SEEK_END -1");
	ok(is_lock(probe(fd, F_RDLCK, 0, 0), F_WRLCK, 99, 0, me), "is [99, EOF)");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
}

static void test_sharing(int fd)
{
	int status;

	is_int(lk(fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 10), 0, "read lock");
	ok(other_can_lock(fd, F_RDLCK, 0, 10), "another reader shares it");
	ok(!other_can_lock(fd, F_WRLCK, 5, 1), "a writer conflicts");
	fflush(stdout);
	if (fork() == 0)
		_exit(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1) == -1 &&
			      (errno == EAGAIN || errno == EACCES)
			  ? 0
			  : 1);
	wait(&status);
	ok(exited_with(status, 0), "F_SETLK of a conflicting lock: EAGAIN");
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10), 0,
	       "upgrading our own read lock to write");
	ok(!other_can_lock(fd, F_RDLCK, 0, 1), "now readers conflict too");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
}

static void test_close(int fd)
{
	int fd2 = open(path, O_RDWR), fd3 = dup(fd), status;

	require(fd2 >= 0 && fd3 >= 0, "second open, dup");
	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
	close(fd3);
	ok(other_can_lock(fd, F_WRLCK, 0, 10),
	   "closing a dup of the fd releases the process's locks");
	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
	close(fd2);
	ok(other_can_lock(fd, F_WRLCK, 0, 10),
	   "closing another open of the same file does too (POSIX)");
	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
	fflush(stdout);
	if (fork() == 0) {
		close(fd); /* the child's close is not the owner's */
		_exit(0);
	}
	wait(&status);
	ok(!other_can_lock(fd, F_WRLCK, 0, 10), "a child's close of its copy does not");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);

	fflush(stdout);
	if (fork() == 0) {
		lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1);
		_exit(0); /* exit releases */
	}
	wait(&status);
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), 0, "a lock of an exited process is gone");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	ok(other_can_lock(fd, F_WRLCK, 0, 0), "F_UNLCK of the whole file leaves nothing");
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A child that takes [0, 1) with F_SETLKW, then tells through pipe p. */
static pid_t waiter(int fd, int p[2])
{
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char c = lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1) == 0 ? 'y' : 'n';
		_exit(write(p[1], &c, 1) != 1);
	}
	close(p[1]);
	return pid;
}

static void test_waits(int fd)
{
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	struct itimerval it = {.it_value = {0, 50000}};
	struct pollfd pfd;
	int p[2], status;
	pid_t holder, pid;
	char c = 0;

	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1);
	pid = waiter(fd, p);
	sleep_ms(50); /* give it time to block; nothing below depends on it */
	pfd = (struct pollfd){.fd = p[0], .events = POLLIN};
	is_int(poll(&pfd, 1, 0), 0, "F_SETLKW waits while the lock is held");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 1);
	ok(read(p[0], &c, 1) == 1 && c == 'y', "and gets it when it is released");
	waitpid(pid, NULL, 0);
	close(p[0]);

	fflush(stdout);
	if ((holder = fork()) == 0) {
		lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1);
		pause();
		_exit(0);
	}
	while (other_can_lock(fd, F_WRLCK, 0, 1))
		sleep_ms(5);
	pid = waiter(fd, p);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	ok(read(p[0], &c, 1) == 1 && c == 'y', "a waiter gets the lock when its holder is killed");
	waitpid(pid, NULL, 0);
	close(p[0]);

	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		_exit(lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 1) == -1 && errno == EINTR ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "a signal ends the wait with EINTR");
	ok(!other_can_lock(fd, F_WRLCK, 0, 1), "the holder still has it");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
}

/* The state letter of /proc/<pid>/stat, or 0. */
static char proc_state(pid_t pid)
{
	char name[64], buf[256], *paren;
	int sfd;
	ssize_t n;

	snprintf(name, sizeof name, "/proc/%d/stat", pid);
	if ((sfd = open(name, O_RDONLY)) < 0)
		return 0;
	n = read(sfd, buf, sizeof buf - 1);
	close(sfd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] ? paren[2] : 0;
}

/* A child that holds byte own, says so on ready, then waits for byte want. */
static pid_t chain_link(int fd, int own, int want, int ready)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		lk(fd, F_SETLK, F_WRLCK, SEEK_SET, own, 1);
		if (write(ready, "r", 1) != 1)
			_exit(2);
		_exit(lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, want, 1) == 0 ? 0 : 1);
	}
	return pid;
}

/* Waits until pid has sent its ready byte and is asleep (in its F_SETLKW). */
static void until_waiting(pid_t pid, int ready)
{
	char c;

	require(read(ready, &c, 1) == 1, "ready");
	while ((c = proc_state(pid)) != 'S') {
		require(c != 'Z' && c != 0, "the waiter is still there");
		sleep_ms(2);
	}
}

static void test_deadlock(int fd)
{
	int p[2], s1, s2;
	pid_t a, b;

	require(pipe(p) == 0, "pipe");
	lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 3, 1);
	b = chain_link(fd, 2, 3, p[1]);
	until_waiting(b, p[0]);
	a = chain_link(fd, 1, 2, p[1]);
	until_waiting(a, p[0]);
	/* a holds 1 and waits for 2; b holds 2 and waits for 3 (ours). */
	is_errno(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 1, 1), EAGAIN, "F_SETLK on the cycle: EAGAIN");
	is_errno(lk(fd, F_SETLKW, F_WRLCK, SEEK_SET, 1, 1), EDEADLK,
		 "F_SETLKW closing a cycle of three processes: EDEADLK");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 3, 1);
	waitpid(b, &s2, 0);
	waitpid(a, &s1, 0);
	ok(exited_with(s1, 0) && exited_with(s2, 0),
	   "released, the chain unwinds: both got their byte");
	ok(other_can_lock(fd, F_WRLCK, 0, 0), "and their locks went at exit");
	close(p[0]);
	close(p[1]);
}

static void test_errors(int fd)
{
	int rd = open(path, O_RDONLY), wr = open(path, O_WRONLY);
	struct flock fl = {.l_type = F_WRLCK};

	require(rd >= 0 && wr >= 0, "open read-only and write-only");
	is_errno(lk(rd, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF,
		 "write lock on a read-only fd: EBADF");
	is_errno(lk(wr, F_SETLK, F_RDLCK, SEEK_SET, 0, 1), EBADF,
		 "read lock on a write-only fd: EBADF");
	is_int(lk(rd, F_SETLK, F_UNLCK, SEEK_SET, 0, 1), 0, "unlock needs no mode");
	is_int(lk(rd, F_GETLK, F_WRLCK, SEEK_SET, 0, 1), 0, "F_GETLK needs no mode");
	is_errno(lk(-1, F_SETLK, F_WRLCK, SEEK_SET, 0, 1), EBADF, "bad fd");
	is_errno(lk(fd, F_SETLK, 7, SEEK_SET, 0, 1), EINVAL, "bad l_type");
	is_errno(lk(fd, F_GETLK, F_UNLCK, SEEK_SET, 0, 1), EINVAL, "F_GETLK of F_UNLCK");
	is_errno(lk(fd, F_SETLK, F_WRLCK, 3, 0, 1), EINVAL, "bad l_whence");
	is_errno(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, -1, 1), EINVAL, "negative start");
	is_errno(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 3, -5), EINVAL,
		 "negative len reaching below 0");
	is_errno(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 2, INT64_MAX), EOVERFLOW,
		 "an end past the largest offset");
	is_errno(lk(fd, F_SETLK, F_WRLCK, SEEK_END, INT64_MAX, 1), EOVERFLOW,
		 "SEEK_END + INT64_MAX");
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, INT64_MAX, 1), 0, "the very last byte");
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	is_errno(lk(fd, F_SETLK, 7, 3, 0, 1), EINVAL, "bad type and whence: EINVAL");
	is_errno(lk(rd, F_SETLK, F_WRLCK, 3, 0, 1), EINVAL, "a bad range is found before the mode");
	is_errno(fcntl(fd, F_SETLK, NULL), EFAULT, "NULL struct flock: EFAULT");
	is_errno(fcntl(fd, F_GETLK, (void *)1), EFAULT, "F_GETLK at a bad address: EFAULT");
	is_errno(fcntl(fd, F_SETLKW, (void *)-4096L), EFAULT,
		 "F_SETLKW at a kernel address: EFAULT");
	is_int(fcntl(fd, F_GETLK, &fl), 0, "F_GETLK with nothing locked");
	ok(fl.l_type == F_UNLCK, "answers F_UNLCK");
	close(rd);
	close(wr);
}

static void test_flock_independent(int fd)
{
	int fd2 = open(path, O_RDWR);

	require(fd2 >= 0, "open");
	is_int(flock(fd2, LOCK_EX), 0, "flock LOCK_EX on another open");
	ok(other_can_lock(fd, F_WRLCK, 0, 0), "does not show as a record lock");
	is_int(lk(fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 0), 0, "nor block one");
	fflush(stdout);
	int status;
	if (fork() == 0)
		_exit(flock(fd2, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
	wait(&status);
	ok(exited_with(status, 0), "and the record lock does not block flock");
	close(fd2);
	lk(fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
}

int main(void)
{
	int fd;

	plan(67);
	snprintf(path, sizeof path, "/tmp/reclocks.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0, "open");
	test_ranges(fd);
	test_sharing(fd);
	test_close(fd);
	test_waits(fd);
	test_deadlock(fd);
	test_errors(fd);
	test_flock_independent(fd);
	close(fd);
	unlink(path);
	return done();
}
