/* /proc/sys/fs/pipe-user-pages-soft and -hard: the user's pipe pages
 * (every ring it holds) past the soft limit give a new pipe two pages and
 * refuse F_SETPIPE_SZ growth (EPERM), past the hard limit refuse new
 * pipes (pipe: ENFILE) and growth; 0 is no limit; closing gives the pages
 * back; a new pipe is also capped by pipe-max-size.  Linux exempts root
 * (CAP_SYS_RESOURCE), which the host's run is, so the limits are checked
 * in fdkernel only, where every process is held to them as to
 * pipe-max-size (docs/linux-abi.md). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define FULL  65536
#define SMALL 8192 /* Linux's PIPE_MIN_DEF_BUFFERS pages */

static long get_sys(const char *name)
{
	char path[64];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* write(2) of text to the file: 0 or -errno. */
static int put_sys(const char *name, const char *text)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof path, "/proc/sys/fs/%s", name);
	if ((fd = open(path, O_WRONLY)) < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static void set_sys(const char *name, long v)
{
	char text[32];

	snprintf(text, sizeof text, "%ld\n", v);
	require(put_sys(name, text) == 0 && get_sys(name) == v, name);
}

/* A new pipe's capacity (closed again), or -errno. */
static long new_pipe_size(void)
{
	int p[2];
	long size;

	if (pipe(p))
		return -errno;
	size = fcntl(p[0], F_GETPIPE_SZ);
	close(p[0]);
	close(p[1]);
	return size;
}

/* The user's pipe pages now (every limit off): the smallest soft limit
 * under which a new pipe still gets 16 pages, less those 16. */
static long pages_in_use(void)
{
	long lo = 16, hi = 1L << 24; /* a full pipe fits under hi, not under lo - 1 */

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		set_sys("pipe-user-pages-soft", mid);
		if (new_pipe_size() == FULL)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 16;
}

/* At exit, whatever failed: the boot values back, so that a hard limit
 * left behind cannot refuse the pipes of the tests after this one. */
static void restore_limits(void)
{
	put_sys("pipe-user-pages-hard", "0");
	put_sys("pipe-user-pages-soft", "16384");
}

static void test_files(void)
{
	long soft = get_sys("pipe-user-pages-soft"), hard = get_sys("pipe-user-pages-hard");

	ok(soft >= 0 && hard >= 0, "both files read as numbers (%ld, %ld)", soft, hard);
	if (!on_fdkernel()) {
		skip("the host's values are the machine's", "Linux's defaults");
		return;
	}
	ok(soft == 16384 && hard == 0, "Linux's defaults: 16384 and 0 (no hard limit)");
	is_int(put_sys("pipe-user-pages-soft", "-1"), -EINVAL, "a negative value: EINVAL");
	is_int(get_sys("pipe-user-pages-soft"), 16384, "and the value stays");
}

static void test_soft(long used)
{
	int a[2], b[2];

	set_sys("pipe-user-pages-soft", used + 16);
	require(pipe(a) == 0, "pipe");
	is_int(fcntl(a[0], F_GETPIPE_SZ), FULL, "reaching the soft limit exactly: a full pipe");
	require(pipe(b) == 0, "pipe");
	is_int(fcntl(b[0], F_GETPIPE_SZ), SMALL, "past it: two pages");
	is_errno(fcntl(b[1], F_SETPIPE_SZ, FULL), EPERM, "F_SETPIPE_SZ may not grow it");
	is_int(fcntl(a[1], F_SETPIPE_SZ, 4096), 4096, "a pipe may always shrink");
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
	is_int(new_pipe_size(), FULL, "closing them gives their pages back");

	set_sys("pipe-user-pages-soft", 0);
	require(pipe(a) == 0, "pipe");
	is_int(fcntl(a[1], F_SETPIPE_SZ, 1 << 20), 1 << 20,
	       "soft limit 0: none, a pipe grows to 1 MiB");
	close(a[0]), close(a[1]);
}

static void test_hard(long used)
{
	int a[2];

	set_sys("pipe-user-pages-soft", 0);
	set_sys("pipe-user-pages-hard", used + 16);
	require(pipe(a) == 0, "pipe");
	is_int(fcntl(a[0], F_GETPIPE_SZ), FULL, "reaching the hard limit exactly: a full pipe");
	is_errno(pipe((int[2]){0, 0}), ENFILE, "past it: pipe() ENFILE");
	is_errno(fcntl(a[1], F_SETPIPE_SZ, 2 * FULL), EPERM, "and F_SETPIPE_SZ EPERM");
	close(a[0]), close(a[1]);
	is_int(new_pipe_size(), FULL, "its pages back: pipes again");
	set_sys("pipe-user-pages-hard", 0);
}

static void test_max_size(void)
{
	long max = get_sys("pipe-max-size");

	set_sys("pipe-max-size", 16384);
	is_int(new_pipe_size(), 16384, "pipe-max-size 16 KiB: a new pipe holds 16 KiB");
	set_sys("pipe-max-size", max);
}

int main(void)
{
	long used;

	plan(on_fdkernel() ? 4 + 6 + 4 + 1 : 2);
	test_files();
	if (!on_fdkernel())
		return done(); /* root is exempt from the limits on Linux */
	atexit(restore_limits);
	used = pages_in_use();
	diag("pipe pages in use: %ld", used);
	test_soft(used);
	test_hard(used);
	set_sys("pipe-user-pages-soft", 16384);
	test_max_size();
	return done();
}
