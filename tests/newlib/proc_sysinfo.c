/* sysinfo(2) and the /proc text files built from the same figures:
 * memory totals that add up, an uptime that follows CLOCK_MONOTONIC,
 * a task count that sees a new child, EFAULT; /proc/meminfo, /proc/uptime,
 * /proc/loadavg, /proc/version and /proc/stat in Linux's formats. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_sysinfo 99

/* Linux's struct sysinfo on x86_64. */
struct sysinfo_linux {
	long uptime;
	unsigned long loads[3];
	unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	unsigned short procs, pad;
	unsigned long totalhigh, freehigh;
	unsigned int mem_unit;
	char reserved[4];
};

static void test_sysinfo(void)
{
	struct sysinfo_linux si, si2;
	struct timespec ts;
	int fds[2];
	pid_t pid;
	memset(&si, 0xff, sizeof si);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ok(syscall(NR_sysinfo, &si) == 0, "sysinfo returns 0");
	ok(si.mem_unit == 1, "mem_unit 1: figures in bytes");
	ok(si.totalram > 16 << 20 && si.freeram > 0 && si.freeram <= si.totalram,
	   "0 < freeram %lu <= totalram %lu", si.freeram, si.totalram);
	ok(si.sharedram <= si.totalram && si.bufferram <= si.totalram, "shared and buffer fit");
	ok(si.uptime >= ts.tv_sec && si.uptime >= 0, "uptime %ld s >= CLOCK_MONOTONIC's %ld s",
	   si.uptime, (long)ts.tv_sec);
	require(pipe(fds) == 0, "pipe");
	if ((pid = fork()) == 0) {
		char c;
		close(fds[1]);
		read(fds[0], &c, 1);
		_exit(0);
	}
	close(fds[0]);
	ok(syscall(NR_sysinfo, &si2) == 0 && si2.procs >= 2, "procs counts the child too (%u)",
	   si2.procs);
	close(fds[1]);
	waitpid(pid, NULL, 0);
	is_errno(syscall(NR_sysinfo, (void *)1), EFAULT, "sysinfo((void *)1): EFAULT");
	is_errno(syscall(NR_sysinfo, NULL), EFAULT, "sysinfo(NULL): EFAULT");
}

/* The text of /proc/NAME into buf; its length or -1. */
static long read_proc(const char *name, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%s", name);
	return read_text(path, buf, size);
}

/* /proc/stat: the cpu line (10 tick counts, some idle time), a btime
 * within the last day or more, processes, procs_running >= 1 (us). */
static void test_proc_stat(char *buf, size_t size)
{
	unsigned long long t[10] = {0};
	long btime = 0;
	int running = 0, good;
	char *p;
	good = read_proc("stat", buf, size) > 0 &&
	       sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1],
		      &t[2], &t[3], &t[4], &t[5], &t[6], &t[7], &t[8], &t[9]) == 10 &&
	       t[0] + t[2] + t[3] > 0;
	ok(good, "/proc/stat: cpu line, %llu user, %llu system, %llu idle ticks", t[0], t[2], t[3]);
	good = (p = strstr(buf, "\nbtime ")) && sscanf(p, "\nbtime %ld", &btime) == 1 &&
	       btime > 1600000000 && btime <= time(NULL) && strstr(buf, "\nprocesses ") &&
	       (p = strstr(buf, "\nprocs_running ")) &&
	       sscanf(p, "\nprocs_running %d", &running) == 1 && running >= 1;
	ok(good, "/proc/stat: btime %ld, processes, procs_running %d", btime, running);
}

static void test_proc_files(void)
{
	char buf[4096];
	unsigned long total = 0, avail = 0;
	double up = -1, idle = -1, l1 = -1, l5 = -1, l15 = -1;
	int running = 0, all = 0, last = 0;
	struct timespec ts;
	bool good;

	/* Each reading before its ok(): the arguments of a call are evaluated
	 * in no given order, so ok() could print the values before the read. */
	good = read_proc("meminfo", buf, sizeof buf) > 0 &&
	       sscanf(buf, "MemTotal: %lu kB\nMemFree: %*u kB\nMemAvailable: %lu kB", &total,
		      &avail) == 2 &&
	       total > 16384 && avail <= total && strstr(buf, "\nCached:") &&
	       strstr(buf, "\nSwapTotal:") && strstr(buf, "\nShmem:");
	ok(good, "/proc/meminfo: MemTotal %lu kB, MemAvailable %lu kB, Cached, SwapTotal, Shmem",
	   total, avail);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	good = read_proc("uptime", buf, sizeof buf) > 0 &&
	       sscanf(buf, "%lf %lf", &up, &idle) == 2 && up + 1 >= ts.tv_sec && idle >= 0;
	ok(good, "/proc/uptime: %.2f s up, %.2f s idle", up, idle);
	good = read_proc("loadavg", buf, sizeof buf) > 0 &&
	       sscanf(buf, "%lf %lf %lf %d/%d %d", &l1, &l5, &l15, &running, &all, &last) == 6 &&
	       l1 >= 0 && running >= 1 && all >= running && last > 0;
	ok(good, "/proc/loadavg: %d/%d tasks, last pid %d", running, all, last);
	good = read_proc("version", buf, sizeof buf) > 0 && strstr(buf, " version ");
	ok(good, "/proc/version: %.40s", buf);
	test_proc_stat(buf, sizeof buf);
}

int main(void)
{
	plan(14);
	test_sysinfo();
	test_proc_files();
	return done();
}
