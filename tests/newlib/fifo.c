/*
 * FIFOs and mknod: mkfifo/mknod make the node (stat shows it, umask
 * applies, bad types fail before the path is looked at); opening a FIFO
 * gives an end of one pipe per FIFO: a reader waits for a writer and the
 * other way round, O_NONBLOCK readers never wait, O_NONBLOCK writers
 * without a reader get ENXIO, O_RDWR never waits; EOF once the last
 * writer closes; the data goes with the last opener; unlinked it works on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define makedev_(ma, mi) (((ma) << 8) | (mi)) /* small numbers: Linux's encoding */

int mknod(const char *path, mode_t mode, dev_t dev);

static char dir[64], fifo[96];

static void test_mknod(void)
{
	char path[128];
	struct stat st;

	umask(022);
	ok(mkfifo(fifo, 0666) == 0 && stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode) &&
	       (st.st_mode & 07777) == 0644 && st.st_size == 0,
	   "mkfifo: stat shows a FIFO, mode 0666 less the umask");
	umask(0);
	is_errno(mkfifo(fifo, 0600), EEXIST, "mkfifo on an existing name: EEXIST");
	snprintf(path, sizeof path, "%s/none/f", dir);
	is_errno(mkfifo(path, 0600), ENOENT, "mkfifo in a missing directory: ENOENT");
	is_errno(mknod(path, 0070000 | 0600, 0), EINVAL,
		 "an unknown type: EINVAL, before the path");
	snprintf(path, sizeof path, "%s/d", dir);
	is_errno(mknod(path, S_IFDIR | 0700, 0), EPERM, "S_IFDIR: EPERM");
	ok(mknod(path, 0640, 0) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 07777) == 0640,
	   "type 0: a regular file");
	unlink(path);
	ok(mknod(path, S_IFCHR | 0666, makedev_(1, 3)) == 0 && stat(path, &st) == 0 &&
	       S_ISCHR(st.st_mode) && st.st_rdev == makedev_(1, 3),
	   "S_IFCHR 1:3 (we are root): st_rdev kept");
	int fd = open(path, O_WRONLY);
	ok(fd >= 0 && write(fd, "x", 1) == 1, "... and it opens as /dev/null");
	close(fd);
	unlink(path);
	/* fdkernel's /proc files are devices of majors 60 and 61 (Linux's
	 * experimental ones, no driver there): a node of them made outside
	 * /proc has no procfs inode behind it, and opens to nothing. */
	for (unsigned int major = 60; major <= 61; major++) {
		ok(mknod(path, S_IFCHR | 0666, makedev_(major, 0)) == 0,
		   "S_IFCHR %u:0 made outside /proc", major);
		is_errno(open(path, O_RDONLY), ENXIO, "... opens with ENXIO, as on Linux");
		unlink(path);
	}
	is_errno(mknod("", S_IFIFO | 0600, 0), ENOENT, "an empty path: ENOENT");
	is_errno(mknod((char *)1, S_IFIFO | 0600, 0), EFAULT, "a bad path pointer: EFAULT");
}

static void test_nonblock(void)
{
	char c;
	int rd, rw, fd;
	struct stat st;

	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	ok(rd >= 0, "O_RDONLY|O_NONBLOCK without a writer: opens at once");
	ok(fstat(rd, &st) == 0 && S_ISFIFO(st.st_mode), "fstat: a FIFO");
	is_int(read(rd, &c, 1), 0, "... and reads EOF (no writer)");
	is_errno(lseek(rd, 0, SEEK_SET), ESPIPE, "lseek: ESPIPE");
	close(rd);
	is_errno(open(fifo, O_WRONLY | O_NONBLOCK), ENXIO,
		 "O_WRONLY|O_NONBLOCK without a reader: ENXIO");
	rw = open(fifo, O_RDWR);
	ok(rw >= 0 && write(rw, "ab", 2) == 2 && read(rw, &c, 1) == 1 && c == 'a',
	   "O_RDWR never waits: both ends in one");
	fd = open(fifo, O_WRONLY | O_NONBLOCK);
	ok(fd >= 0, "O_WRONLY|O_NONBLOCK with a reader: opens");
	close(fd);
	close(rw);
	rw = open(fifo, O_RDWR | O_NONBLOCK);
	is_errno(read(rw, &c, 1), EAGAIN, "the data went with the last opener");
	close(rw);
}

/* Child: opens the FIFO for writing (waits for the parent's reader),
 * writes, closes. */
static void child_writer(void)
{
	int fd = open(fifo, O_WRONLY);
	_exit(fd >= 0 && write(fd, "hello", 5) == 5 ? 0 : 1);
}

static void test_two_processes(void)
{
	char buf[8] = {0};
	int fd, status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		child_writer();
	sleep_ms(50); /* the child is (most likely) waiting in open */
	fd = open(fifo, O_RDONLY);
	ok(fd >= 0 && read(fd, buf, 5) == 5 && !strcmp(buf, "hello"), "a writer and a reader meet");
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "the writer's open returned");
	is_int(read(fd, buf, 1), 0, "EOF once the last writer closed");
	close(fd);

	/* the other way round: the reader opens first and waits */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(50);
		child_writer();
	}
	fd = open(fifo, O_RDONLY);
	ok(fd >= 0 && read(fd, buf, 5) == 5, "a reader waits in open until a writer comes");
	waitpid(pid, &status, 0);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a waiting open (no SA_RESTART): EINTR, nothing counted. */
static void test_interrupted(void)
{
	struct sigaction sa = {0};

	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	is_errno(open(fifo, O_RDONLY), EINTR, "a reader's open waiting alone: EINTR on a signal");
	is_errno(open(fifo, O_WRONLY | O_NONBLOCK), ENXIO, "... and it left no reader behind");
	signal(SIGALRM, SIG_DFL);
}

/* A reader killed while it waits in open leaves nothing counted. */
static void test_killed_opener(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		open(fifo, O_RDONLY);
		_exit(1);
	}
	sleep_ms(50);
	kill(pid, SIGKILL);
	ok(waitpid(pid, &status, 0) == pid && killed_by(status, SIGKILL),
	   "a reader waiting in open dies of SIGKILL");
	is_errno(open(fifo, O_WRONLY | O_NONBLOCK), ENXIO, "... and no reader is left behind");
}

static void test_unlinked(void)
{
	char c = 0;
	int fd = open(fifo, O_RDWR);

	unlink(fifo);
	ok(fd >= 0 && write(fd, "z", 1) == 1 && read(fd, &c, 1) == 1 && c == 'z',
	   "unlinked while open, it works on");
	close(fd);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/fifo-%d", (int)getpid());
	snprintf(fifo, sizeof fifo, "%s/p", dir);
	require(mkdir(dir, 0700) == 0, "mkdir");
	plan(32);
	test_mknod();
	test_nonblock();
	test_two_processes();
	test_interrupted();
	test_killed_opener();
	test_unlinked();
	ok(rmdir(dir) == 0, "nothing left behind");
	return done();
}
