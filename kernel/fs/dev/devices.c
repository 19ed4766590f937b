/*
 * Character devices: the table from device number to operations, the
 * /dev nodes and links made at boot, and the trivial devices null, zero
 * and full (profile, random and urandom are in profile.c and random.c).
 */
#include "arch/x86_64/cpuinfo.h"
#include "block/loop.h"
#include "tty/console.h"
#include "tty/pty.h"
#include "fs/devpts/devpts.h"
#include "tty/tty.h"
#include "fs/dev/dev_ops.h"
#include "fs/file.h"
#include "fs/proc/proc_pid.h"
#include "fs/proc/proc_sys.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "ipc/ipc.h"
#include "lib/iov_iter.h"
#include "mm/kpageflags.h"
#include "proc/kstat.h"
#include "proc/sysinfo.h"
#include "sys/kconfig.h"
#include "sys/strace.h"
#include "lib/printk.h"
#include <uapi/errno.h>

static long null_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)f, (void)to, (void)pos;
	return 0;
}

/* null and zero swallow writes whole, as on Linux (no user access at all). */
static long sink_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)f, (void)pos;
	return iov_iter_count(from);
}

/* A fault part-way returns the zeroes written, as Linux. */
static long zero_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	size_t len = iov_iter_count(to), n = zero_to_iter(len, to);

	(void)f, (void)pos;
	return n || !len ? (long)n : -EFAULT;
}

/* A disk with no room: every write fails, as Linux's /dev/full. */
static long full_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)f, (void)from, (void)pos;
	return -ENOSPC;
}

static const struct file_ops null_ops = {
    .read_iter = null_read,
    .write_iter = sink_write,
    .release = vfs_release_inode,
};

static const struct file_ops zero_ops = {
    .read_iter = zero_read,
    .write_iter = sink_write,
    .release = vfs_release_inode,
    .mmap_anonymous = true,
};

static const struct file_ops full_ops = {
    .read_iter = zero_read,
    .write_iter = full_write,
    .release = vfs_release_inode,
};

/* Linux's numbers, so stat() shows what tools expect. */
static const struct chrdev {
	const char *path;
	uint32_t rdev;
	uint32_t perm;
	const struct file_ops *ops;
} chrdevs[] = {
    {"/dev/null", MKDEV(1, 3), 0666, &null_ops},
    {"/dev/zero", MKDEV(1, 5), 0666, &zero_ops},
    {"/dev/full", MKDEV(1, 7), 0666, &full_ops},
    {"/dev/random", MKDEV(1, 8), 0666, &random_ops},
    {"/dev/urandom", MKDEV(1, 9), 0666, &random_ops},
    {"/dev/tty", MKDEV(5, 0), 0666, &tty_file_ops}, /* the caller's controlling terminal */
    {"/dev/console", MKDEV(5, 1), 0600, &tty_file_ops},
    {"/dev/ptmx", MKDEV(5, 2), 0666, &ptmx_ops},	  /* a new pseudo-terminal (tty/pty.c) */
    {"/dev/profile", MKDEV(10, 240), 0666, &profile_ops}, /* misc major, a free minor */
    {"/dev/loop-control", MKDEV(10, 237), 0600, &loop_ctl_ops}, /* block/loop.c */
    {"/proc/kstat", MKDEV(10, 241), 0444, &kstat_ops},
    {"/proc/strace", MKDEV(10, 242), 0600, &strace_ops},
    /* Text files of proc/sysinfo.c (regular files on Linux). */
    {"/proc/meminfo", MKDEV(10, 243), 0444, &meminfo_ops},
    {"/proc/uptime", MKDEV(10, 244), 0444, &uptime_ops},
    {"/proc/loadavg", MKDEV(10, 245), 0444, &loadavg_ops},
    {"/proc/version", MKDEV(10, 246), 0444, &version_ops},
    {"/proc/stat", MKDEV(10, 248), 0444, &stat_ops},
    {"/proc/interrupts", MKDEV(10, 249), 0444, &interrupts_ops},
    {"/proc/cpuinfo", MKDEV(10, 250), 0444, &cpuinfo_ops},	   /* arch/x86_64/cpuinfo.c */
    {"/proc/filesystems", MKDEV(10, 251), 0444, &filesystems_ops}, /* fs/sys_statfs.c */
    {"/proc/partitions", MKDEV(10, 252), 0444, &partitions_ops},
    {"/proc/sysvipc/shm", MKDEV(10, 253), 0444, &sysvipc_shm_ops}, /* ipc/shm.c */
    {"/proc/sysvipc/sem", MKDEV(10, 254), 0444, &sysvipc_sem_ops}, /* ipc/sem.c */
    {"/proc/sysvipc/msg", MKDEV(10, 255), 0444, &sysvipc_msg_ops}, /* ipc/msg.c */
    /* From 239 down, clear of the minors added upwards. */
    {"/proc/config.gz", MKDEV(10, 239), 0444, &config_gz_ops},	 /* sys/kconfig.c */
    {"/proc/diskstats", MKDEV(10, 238), 0444, &diskstats_ops},	 /* block/disk_stats.c */
    {"/proc/kpageflags", MKDEV(10, 236), 0400, &kpageflags_ops}, /* mm/kpageflags.c */
};

#define NCHRDEVS (sizeof(chrdevs) / sizeof(chrdevs[0]))

/* The links udev makes on Linux: the caller's own fds, through /proc; and
 * procfs's own: /proc/mounts is the caller's mount table. */
static const struct devlink {
	const char *path, *target;
} devlinks[] = {
    {"/dev/fd", "/proc/self/fd"},	{"/dev/stdin", "/proc/self/fd/0"},
    {"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"},
    {"/proc/mounts", "self/mounts"},
};

const struct file_ops *chrdev_ops(uint32_t rdev)
{
	if (RDEV_MAJOR(rdev) == PTY_SLAVE_MAJOR)
		return &tty_file_ops;
	if (rdev >> 8 == PROC_PID_MAJOR)
		return proc_pid_ops(MINOR(rdev));
	if (rdev >> 8 == PROC_SYS_MAJOR)
		return proc_sys_ops();
	for (size_t i = 0; i < NCHRDEVS; i++)
		if (chrdevs[i].rdev == rdev)
			return chrdevs[i].ops;
	return NULL;
}

int chrdev_open(struct file *f, unsigned flags)
{
	struct inode *ip = f->inode;

	if (ip->rdev == MKDEV(5, 0))
		return tty_dev_open(f);
	if (ip->rdev == MKDEV(5, 1))
		return console_open(f, flags);
	if (ip->rdev == MKDEV(5, 2))
		return ptmx_open(f, flags);
	if (RDEV_MAJOR(ip->rdev) == PTY_SLAVE_MAJOR)
		return devpts_open(f, flags);
	/* /proc's files read their procfs inode: a node made by mknod
	 * elsewhere has none (Linux has no driver on these majors). */
	if ((ip->rdev >> 8 == PROC_SYS_MAJOR || ip->rdev >> 8 == PROC_PID_MAJOR) &&
	    ip->sb->type != &proc_type)
		return -ENXIO;
	if (ip->rdev >> 8 == PROC_SYS_MAJOR)
		return proc_sys_open(ip, flags);
	if (ip->rdev >> 8 == PROC_PID_MAJOR)
		return proc_pid_open(f);
	return 0;
}

void devices_init(void)
{
	console_init();
	for (size_t i = 0; i < NCHRDEVS; i++) {
		int err =
		    vfs_mknod(NULL, chrdevs[i].path, S_IFCHR | chrdevs[i].perm, chrdevs[i].rdev);
		if (err && err != -EEXIST)
			printk("vfs: cannot create %s (%d)\n", chrdevs[i].path, err);
	}
	for (size_t i = 0; i < sizeof(devlinks) / sizeof(devlinks[0]); i++) {
		int err = vfs_symlink(NULL, devlinks[i].path, devlinks[i].target);
		if (err && err != -EEXIST)
			printk("vfs: cannot create %s (%d)\n", devlinks[i].path, err);
	}
	devpts_init();
}
