/* Time namespaces, as Linux: unshare(CLONE_NEWTIME) makes the namespace
 * the caller's children enter (/proc/self/ns/time_for_children), whose
 * offsets /proc/self/timens_offsets sets until a child enters it (then
 * EACCES); a child reads CLOCK_MONOTONIC (its RAW and COARSE forms too,
 * through the vDSO and the system call) and CLOCK_BOOTTIME, sysinfo's
 * and /proc/uptime's uptime shifted by them, CLOCK_REALTIME not; its
 * absolute sleeps and timerfds are on its own clocks; setns takes it
 * back (EUSERS with a second thread); a vfork child enters it only when
 * it execs; clone3(CLONE_NEWTIME) puts a child in a new one; bad offsets are EINVAL or ERANGE, and
 * an ordinary user gets EPERM.  Run as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif
#define NS	 1000000000LL
#define MONO_OFF 100 /* seconds: what the children's CLOCK_MONOTONIC is ahead */
#define BOOT_OFF 7

static int64_t vdso_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t sys_ns(clockid_t clk)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, clk, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static unsigned long ns_ino(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/self/ns/%s", name);
	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

/* Writes text to /proc/self/timens_offsets: 0 or -errno. */
static int set_offsets(const char *text)
{
	int fd = open("/proc/self/timens_offsets", O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The two offsets as /proc/self/timens_offsets shows them (names
 * checked): 0, or -1. */
static int get_offsets(long long *mono, long long *boot)
{
	char text[256], a[16], b[16];
	long na, nb;

	if (read_text("/proc/self/timens_offsets", text, sizeof text) < 0 ||
	    sscanf(text, "%15s %lld %ld %15s %lld %ld", a, mono, &na, b, boot, &nb) != 6)
		return -1;
	return strcmp(a, "monotonic") || strcmp(b, "boottime") || na || nb ? -1 : 0;
}

static long proc_uptime(void)
{
	char text[64];
	return read_text("/proc/uptime", text, sizeof text) < 0 ? -1 : atol(text);
}

/* ---- the child in the namespace: each check a bit of its exit status ---- */

/* An absolute sleep to 50 ms ahead on the namespace's CLOCK_MONOTONIC
 * ends in about that on the host's: as a sleep to its own time, not
 * MONO_OFF seconds early (at once) or late. */
static int sleeps_on_own_clock(void)
{
	int64_t host0 = vdso_ns(CLOCK_REALTIME), at = sys_ns(CLOCK_MONOTONIC) + NS / 20;
	struct timespec ts = {at / NS, at % NS};

	if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		return 0;
	int64_t took = vdso_ns(CLOCK_REALTIME) - host0;
	return took >= NS / 20 && took < MONO_OFF * NS / 2;
}

static int timerfd_on_own_clock(void)
{
	int fd = timerfd_create(CLOCK_BOOTTIME, 0);
	int64_t host0 = vdso_ns(CLOCK_REALTIME), at = sys_ns(CLOCK_BOOTTIME) + NS / 20;
	struct itimerspec it = {.it_value = {at / NS, at % NS}};
	uint64_t n = 0;

	if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL) ||
	    read(fd, &n, sizeof n) != sizeof n)
		return 0;
	close(fd);
	int64_t took = vdso_ns(CLOCK_REALTIME) - host0;
	return n == 1 && took >= NS / 20 && took < BOOT_OFF * NS / 2;
}

static void *idle_thread(void *arg)
{
	pause();
	return arg;
}

/* What the parent read just before the fork (host clocks). */
static int64_t parent_mono, parent_boot, parent_real;
static long parent_uptime;
static int initial_fd;

static int in_namespace(void)
{
	int bad = 0;
	struct sysinfo si;
	/* the offsets are MONO_OFF and BOOT_OFF s; the fork took less than
	 * MONO_OFF / 2 (a generous bound: no test depends on speed) */
#define AHEAD(now, base, off) ((now) - (base) >= (off)*NS && (now) - (base) < ((off) + 50) * NS)
	bad |= !AHEAD(vdso_ns(CLOCK_MONOTONIC), parent_mono, MONO_OFF) << 0;
	bad |= !AHEAD(sys_ns(CLOCK_MONOTONIC), parent_mono, MONO_OFF) << 1;
	bad |= !AHEAD(vdso_ns(CLOCK_MONOTONIC_COARSE), parent_mono - NS, MONO_OFF) << 2;
	bad |= !AHEAD(sys_ns(CLOCK_MONOTONIC_RAW), parent_mono - NS, MONO_OFF) << 2;
	bad |= !AHEAD(vdso_ns(CLOCK_BOOTTIME), parent_boot, BOOT_OFF) << 3;
	bad |= !AHEAD(vdso_ns(CLOCK_REALTIME), parent_real, 0) << 4;
	bad |= !(time(NULL) >= parent_real / NS && time(NULL) < parent_real / NS + 50) << 4;
	sysinfo(&si);
	long up = (long)si.uptime;
	bad |= !(up >= parent_uptime + BOOT_OFF && up < parent_uptime + BOOT_OFF + 50) << 5;
	bad |= !(proc_uptime() >= parent_uptime + BOOT_OFF - 1 && proc_uptime() <= up) << 5;
	bad |= !sleeps_on_own_clock() << 6;
	bad |= !timerfd_on_own_clock() << 7;
	/* a second thread: setns is EUSERS; alone again: back to the host's clocks */
	pthread_t th;
	pthread_create(&th, NULL, idle_thread, NULL);
	bad |= !(setns(initial_fd, CLONE_NEWTIME) == -1 && errno == EUSERS) << 8;
	_exit(bad); /* the thread cannot be joined: the rest in a fork */
}

static int back_to_initial(void)
{
	int bad = 0;
	bad |= (setns(initial_fd, CLONE_NEWTIME) != 0) << 0;
	bad |= !AHEAD(vdso_ns(CLOCK_MONOTONIC), parent_mono, 0) << 1;
	bad |= !AHEAD(sys_ns(CLOCK_BOOTTIME), parent_boot, 0) << 2;
	return bad;
}

static int exit_status(pid_t pid)
{
	int status;
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void read_host_clocks(void)
{
	struct sysinfo si;
	sysinfo(&si);
	parent_uptime = si.uptime;
	parent_mono = vdso_ns(CLOCK_MONOTONIC);
	parent_boot = vdso_ns(CLOCK_BOOTTIME);
	parent_real = vdso_ns(CLOCK_REALTIME);
}

static void check_offsets_file(unsigned long time_ino)
{
	long long mono = -1, boot = -1;

	ok(ns_ino("time_for_children") != time_ino && ns_ino("time") == time_ino,
	   "unshare(CLONE_NEWTIME): a new time_for_children, the caller's own time unchanged");
	ok(!get_offsets(&mono, &boot) && mono == 0 && boot == 0,
	   "timens_offsets: monotonic 0 0, boottime 0 0");
	is_int(set_offsets("2 1 0"), -EINVAL, "an offset of CLOCK_REALTIME: EINVAL");
	is_int(set_offsets("monotonic 1 1000000000"), -EINVAL, "ns past a second: EINVAL");
	is_int(set_offsets("monotonic"), -EINVAL, "a line cut short: EINVAL");
	is_int(set_offsets("monotonic -9000000000 0"), -ERANGE,
	       "an offset that takes the clock below 0: ERANGE");
	is_int(set_offsets("1 100 0\nboottime 7 0\n"), 0, "two offsets written");
	int err = get_offsets(&mono, &boot);
	ok(!err && mono == MONO_OFF && boot == BOOT_OFF, "and read back (%lld, %lld)", mono, boot);
}

static void check_children(void)
{
	pid_t pid;

	read_host_clocks();
	if (!(pid = fork()))
		in_namespace();
	is_int(exit_status(pid), 0,
	       "a child in it: MONOTONIC (vDSO, call, COARSE, RAW), BOOTTIME, uptime ahead, "
	       "REALTIME not; sleeps and timerfds on its clocks; setns with 2 threads EUSERS");
	is_int(set_offsets("monotonic 1 0"), -EACCES, "once a child entered it: EACCES");
	read_host_clocks();
	if (!(pid = fork()))
		_exit(back_to_initial());
	is_int(exit_status(pid), 0, "setns to the initial namespace: the host's clocks again");
}

static int clone3_child(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	} args = {.flags = CLONE_NEWTIME, .exit_signal = SIGCHLD};
	unsigned long mine = ns_ino("time");
	long pid = syscall(SYS_clone3, &args, sizeof args);

	if (pid == 0) /* in a new namespace with its parent's children's offsets */
		_exit(ns_ino("time") == mine || ns_ino("time") != ns_ino("time_for_children") ||
		      !AHEAD(sys_ns(CLOCK_MONOTONIC), parent_mono, MONO_OFF));
	return pid < 0 ? -1 : exit_status((pid_t)pid);
}

/* A vfork child shares its parent's memory and so its time namespace;
 * its exec enters time_for_children (Linux's exec_task_namespaces). */
static void check_exec(void)
{
	char base[32];
	int status;

	snprintf(base, sizeof base, "%lld", (long long)parent_mono);
	pid_t pid = vfork();
	if (!pid) {
		execl("/proc/self/exe", "ns_time", "exec-child", base, (char *)NULL);
		_exit(127);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a vfork child's exec enters time_for_children (%#x)", status);
}

/* The program exec'd by check_exec: in the namespace, its clock ahead. */
static int exec_child(const char *base)
{
	parent_mono = atoll(base);
	return ns_ino("time") != ns_ino("time_for_children") ||
	       !AHEAD(vdso_ns(CLOCK_MONOTONIC), parent_mono, MONO_OFF);
}

static void check_unprivileged(void)
{
	pid_t pid = fork();

	if (!pid) {
		if (setresuid(61001, 61001, 61001))
			_exit(99);
		_exit(unshare(CLONE_NEWTIME) == -1 && errno == EPERM ? 0 : 1);
	}
	is_int(exit_status(pid), 0, "unshare(CLONE_NEWTIME) as an ordinary user: EPERM");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "exec-child"))
		return exec_child(argv[2]);
	if (geteuid() || access("/proc/self/ns/time", F_OK))
		skip_all("not root, or no time namespaces");
	unsigned long time_ino = ns_ino("time");
	initial_fd = open("/proc/self/ns/time", O_RDONLY);
	require(initial_fd >= 0, "/proc/self/ns/time");
	plan(14);
	require(unshare(CLONE_NEWTIME) == 0, "unshare(CLONE_NEWTIME)");
	check_offsets_file(time_ino);
	check_children();
	read_host_clocks();
	is_int(clone3_child(), 0, "clone3(CLONE_NEWTIME): a new namespace with the offsets");
	check_exec();
	check_unprivileged();
	return done();
}
