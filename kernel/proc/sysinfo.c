/*
 * sysinfo(2) and the /proc files built from the same figures.  Everything
 * is read without locks: each number is a snapshot that may be stale by
 * the time the caller sees it, as on Linux.
 */
#include "proc/sysinfo.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/irqvec.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "block/bcache.h"
#include "fs/file.h"
#include "fs/proc/proc_sys.h"
#include "fs/super.h"
#include "fs/snapshot.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/commit.h"
#include "mm/filemap.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <stddef.h>
#include <uapi/errno.h>
#include <uapi/time.h>

/*
 * /proc/sys/kernel/tainted: Linux's taint bits.  fdkernel loads no
 * modules and never runs on after a kernel fault (every oops is a
 * panic), so nothing ever taints it: 0, read-only.
 */
static int tainted;
PROC_SYS_ROW(tainted_row, .path = "kernel/tainted", .mode = 0444, .show = proc_sys_int_show,
	     .data = &tainted);

void sysinfo_read(struct sysinfo_k *si)
{
	/* the caller's CLOCK_BOOTTIME: its time namespace's uptime */
	uint64_t now = clock_monotonic_ns() + (uint64_t)timens_offset(CLOCK_BOOTTIME);

	memset(si, 0, sizeof(*si));
	si->uptime = (now + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	si->totalram = (uint64_t)frame_total_count() * PAGE_SIZE;
	si->freeram = (uint64_t)frame_free_count() * PAGE_SIZE;
	si->sharedram = (uint64_t)sb_pages_all() * PAGE_SIZE;
	si->procs = task_count();
	si->mem_unit = 1;
}

SYSCALL_DEFINE1(sysinfo, struct sysinfo_k *, uinfo)
{
	struct sysinfo_k si;

	sysinfo_read(&si);
	return copy_to_user(uinfo, &si, sizeof(si)) ? -EFAULT : 0;
}

/*
 * The lines `free` and `top` read, in kB.  Cached is the page cache of
 * disk files (mm/filemap.h) plus the ramfs's pages, which also count as
 * Shmem, as tmpfs pages do on Linux; Buffers the cached disk blocks
 * (block/bcache.h, Linux's block-device page cache); Dirty the pages
 * and blocks newer than the disk, Writeback the pages being written.  MemAvailable adds what
 * reclaim could free (cached pages and blocks, dirty or not: a write-back frees those too).
 * CommitLimit and Committed_AS are the overcommit accounting's
 * (mm/commit.h).
 */
static void format_meminfo(char *buf, size_t size)
{
	uint64_t kb = PAGE_SIZE / 1024, cached = filemap_page_count() * kb,
		 buffers = bcache_count() * kb,
		 dirty = (filemap_dirty_count() + bcache_dirty_count()) * kb,
		 writeback = filemap_writeback_count() * kb;
	struct sysinfo_k si;

	sysinfo_read(&si);
	snprintk(buf, size,
		 "MemTotal:       %8lu kB\nMemFree:        %8lu kB\nMemAvailable:   %8lu kB\n"
		 "Buffers:        %8lu kB\nCached:         %8lu kB\nSwapCached:     %8lu kB\n"
		 "SwapTotal:      %8lu kB\nSwapFree:       %8lu kB\nDirty:          %8lu kB\n"
		 "Writeback:      %8lu kB\nShmem:          %8lu kB\n"
		 "SReclaimable:   %8lu kB\nCommitLimit:    %8lu kB\nCommitted_AS:   %8lu kB\n",
		 si.totalram / 1024, si.freeram / 1024, si.freeram / 1024 + cached + buffers,
		 buffers, si.sharedram / 1024 + cached, 0UL, 0UL, 0UL, dirty, writeback,
		 si.sharedram / 1024, 0UL, vm_commit_limit_pages() * kb,
		 (uint64_t)vm_committed_pages() * kb);
}

/* A per-CPU counter, read without a lock (its CPU alone writes it). */
static uint64_t cpu_read(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* Seconds up (in the reader's time namespace), and seconds every CPU
 * spent idle, summed (Linux's). */
static void format_uptime(char *buf, size_t size)
{
	uint64_t up = clock_monotonic_ns() + (uint64_t)timens_offset(CLOCK_BOOTTIME);
	uint64_t cs = up / (NSEC_PER_SEC / 100), idle = 0;

	for (int i = 0; i < smp_cpus_online; i++) /* ticks: 100 Hz, so hundredths */
		idle += cpu_read(&cpu_get(i)->idle_ticks);
	snprintk(buf, size, "%lu.%02lu %lu.%02lu\n", cs / 100, cs % 100, idle / 100, idle % 100);
}

static bool count_running(struct task *t, void *arg)
{
	*(int *)arg += t->state == TASK_RUNNABLE;
	return true;
}

/* Load averages (not computed: 0), runnable/all tasks, the last pid. */
static void format_loadavg(char *buf, size_t size)
{
	int running = 0;

	task_for_each(count_running, &running);
	snprintk(buf, size, "0.00 0.00 0.00 %d/%d %d\n", running, task_count(), last_pid());
}

/* Linux's line: release, who built it, the compiler, the version string
 * (fdkernel's own name and version). */
static void format_version(char *buf, size_t size)
{
	snprintk(buf, size, "%s version %s (root@fdkernel) (gcc version %s) %s\n", UTS_SYSNAME,
		 UTS_RELEASE, __VERSION__, UTS_VERSION);
}

/*
 * What `top` and `mpstat` read: each CPU's ticks (USER_HZ = TIMER_HZ =
 * 100) as its timer found it (a task in user mode, in the kernel, or the
 * idle task), their sums on the cpu line; interrupts taken (the total,
 * then each ISA line), context switches.
 */
static void format_stat(char *buf, size_t size)
{
	uint64_t user = 0, system = 0, idle = 0, intr = 0, ctxt = 0, irqs[16] = {0};
	size_t len = 0;
	int running = 0;

	for (int i = 0; i < smp_cpus_online; i++) {
		struct cpu *c = cpu_get(i);

		user += cpu_read(&c->user_ticks);
		system += cpu_read(&c->system_ticks);
		idle += cpu_read(&c->idle_ticks);
		ctxt += cpu_read(&c->switches);
		intr += cpu_read(&c->ticks) + cpu_read(&c->resched_ipis) + cpu_read(&c->call_ipis) +
			cpu_read(&c->nmis);
		for (int q = 0; q < 16; q++) {
			irqs[q] += cpu_read(&c->irqs[q]);
			intr += cpu_read(&c->irqs[q]);
		}
	}
	appendk(buf, size, &len, "cpu  %lu 0 %lu %lu 0 0 0 0 0 0\n", user, system, idle);
	for (int i = 0; i < smp_cpus_online; i++) {
		struct cpu *c = cpu_get(i);

		appendk(buf, size, &len, "cpu%d %lu 0 %lu %lu 0 0 0 0 0 0\n", i,
			cpu_read(&c->user_ticks), cpu_read(&c->system_ticks),
			cpu_read(&c->idle_ticks));
	}
	appendk(buf, size, &len, "intr %lu", intr);
	for (int q = 0; q < 16; q++)
		appendk(buf, size, &len, " %lu", irqs[q]);
	task_for_each(count_running, &running);
	appendk(buf, size, &len,
		"\nctxt %lu\nbtime %ld\nprocesses %d\nprocs_running %d\nprocs_blocked 0\n", ctxt,
		(long)(clock_realtime_offset_ns() / (int64_t)NSEC_PER_SEC), last_pid(), running);
}

/* One row of /proc/interrupts: its label, the counter at offset in each
 * CPU's struct cpu, what it counts. */
static void irq_row(char *buf, size_t size, size_t *len, const char *label, size_t offset,
		    const char *what)
{
	appendk(buf, size, len, "%4s:", label);
	for (int i = 0; i < smp_cpus_online; i++)
		appendk(buf, size, len, " %10lu",
			cpu_read((const uint64_t *)((const char *)cpu_get(i) + offset)));
	appendk(buf, size, len, "   %s\n", what);
}

/*
 * Linux's /proc/interrupts: a column per CPU, a row per ISA line with a
 * handler (routed by the I/O APIC, or the PIC without one), then the
 * local timer, NMIs, reschedule IPIs (idle wake-ups and signal kicks, as
 * Linux counts its kicks) and cross-CPU calls (TLB shootdowns among them).
 */
static void format_interrupts(char *buf, size_t size)
{
	const char *chip = lapic_enabled() ? "IO-APIC" : "XT-PIC";
	char label[4], what[48];
	size_t len = 0;

	appendk(buf, size, &len, "     ");
	for (int i = 0; i < smp_cpus_online; i++)
		appendk(buf, size, &len, "       CPU%-2d", i);
	appendk(buf, size, &len, "\n");
	for (int q = 0; q < 16; q++) {
		if (!irq_name(q))
			continue;
		snprintk(label, sizeof label, "%d", q);
		snprintk(what, sizeof what, "%s %d-edge %s", chip, q, irq_name(q));
		irq_row(buf, size, &len, label, offsetof(struct cpu, irqs[q]), what);
	}
	irqvec_format(buf, size, &len);
	irq_row(buf, size, &len, "LOC", offsetof(struct cpu, ticks), "Local timer interrupts");
	irq_row(buf, size, &len, "NMI", offsetof(struct cpu, nmis), "Non-maskable interrupts");
	irq_row(buf, size, &len, "RES", offsetof(struct cpu, resched_ipis),
		"Rescheduling interrupts");
	irq_row(buf, size, &len, "CAL", offsetof(struct cpu, call_ipis),
		"Function call interrupts");
}

SNAPSHOT_OPS(meminfo, 512);
SNAPSHOT_OPS(uptime, 64);
SNAPSHOT_OPS(loadavg, 64);
SNAPSHOT_OPS(version, 256);
SNAPSHOT_OPS(stat, 1024);	/* 8 CPUs: about 750 */
SNAPSHOT_OPS(interrupts, 4096); /* 8 CPUs, 2 ISA lines: about 800 */
