/*
 * System-wide figures: sysinfo(2) and the /proc text files that report the
 * same numbers (meminfo, uptime, loadavg, version), so `free`, `uptime`
 * and `top` agree whichever they read.
 */
#ifndef PROC_SYSINFO_H
#define PROC_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

/*
 * uname(2)'s answers, also in /proc/version and /proc/sys/kernel/ostype,
 * osrelease.  The system is Linux's and the release a Linux-style one, so
 * that programs gating a feature on the kernel version (statx, LTP's
 * "requires kernel 4.11") take the modern path: fdkernel speaks Linux's
 * ABI, not an older one.  fdkernel's own name and version are in the
 * version string, and the release ends in "-fdkernel" (how tests tell).
 */
#define UTS_SYSNAME	 "Linux"
#define UTS_RELEASE	 "6.1.0-fdkernel"
#define FDKERNEL_VERSION "0.1.0"
#define UTS_VERSION	 "#1 SMP fdkernel " FDKERNEL_VERSION " (" __DATE__ ")"

/* Linux's struct sysinfo (x86_64): memory in bytes (mem_unit 1). */
struct sysinfo_k {
	int64_t uptime;	    /* seconds since boot, rounded up */
	uint64_t loads[3];  /* 1, 5, 15 min load averages << 16: always 0 here */
	uint64_t totalram;  /* usable page frames */
	uint64_t freeram;   /* free page frames */
	uint64_t sharedram; /* ramfs pages in use (tmpfs counts as shared) */
	uint64_t bufferram;
	uint64_t totalswap, freeswap;
	uint16_t procs; /* tasks (threads), as Linux's nr_threads */
	uint16_t pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char reserved[4];
};

void sysinfo_read(struct sysinfo_k *si);
/* The host name (proc/uts.c), cut to size: a core name's %h. */
void uts_hostname(char *buf, size_t size);

/* file_ops of /proc/meminfo, /proc/uptime, /proc/loadavg, /proc/version,
 * /proc/stat, /proc/interrupts. */
extern const struct file_ops meminfo_ops, uptime_ops, loadavg_ops, version_ops, stat_ops,
    interrupts_ops;

#endif
