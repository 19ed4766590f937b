/*
 * /proc/<pid>/task: one directory per live thread of the process, named
 * by its tid, holding stat, status, comm and syscall about that thread (the same
 * figures as /proc/<pid>'s, for one thread: proc/pid_info.c).
 *
 * Lifetime rule, as for /proc/<pid>: these directories and files hold the
 * pid and tid numbers only (proc_inode.pid and tid); every
 * lookup, listing and read finds the thread again under proc_lock.  Once
 * it has exited, lookups in its directory are ESRCH, listings empty, reads
 * ESRCH.
 */
#include "fs/inode.h"
#include "fs/proc/proc_pid.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "proc/pid_info.h"
#include <uapi/errno.h>

/* What a thread's directory holds (enum proc_pid_file values). */
static const char *const tid_names[PROC_PID_NFILES] = {
    [PROC_PID_STAT] = "stat",
    [PROC_PID_STATUS] = "status",
    [PROC_PID_COMM] = "comm",
    [PROC_PID_SYSCALL] = "syscall",
    [PROC_PID_IO] = "io",
};

static int tid_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int i = proc_entry_index(tid_names, PROC_PID_NFILES, name, len), err;

	if (!proc_tid_exists(PROC_I(dir)->pid, PROC_I(dir)->tid))
		return -ESRCH;
	if (i < 0)
		return -ENOENT;
	if (!(err = proc_text_file(PROC_I(dir)->pid, PROC_I(dir)->tid, i, out)))
		proc_pid_own(*out, PROC_I(dir)->pid);
	return err;
}

static void tid_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	if (!proc_tid_exists(PROC_I(dir)->pid, PROC_I(dir)->tid))
		return;
	for (uint64_t i = *pos - DIR_GEN_POS; i < PROC_PID_NFILES; i++) {
		const char *name = tid_names[i];
		uint64_t ino =
		    4 * PROC_PID_INO_BASE + (uint64_t)PROC_I(dir)->tid * PROC_PID_NFILES + i;
		if (name && !emit(ctx, name, strlen(name), ino, S_IFCHR >> 12, DIR_GEN_POS + i + 1))
			return;
		*pos = DIR_GEN_POS + i + 1;
	}
}

static const struct dir_gen tid_dir_gen = {
    .lookup = tid_dir_lookup,
    .iterate = tid_dir_iterate,
};

/* ESRCH once the process is gone (Linux), ENOENT for a tid not of it. */
static int task_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int pid = PROC_I(dir)->pid, tid = proc_name_to_int(name, len), err;

	if (!proc_pid_exists(pid))
		return -ESRCH;
	if (tid <= 0 || !proc_tid_exists(pid, tid))
		return -ENOENT;
	if ((err = proc_gen_dir(dir, &tid_dir_gen, pid, tid, 0555, out)))
		return err;
	proc_pid_own(*out, pid);
	return 0;
}

/* Threads in tid order: the cookie after tid is DIR_GEN_POS + tid + 1. */
static void task_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	char name[12];
	int tid;

	while ((tid = proc_tid_next(PROC_I(dir)->pid, *pos - DIR_GEN_POS))) {
		int len = snprintk(name, sizeof(name), "%d", tid);
		if (!emit(ctx, name, len, 5 * PROC_PID_INO_BASE + tid, S_IFDIR >> 12,
			  DIR_GEN_POS + tid + 1))
			return;
		*pos = DIR_GEN_POS + tid + 1;
	}
}

const struct dir_gen proc_task_dir_gen = {
    .lookup = task_dir_lookup,
    .iterate = task_dir_iterate,
};
