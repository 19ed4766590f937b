/* The /dev nodes programs expect beside null and zero: full (reads zeroes,
 * writes ENOSPC), random and urandom (bytes that differ, writes mixed in,
 * Linux's RND* ioctls and the entropy count /proc shows), the links fd,
 * stdin, stdout and stderr into /proc/self/fd, and what bash's process
 * substitution relies on: an anonymous pipe reopened through /dev/fd/N
 * never waits for a partner (a FIFO still does). */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "testutil.h"

/* <linux/random.h>'s requests (musl has no kernel headers). */
#define RNDGETENTCNT   _IOR('R', 0x00, int)
#define RNDADDTOENTCNT _IOW('R', 0x01, int)
#define RNDGETPOOL     _IOR('R', 0x02, int[2])
#define RNDADDENTROPY  _IOW('R', 0x03, int[2])
#define RNDZAPENTCNT   _IO('R', 0x04)
#define RNDCLEARPOOL   _IO('R', 0x06)
#define RNDRESEEDCRNG  _IO('R', 0x07)

/* Whether path is the character device major:minor, mode 0666. */
static bool chrdev_is(const char *path, unsigned int major, unsigned int minor)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == major &&
	       minor(st.st_rdev) == minor && (st.st_mode & 0777) == 0666;
}

static void test_full(void)
{
	char buf[4096];
	int fd = open("/dev/full", O_RDWR);
	bool zero = true;

	ok(chrdev_is("/dev/full", 1, 7), "/dev/full is 1:7, 0666");
	require(fd >= 0, "open /dev/full");
	memset(buf, 'x', sizeof buf);
	is_int(read(fd, buf, sizeof buf), sizeof buf, "/dev/full reads the whole buffer");
	for (size_t i = 0; i < sizeof buf; i++)
		zero &= buf[i] == 0;
	ok(zero, "... of zeroes");
	is_errno(write(fd, "x", 1), ENOSPC, "a write to /dev/full: ENOSPC");
	is_errno(read(fd, (void *)8, 16), EFAULT, "a read into a bad buffer: EFAULT");
	close(fd);
}

/* Two reads of 64 bytes from path: neither all zero, and different. */
static bool random_reads_differ(const char *path)
{
	unsigned char a[64] = {0}, b[64] = {0}, none[64] = {0};
	int fd = open(path, O_RDONLY);
	bool good =
	    fd >= 0 && read(fd, a, sizeof a) == sizeof a && read(fd, b, sizeof b) == sizeof b;

	if (fd >= 0)
		close(fd);
	return good && memcmp(a, b, sizeof a) && memcmp(a, none, sizeof a);
}

static void test_random(void)
{
	size_t big = 1 << 20;
	char *buf = malloc(big);
	int fd = open("/dev/urandom", O_RDWR);

	ok(chrdev_is("/dev/random", 1, 8) && chrdev_is("/dev/urandom", 1, 9),
	   "/dev/random is 1:8, /dev/urandom 1:9, 0666");
	ok(random_reads_differ("/dev/urandom") && random_reads_differ("/dev/random"),
	   "two reads of each differ and are not all zero");
	require(fd >= 0 && buf, "open /dev/urandom");
	is_int(read(fd, buf, big), big, "a 1 MiB read is served whole");
	is_int(write(fd, "seed bytes", 10), 10, "a write to /dev/urandom is taken whole");
	is_errno(write(fd, (void *)8, 16), EFAULT, "a write from a bad buffer: EFAULT");
	is_errno(read(fd, (void *)8, 16), EFAULT, "a read into a bad buffer: EFAULT");
	close(fd);
	free(buf);
}

/* The int in a /proc file, or -1. */
static int proc_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* Linux's random ioctls (<linux/random.h>), on both devices; the count
 * agrees with /proc/sys/kernel/random/entropy_avail.  Root's requests
 * (this test runs as root with CAP_SYS_ADMIN) take effect or are no-ops. */
static void test_random_ioctl(void)
{
	int fd = open("/dev/random", O_RDONLY), ufd = open("/dev/urandom", O_RDONLY), n = -1,
	    m = -1, pool[2];
	struct {
		int count, size;
		char buf[8];
	} add = {8, 8, "entropy"};
	struct termios t;

	ok(ioctl(fd, RNDGETENTCNT, &n) == 0 && ioctl(ufd, RNDGETENTCNT, &m) == 0 && n == m &&
	       n == proc_int("/proc/sys/kernel/random/entropy_avail") &&
	       n <= proc_int("/proc/sys/kernel/random/poolsize"),
	   "RNDGETENTCNT on both devices is entropy_avail (%d), within poolsize", n);
	is_int(proc_int("/proc/sys/kernel/random/poolsize"), 256, "poolsize: 256 bits");
	is_errno(ioctl(ufd, RNDGETENTCNT, (void *)8), EFAULT,
		 "RNDGETENTCNT to a bad pointer: EFAULT");
	m = -1;
	ok(syscall(SYS_ioctl, ufd, 0xabcd000000000000UL | (unsigned)RNDGETENTCNT, &m) == 0 &&
	       m == n,
	   "the request is 32 bits: high bits of the register are ignored");
	n = 8;
	is_int(ioctl(ufd, RNDADDTOENTCNT, &n), 0, "RNDADDTOENTCNT 8: taken");
	n = -1;
	is_errno(ioctl(ufd, RNDADDTOENTCNT, &n), EINVAL, "RNDADDTOENTCNT -1: EINVAL");
	is_int(ioctl(fd, RNDADDENTROPY, &add), 0, "RNDADDENTROPY of 8 bytes: taken");
	add.count = -1;
	is_errno(ioctl(fd, RNDADDENTROPY, &add), EINVAL,
		 "RNDADDENTROPY, a negative credit: EINVAL");
	add.count = 0;
	add.size = -1;
	is_errno(ioctl(fd, RNDADDENTROPY, &add), EFAULT, "RNDADDENTROPY, a negative size: EFAULT");
	ok(ioctl(ufd, RNDZAPENTCNT) == 0 && ioctl(ufd, RNDCLEARPOOL) == 0 &&
	       ioctl(ufd, RNDRESEEDCRNG) == 0,
	   "RNDZAPENTCNT, RNDCLEARPOOL (no effect) and RNDRESEEDCRNG: 0");
	is_errno(ioctl(ufd, RNDGETPOOL, pool), EINVAL, "RNDGETPOOL (gone): EINVAL");
	is_errno(ioctl(ufd, TCGETS, &t), EINVAL,
		 "TCGETS: EINVAL (the driver's answer), not ENOTTY");
	is_errno(ioctl(ufd, FIONREAD, &n), EINVAL, "FIONREAD: EINVAL");
	close(fd);
	close(ufd);
}

/* Whether the link at path reads target. */
static bool link_is(const char *path, const char *target)
{
	char buf[64];
	ssize_t n = readlink(path, buf, sizeof buf - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, target) == 0;
}

/* Whether /dev/fd lists fd (the caller's own fds). */
static bool dev_fd_lists(int fd)
{
	DIR *d = opendir("/dev/fd");
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= atoi(e->d_name) == fd && e->d_name[0] != '.';
	if (d)
		closedir(d);
	return found;
}

/* In a child whose stdout is a pipe: "hi" written to /dev/stdout. */
static void write_dev_stdout(void)
{
	int fd = open("/dev/stdout", O_WRONLY);

	_exit(fd >= 0 && write(fd, "hi", 2) == 2 ? 0 : 1);
}

static void test_links(void)
{
	char path[32], buf[8] = {0};
	int p[2], out[2];

	ok(link_is("/dev/fd", "/proc/self/fd") && link_is("/dev/stdin", "/proc/self/fd/0") &&
	       link_is("/dev/stdout", "/proc/self/fd/1") &&
	       link_is("/dev/stderr", "/proc/self/fd/2"),
	   "/dev/fd, stdin, stdout, stderr link into /proc/self/fd");
	require(pipe(p) == 0 && pipe(out) == 0, "pipes");
	ok(dev_fd_lists(p[1]), "/dev/fd lists the caller's fds");
	snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
	int w = open(path, O_WRONLY);
	ok(w >= 0 && write(w, "ab", 2) == 2 && read(p[0], buf, sizeof buf) == 2 &&
	       !strcmp(buf, "ab"),
	   "%s opens the pipe's write end: the reader gets the bytes", path);
	close(w);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		write_dev_stdout();
	}
	close(out[1]);
	memset(buf, 0, sizeof buf);
	int status;
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0) && read(out[0], buf, sizeof buf) == 2 && !strcmp(buf, "hi"),
	   "/dev/stdout in a child writes into its stdout pipe");
	close(out[0]);
	close(p[0]);
	close(p[1]);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* An anonymous pipe reopened through /dev/fd/N after its writer (or
 * reader) has gone: no wait, EOF (EPIPE); a FIFO reopened the same way
 * still waits for a writer (ended here by an alarm: EINTR). */
static void test_reopen(void)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	char path[32], buf[4], fifo[64];
	int p[2], fd;

	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	require(pipe(p) == 0, "pipe");
	close(p[1]);
	snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
	alarm(10); /* a hang fails the test, it does not stall the suite */
	fd = open(path, O_RDONLY);
	alarm(0);
	ok(fd >= 0 && read(fd, buf, sizeof buf) == 0,
	   "a pipe whose writer is gone reopens read-only at once, and reads EOF");
	close(fd);
	close(p[0]);
	require(pipe(p) == 0, "pipe");
	close(p[0]);
	snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	ok(fd >= 0, "a pipe without a reader reopens O_WRONLY|O_NONBLOCK (no ENXIO)");
	is_errno(write(fd, "x", 1), EPIPE, "... and a write gets EPIPE");
	close(fd);
	close(p[1]);

	snprintf(fifo, sizeof fifo, "/tmp/dev_nodes.%d", (int)getpid());
	require(mkfifo(fifo, 0600) == 0, "mkfifo");
	int r = open(fifo, O_RDONLY | O_NONBLOCK);
	require(r >= 0, "open the FIFO");
	snprintf(path, sizeof path, "/dev/fd/%d", r);
	alarm(1);
	fd = open(path, O_RDONLY);
	alarm(0);
	ok(fd < 0 && errno == EINTR, "a FIFO reopened through /dev/fd still waits for a writer");
	close(r);
	unlink(fifo);
}

int main(void)
{
	plan(32);
	test_full();
	test_random();
	test_random_ioctl();
	test_links();
	test_reopen();
	return done();
}
