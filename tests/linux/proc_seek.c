/* The kernel's /proc text files (meminfo, stat, uptime, ...) seek as
 * Linux's seq_file: lseek SEEK_SET and SEEK_CUR move the position,
 * SEEK_END and a negative position are EINVAL, and reading again from 0
 * shows the values of now (procps' free and top keep /proc/meminfo and
 * /proc/stat open, lseek to 0 and read again). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* The "processes N" count of /proc/stat read through fd at offset 0. */
static long forks_seen(int fd)
{
	char buf[8192];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	char *p;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "\nprocesses ");
	return p ? strtol(p + 11, NULL, 10) : -1;
}

int main(void)
{
	char a[64], b[64];
	int fd = open("/proc/meminfo", O_RDONLY);

	plan(7);
	ok(fd >= 0 && read(fd, a, 9) == 9 && !memcmp(a, "MemTotal:", 9), "read /proc/meminfo");
	ok(lseek(fd, 0, SEEK_SET) == 0 && read(fd, b, 9) == 9 && !memcmp(b, "MemTotal:", 9),
	   "lseek to 0 and read again: the text from its start");
	ok(lseek(fd, 3, SEEK_SET) == 3 && lseek(fd, 2, SEEK_CUR) == 5 && read(fd, b, 4) == 4 &&
	       !memcmp(b, "tal:", 4),
	   "SEEK_SET then SEEK_CUR: reading from offset 5");
	errno = 0;
	ok(lseek(fd, 0, SEEK_END) == -1 && errno == EINVAL, "SEEK_END: EINVAL");
	errno = 0;
	ok(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL, "a negative position: EINVAL");
	close(fd);

	fd = open("/proc/stat", O_RDONLY);
	long before = forks_seen(fd);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	long after = forks_seen(fd);
	ok(before > 0 && after > before,
	   "/proc/stat read again from 0 counts a new fork (%ld -> %ld)", before, after);
	ok(lseek(fd, 0, SEEK_SET) == 0 && read(fd, a, 4) == 4 && !memcmp(a, "cpu ", 4),
	   "/proc/stat after lseek to 0");
	close(fd);
	return done();
}
