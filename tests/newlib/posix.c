/*
 * The POSIX wrappers newlib lacks: directories (mkdir, chdir, getcwd,
 * opendir/readdir, rmdir), clocks and sleeping, rlimits, uname, mmap,
 * readv/writev and poll.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static void directories(void)
{
	char dir[64], cwd[256], back[256];
	int found = 0;

	snprintf(dir, sizeof(dir), "/tmp/fdk-dir-%d", (int)getpid());
	is_int(mkdir(dir, 0700), 0, "mkdir");
	is_errno(mkdir(dir, 0700), EEXIST, "mkdir again: EEXIST");
	getcwd(back, sizeof(back));
	ok(chdir(dir) == 0 && getcwd(cwd, sizeof(cwd)) && strcmp(cwd, dir) == 0,
	   "chdir, then getcwd names it");
	close(open("entry", O_CREAT | O_WRONLY, 0600));
	DIR *d = opendir(".");
	struct dirent *de;
	while (d && (de = readdir(d)))
		found += strcmp(de->d_name, "entry") == 0 && de->d_type == DT_REG;
	ok(d && found == 1, "readdir lists the new file");
	if (d)
		closedir(d);
	unlink("entry");
	chdir(back);
	is_int(rmdir(dir), 0, "rmdir");
}

static void clocks(void)
{
	struct timespec a, b, nap = {0, 20 * 1000 * 1000};

	ok(clock_gettime(CLOCK_MONOTONIC, &a) == 0 && nanosleep(&nap, NULL) == 0 &&
	       clock_gettime(CLOCK_MONOTONIC, &b) == 0,
	   "clock_gettime and nanosleep");
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	ok(ms >= 19, "slept at least 20 ms (%ld)", ms);
	ok(clock_gettime(CLOCK_REALTIME, &a) == 0 && a.tv_sec > 1600000000, "realtime clock");
	is_errno(clock_gettime(12345, &a), EINVAL, "unknown clock");
}

static void process_info(void)
{
	struct rlimit rl;
	struct utsname u;

	ok(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 2 && rl.rlim_cur <= rl.rlim_max,
	   "getrlimit(RLIMIT_NOFILE)");
	ok(uname(&u) == 0 && u.sysname[0] && strcmp(u.machine, "x86_64") == 0, "uname: %s %s",
	   u.sysname, u.machine);
}

static void memory_and_io(void)
{
	char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int p[2];

	ok(m != MAP_FAILED && m[12345] == 0, "anonymous mmap, zero-filled");
	if (m != MAP_FAILED) {
		memset(m, 1, 1 << 20);
		is_int(munmap(m, 1 << 20), 0, "munmap");
	} else {
		skip("mmap failed", "munmap");
	}

	pipe(p);
	struct pollfd pfd = {.fd = p[0], .events = POLLIN};
	is_int(poll(&pfd, 1, 0), 0, "poll: empty pipe not readable");
	struct iovec out[2] = {{"hello ", 6}, {"world", 5}};
	is_int(writev(p[1], out, 2), 11, "writev of two buffers");
	ok(poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLIN), "poll: now readable");
	char a[4], b[8] = "";
	struct iovec in[2] = {{a, 4}, {b, 7}};
	ok(readv(p[0], in, 2) == 11 && memcmp(a, "hell", 4) == 0 && strcmp(b, "o world") == 0,
	   "readv scatters");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	plan(17);
	directories();
	clocks();
	process_info();
	memory_and_io();
	return done();
}
