/*
 * sysinfo(2) and the /proc files built from the same figures.  Everything
 * is read without locks: each number is a snapshot that may be stale by
 * the time the caller sees it, as on Linux.
 */
#include "proc/sysinfo.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/ramfs_space.h"
#include "fs/snapshot.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

void sysinfo_read(struct sysinfo_k *si)
{
	uint64_t now = clock_monotonic_ns();

	memset(si, 0, sizeof(*si));
	si->uptime = (now + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	si->totalram = (uint64_t)frame_total_count() * PAGE_SIZE;
	si->freeram = (uint64_t)frame_free_count() * PAGE_SIZE;
	si->sharedram = (uint64_t)ramfs_pages_used() * PAGE_SIZE;
	si->procs = task_count();
	si->mem_unit = 1;
}

SYSCALL_DEFINE1(sysinfo, struct sysinfo_k *, uinfo)
{
	struct sysinfo_k si;

	sysinfo_read(&si);
	return copy_to_user(uinfo, &si, sizeof(si)) ? -EFAULT : 0;
}

/* The lines `free` and `top` read, in kB; ramfs pages count as Shmem and
 * Cached, as tmpfs pages do on Linux. */
static void format_meminfo(char *buf, size_t size)
{
	struct sysinfo_k si;

	sysinfo_read(&si);
	snprintk(buf, size,
		 "MemTotal:       %8lu kB\nMemFree:        %8lu kB\nMemAvailable:   %8lu kB\n"
		 "Buffers:        %8lu kB\nCached:         %8lu kB\nSwapCached:     %8lu kB\n"
		 "SwapTotal:      %8lu kB\nSwapFree:       %8lu kB\nShmem:          %8lu kB\n"
		 "SReclaimable:   %8lu kB\n",
		 si.totalram / 1024, si.freeram / 1024, si.freeram / 1024, 0UL, si.sharedram / 1024,
		 0UL, 0UL, 0UL, si.sharedram / 1024, 0UL);
}

/* Seconds since boot and idle seconds (not counted: 0), two decimals. */
static void format_uptime(char *buf, size_t size)
{
	uint64_t cs = clock_monotonic_ns() / (NSEC_PER_SEC / 100);

	snprintk(buf, size, "%lu.%02lu 0.00\n", cs / 100, cs % 100);
}

/* Load averages (not computed: 0), running/total tasks, the last pid. */
static void format_loadavg(char *buf, size_t size)
{
	snprintk(buf, size, "0.00 0.00 0.00 1/%d %d\n", task_count(), last_pid());
}

static void format_version(char *buf, size_t size)
{
	snprintk(buf, size, "%s version %s (gcc) %s\n", UTS_SYSNAME, UTS_RELEASE, UTS_VERSION);
}

struct cpu_ticks {
	uint64_t user, system;
	int running;
};

static bool add_ticks(struct task *t, void *arg)
{
	struct cpu_ticks *c = arg;

	c->user += t->utime_ticks;
	c->system += t->stime_ticks;
	c->running += t->state == TASK_RUNNABLE;
	return true;
}

/* What `top` reads: the one CPU's ticks (USER_HZ = TIMER_HZ = 100).  Only
 * live tasks are counted, so user and system can go down when a busy
 * process is reaped; idle is the rest of the time since boot. */
static void format_stat(char *buf, size_t size)
{
	struct cpu_ticks c = {0};
	uint64_t up = clock_monotonic_ns() / (NSEC_PER_SEC / TIMER_HZ), idle;

	task_for_each(add_ticks, &c);
	idle = up > c.user + c.system ? up - c.user - c.system : 0;
	snprintk(buf, size,
		 "cpu  %lu 0 %lu %lu 0 0 0 0 0 0\ncpu0 %lu 0 %lu %lu 0 0 0 0 0 0\n"
		 "intr 0\nctxt 0\nbtime %ld\nprocesses %d\nprocs_running %d\nprocs_blocked 0\n",
		 c.user, c.system, idle, c.user, c.system, idle,
		 (long)(clock_realtime_offset_ns() / (int64_t)NSEC_PER_SEC), last_pid(), c.running);
}

#define PROC_TEXT_MAX 512

#define PROC_TEXT_OPS(name)                                                                        \
	static long name##_read(struct file *f, struct iov_iter *to, uint64_t *pos)                \
	{                                                                                          \
		return snapshot_read(f, to, pos, PROC_TEXT_MAX, format_##name);                    \
	}                                                                                          \
	const struct file_ops name##_ops = {.read_iter = name##_read, .release = snapshot_release}

PROC_TEXT_OPS(meminfo);
PROC_TEXT_OPS(uptime);
PROC_TEXT_OPS(loadavg);
PROC_TEXT_OPS(version);
PROC_TEXT_OPS(stat);
