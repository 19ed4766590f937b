/* Open-file-description locks (F_OFD_GETLK/F_OFD_SETLK/F_OFD_SETLKW):
 * owned by the open file, so two opens in one process conflict, a fork's
 * copy shares them, and only the description's last close releases them;
 * they conflict with POSIX locks, not with flock(); l_pid must be 0 and
 * reads back -1.  On fdkernel, the system-wide bound on record locks
 * (ENOLCK) and that nothing is left once they are all released; the
 * errors of F_SETLEASE and F_GETLEASE (leases.c tests leases at work). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/file.h>
#include <unistd.h>

#include "testutil.h"

#define FDKERNEL_RECLOCK_MAX 4096 /* kernel/fs/locks/reclock.h */

static char path[64];

static int lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl(fd, cmd, &fl);
}

static struct flock getlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	if (fcntl(fd, cmd, &fl) < 0)
		fl.l_type = -1;
	return fl;
}

static void test_ownership(void)
{
	int a = open(path, O_RDWR), b = open(path, O_RDWR), d, status;
	struct flock fl;

	require(a >= 0 && b >= 0, "two opens");
	is_int(lk(a, F_OFD_SETLK, F_WRLCK, 0, 10), 0, "OFD write lock through one open");
	is_errno(lk(b, F_OFD_SETLK, F_WRLCK, 5, 1), EAGAIN,
		 "another open in the same process conflicts");
	fl = getlk(b, F_OFD_GETLK, F_RDLCK, 0, 0);
	ok(fl.l_type == F_WRLCK && fl.l_start == 0 && fl.l_len == 10 && fl.l_pid == -1,
	   "F_OFD_GETLK reports it with l_pid -1");
	fl = getlk(b, F_GETLK, F_RDLCK, 0, 0);
	ok(fl.l_type == F_WRLCK && fl.l_pid == -1, "so does F_GETLK");
	is_errno(lk(b, F_SETLK, F_RDLCK, 0, 1), EAGAIN,
		 "a POSIX lock of the same process conflicts with it");
	is_int(lk(a, F_OFD_SETLK, F_RDLCK, 20, 5), 0, "a second range through the same open");
	fl = getlk(a, F_OFD_GETLK, F_UNLCK, 0, 0);
	ok(fl.l_type == F_WRLCK && fl.l_start == 0 && fl.l_len == 10,
	   "F_OFD_GETLK of F_UNLCK: the open's own lock over the range");
	fl = getlk(b, F_OFD_GETLK, F_UNLCK, 0, 0);
	is_int(fl.l_type, F_UNLCK, "none for the other open");

	d = dup(a);
	close(a);
	is_errno(lk(b, F_OFD_SETLK, F_WRLCK, 0, 1), EAGAIN,
		 "closing one fd of the description keeps them");
	fflush(stdout);
	if (fork() == 0)
		_exit(lk(d, F_OFD_SETLK, F_WRLCK, 0, 30) == 0 ? 0 : 1);
	wait(&status);
	ok(exited_with(status, 0), "a fork's copy of the fd is the same owner");
	fflush(stdout);
	if (fork() == 0)
		_exit(lk(b, F_OFD_SETLK, F_WRLCK, 0, 1) == -1 && errno == EAGAIN ? 0 : 1);
	wait(&status);
	ok(exited_with(status, 0),
	   "and its lock stays after the child exits (the parent holds the open)");
	close(d);
	is_int(lk(b, F_OFD_SETLK, F_WRLCK, 0, 0), 0, "the last close releases them");
	close(b);
}

static void test_posix_mix(void)
{
	int a = open(path, O_RDWR), b = open(path, O_RDWR);

	require(a >= 0 && b >= 0, "two opens");
	is_int(lk(a, F_SETLK, F_WRLCK, 0, 10), 0, "POSIX lock");
	is_errno(lk(b, F_OFD_SETLK, F_RDLCK, 0, 1), EAGAIN,
		 "an OFD lock of the same process conflicts with it");
	close(a);
	is_int(lk(b, F_OFD_SETLK, F_RDLCK, 0, 1), 0, "closing the POSIX lock's fd lets it in");
	is_int(lk(b, F_SETLK, F_WRLCK, 5, 1), 0, "a POSIX lock beside the open's own OFD lock");
	close(b);
}

static void test_wait(void)
{
	int a = open(path, O_RDWR), b = open(path, O_RDWR), p[2], status;
	char c;
	pid_t pid;

	require(a >= 0 && b >= 0 && pipe(p) == 0, "set-up");
	lk(a, F_OFD_SETLK, F_WRLCK, 0, 1);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(a); /* its copy would keep the description open */
		c = lk(b, F_OFD_SETLKW, F_WRLCK, 0, 1) == 0 ? 'y' : 'n';
		_exit(write(p[1], &c, 1) != 1);
	}
	sleep_ms(30); /* time to block; the result does not depend on it */
	close(a);
	ok(read(p[0], &c, 1) == 1 && c == 'y',
	   "F_OFD_SETLKW waits for the description's last close");
	waitpid(pid, &status, 0);
	close(p[0]);
	close(p[1]);
	close(b);
}

static void test_errors(void)
{
	int fd = open(path, O_RDWR), rd = open(path, O_RDONLY);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_pid = 1};

	require(fd >= 0 && rd >= 0, "open");
	is_errno(fcntl(fd, F_OFD_SETLK, &fl), EINVAL, "F_OFD_SETLK with l_pid != 0: EINVAL");
	is_errno(fcntl(fd, F_OFD_GETLK, &fl), EINVAL, "F_OFD_GETLK with l_pid != 0: EINVAL");
	fl.l_whence = 5;
	is_errno(fcntl(fd, F_OFD_SETLKW, &fl), EINVAL, "bad whence");
	is_errno(lk(rd, F_OFD_SETLK, F_WRLCK, 0, 1), EBADF,
		 "write lock on a read-only open: EBADF");
	is_errno(fcntl(fd, F_OFD_SETLK, NULL), EFAULT, "NULL struct flock: EFAULT");
	is_errno(fcntl(fd, F_OFD_GETLK, (void *)16), EFAULT, "a bad address: EFAULT");
	close(rd);
	close(fd);
}

static void test_flock(void)
{
	int a = open(path, O_RDWR), b = open(path, O_RDWR);

	require(a >= 0 && b >= 0, "two opens");
	is_int(flock(a, LOCK_EX), 0, "flock LOCK_EX");
	is_int(lk(b, F_OFD_SETLK, F_WRLCK, 0, 0), 0, "an OFD lock of the whole file beside it");
	is_int(flock(a, LOCK_UN), 0, "flock and OFD locks are independent");
	close(a);
	close(b);
}

/* fdkernel bounds record locks system-wide: one past the bound is ENOLCK,
 * an unlock needing no new lock still works, and all go with the file. */
static void test_bound(void)
{
	int fd = open(path, O_RDWR), n = 0;

	require(fd >= 0, "open");
	if (!on_fdkernel()) {
		skip("Linux bounds locks by memory only", "ENOLCK at the bound");
		skip("Linux bounds locks by memory only", "unlocking at the bound");
		close(fd);
		return;
	}
	while (n <= FDKERNEL_RECLOCK_MAX && lk(fd, F_OFD_SETLK, F_WRLCK, 2 * n, 1) == 0)
		n++;
	ok(errno == ENOLCK && n <= FDKERNEL_RECLOCK_MAX, "ENOLCK after %d locks", n);
	is_int(lk(fd, F_OFD_SETLK, F_UNLCK, 0, 2 * n), 0, "unlocking them all at the bound");
	close(fd);
}

static void test_leases(void)
{
	int fd = open(path, O_RDONLY), dir = open("/tmp", O_RDONLY | O_DIRECTORY), p[2];

	require(fd >= 0 && dir >= 0 && pipe(p) == 0, "set-up");
	is_int(fcntl(fd, F_GETLEASE), F_UNLCK, "F_GETLEASE with no lease: F_UNLCK");
	is_errno(fcntl(fd, F_SETLEASE, F_UNLCK), EAGAIN,
		 "removing a lease the file does not have: EAGAIN");
	is_errno(fcntl(p[0], F_SETLEASE, F_RDLCK), EINVAL, "a lease on a pipe: EINVAL");
	is_errno(fcntl(dir, F_SETLEASE, F_RDLCK), EINVAL, "a lease on a directory: EINVAL");
	is_errno(fcntl(fd, F_SETLEASE, 7), EINVAL, "a bad lease type: EINVAL");
	int rw = open(path, O_RDWR);
	is_errno(fcntl(rw, F_SETLEASE, F_RDLCK), EAGAIN,
		 "a read lease on a file open for writing: EAGAIN");
	close(rw);
	is_int(fcntl(fd, F_SETLEASE, F_RDLCK), 0,
	       "a read lease on a file nobody writes: granted (leases.c)");
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(p[0]);
	close(p[1]);
	close(dir);
	close(fd);
}

int main(void)
{
	plan(35);
	snprintf(path, sizeof path, "/tmp/ofd_locks.%d", getpid());
	close(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	test_ownership();
	test_posix_mix();
	test_wait();
	test_errors();
	test_flock();
	test_bound();
	test_leases();
	unlink(path);
	return done();
}
