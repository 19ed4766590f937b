/* /proc/<pid>/io, Linux's per-task I/O accounting: its seven lines in
 * order, mode 0400; a read of N bytes adds at least N to rchar and one to
 * syscr, a write of N to /dev/null N to wchar and one to syscw; a thread's
 * reads show in its /proc/self/task/<tid>/io and the process's, and stay in
 * the process's after it exits; a child's I/O is its own until it is
 * reaped, then its parent's too (as its CPU time); an unprivileged process
 * may not read another user's (EACCES). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define N 100000

static const char *const keys[] = {
    "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"};
enum { RCHAR, WCHAR, SYSCR, SYSCW, NKEYS = 7 };

/* The counters of path in key order: how many lines matched. */
static int io_read(const char *path, unsigned long long v[NKEYS])
{
	char text[1024], *p = text;
	int n = 0;

	if (read_text(path, text, sizeof text) <= 0)
		return -1;
	for (; n < NKEYS; n++) {
		size_t len = strlen(keys[n]);

		if (strncmp(p, keys[n], len) || p[len] != ':')
			break;
		v[n] = strtoull(p + len + 1, &p, 10);
		if (*p++ != '\n')
			break;
	}
	return *p || n != NKEYS ? -n - 1 : n;
}

static char buf[N];

static void *thread_reads(void *arg)
{
	unsigned long long *v = arg;
	char path[64];
	int fd = open("/dev/zero", O_RDONLY);

	read(fd, buf, N);
	close(fd);
	snprintf(path, sizeof path, "/proc/self/task/%ld/io", (long)syscall(SYS_gettid));
	io_read(path, v);
	return NULL;
}

static void child_reads(void)
{
	int fd = open("/dev/zero", O_RDONLY);

	_exit(read(fd, buf, N) == N ? 0 : 1);
}

static void child_peeks(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "/proc/%d/io", (int)getppid());
	if (setgid(65534) || setuid(65534))
		_exit(2);
	fd = open(path, O_RDONLY);
	_exit(fd < 0 && errno == EACCES ? 0 : 1);
}

/* N bytes read from /dev/zero or written to /dev/null: b, read after,
 * shows them on top of a. */
static void check_transfer(bool write_, const unsigned long long a[NKEYS],
			   unsigned long long b[NKEYS])
{
	int fd = open(write_ ? "/dev/null" : "/dev/zero", write_ ? O_WRONLY : O_RDONLY);
	int bytes = write_ ? WCHAR : RCHAR, calls = write_ ? SYSCW : SYSCR;

	require(fd >= 0 && (write_ ? write(fd, buf, N) : read(fd, buf, N)) == N, "the transfer");
	close(fd);
	io_read("/proc/self/io", b);
	ok(b[bytes] - a[bytes] >= N && b[calls] > a[calls], "a %s of %d bytes: %s +%llu, %s +%llu",
	   write_ ? "write" : "read", N, keys[bytes], b[bytes] - a[bytes], keys[calls],
	   b[calls] - a[calls]);
}

int main(void)
{
	unsigned long long a[NKEYS], b[NKEYS], t[NKEYS] = {0};
	struct stat st;
	pthread_t th;
	siginfo_t si;
	pid_t pid;

	plan(11);
	is_int(io_read("/proc/self/io", a), NKEYS, "/proc/self/io: Linux's seven lines in order");
	ok(stat("/proc/self/io", &st) == 0 && (st.st_mode & 0777) == 0400, "mode 0400");

	check_transfer(false, a, b);
	memcpy(a, b, sizeof a);
	check_transfer(true, a, b);

	memcpy(a, b, sizeof a);
	require(pthread_create(&th, NULL, thread_reads, t) == 0, "pthread_create");
	pthread_join(th, NULL);
	ok(t[RCHAR] >= N && t[RCHAR] < a[RCHAR], "the thread's own io counts its read (rchar %llu)",
	   t[RCHAR]);
	io_read("/proc/self/io", b);
	ok(b[RCHAR] - a[RCHAR] >= N, "the process's keeps it once the thread exited (+%llu)",
	   b[RCHAR] - a[RCHAR]);

	fflush(stdout);
	memcpy(a, b, sizeof a);
	if ((pid = fork()) == 0)
		child_reads();
	ok(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0 && si.si_status == 0,
	   "a child reads %d bytes and exits", N);
	io_read("/proc/self/io", b);
	ok(b[RCHAR] - a[RCHAR] < N, "which are not the parent's (+%llu)", b[RCHAR] - a[RCHAR]);
	memcpy(a, b, sizeof a);
	waitpid(pid, NULL, 0);
	io_read("/proc/self/io", b);
	ok(b[RCHAR] - a[RCHAR] >= N, "until it is reaped (+%llu)", b[RCHAR] - a[RCHAR]);

	ok(exited_with(child_status(child_peeks), 0),
	   "another user opening this process's io: EACCES");
	is_errno(open("/proc/self/task/999999999/io", O_RDONLY), ENOENT,
		 "a thread that is not: ENOENT");
	return done();
}
