/* System V IPC in the fuzzer: its calls with drawn arguments, the sweep
 * that removes every object after a worker (they outlive processes by
 * design: a leak is only a leak once they are removed), and the lifetime
 * scenario (docs/ipc.md).  Included by fuzz.c only, after
 * fuzz_scenario.h. */
#ifndef FUZZ_IPC_H
#define FUZZ_IPC_H

#include <uapi/ipc.h>

#define IPC_KEY_BASE 0x46000000 /* a few keys, so that gets meet */
#define SHM_PAGES    4
#define MARK	     4096 /* helpers' marks: past where a shmat call's read writes */

/* --- Drawn arguments. --- */

static long ipc_key(void)
{
	switch (below(4)) {
	case 0:
		return IPC_PRIVATE;
	case 1:
		return (long)rnd();
	default:
		return IPC_KEY_BASE + (long)below(8);
	}
}

/* An id: one a call returned, a small index, or anything. */
static long ipc_id(void)
{
	static const long odd[] = {-1, 0, 1, 0x7fff, 0x8000, INT_MAX, INT_MIN};
	switch (below(4)) {
	case 0:
		return PICK(odd);
	case 1:
		return (long)below(64);
	default:
		return recent_result();
	}
}

static long ipc_get_flags(void)
{
	long f = (long)below(01000);
	if (one_in(2))
		f |= IPC_CREAT;
	if (one_in(4))
		f |= IPC_EXCL;
	return one_in(8) ? flags_value() : f;
}

static long ipc_cmd(void)
{
	return one_in(8) ? (long)rnd() : (long)below(21);
}

/* --- The calls. --- */

static void fuzz_shmget(void)
{
	long size = one_in(2) ? (long)(1 + below(SHM_PAGES * 4096)) : length_value();
	long flags = ipc_get_flags() | (one_in(16) ? SHM_HUGETLB | SHM_NORESERVE : 0);
	remember(raw_call(__NR_shmget, ipc_key(), size, flags));
}

static void fuzz_shmat(void)
{
	static const long flags[] = {0,		SHM_RDONLY, SHM_RND,
				     SHM_REMAP, SHM_EXEC,   SHM_RND | SHM_REMAP};
	long addr = one_in(2) ? 0 : arg_value('a');
	long r = raw_call(__NR_shmat, ipc_id(), addr, one_in(8) ? flags_value() : PICK(flags));
	if (r >= 0 && one_in(2))
		raw_call(__NR_read, arg_value('f'), r, 16); /* the kernel writes into it */
	remember(r);
}

static void fuzz_shmdt(void)
{
	raw_call(__NR_shmdt, one_in(2) ? recent_result() : arg_value('a'), 0, 0);
}

static void fuzz_shmctl(void)
{
	raw_call(__NR_shmctl, ipc_id(), ipc_cmd(), arg_value('b'));
}

/* --- The sweep: every object of every kind removed (fdkernel only: on
 * Linux the fuzzer plays only its scenarios, which remove their own). --- */

static void sweep_kind(long nr, long stat_any)
{
	long buf[32]; /* the largest *_ds and *info */
	long max = raw_call(nr, 0, IPC_INFO, (long)buf);
	for (long idx = 0; idx <= max; idx++) {
		long id = raw_call(nr, idx, stat_any, (long)buf);
		if (id >= 0)
			raw_call(nr, id, IPC_RMID, 0);
	}
}

static void ipc_sweep(void)
{
	sweep_kind(__NR_shmctl, SHM_STAT_ANY);
}

/* --- The lifetime scenario. --- */

static long shm_attach(int id)
{
	return raw_call(__NR_shmat, id, 0, 0);
}

/* Helper N's part: attach again (or use the inherited attach), write its
 * mark, maybe fork a grandchild that execs or exits holding the attach,
 * then leave by exec, shmdt, exit, or pause until killed. */
static _Noreturn void shm_helper(int id, volatile char *inherited, int n)
{
	long own = one_in(2) ? shm_attach(id) : (long)inherited;
	volatile char *p = (volatile char *)own;
	char *argv[] = {"true", NULL};
	if (own < 0)
		_exit(1);
	p[MARK + n] = (char)('a' + n);
	if (one_in(2)) {
		pid_t child = fork();
		if (child == 0) {
			if (one_in(2))
				execve("/bin/true", argv, NULL);
			_exit(0);
		}
		waitpid(child, NULL, 0); /* gone before its parent: the scenario can count */
	}
	switch (below(4)) {
	case 0:
		execve("/bin/true", argv, NULL);
		_exit(2);
	case 1:
		_exit(raw_call(__NR_shmdt, own, 0, 0) == 0 ? 0 : 3);
	case 2:
		pause();
		_exit(4);
	default:
		_exit(0);
	}
}

/* A segment attached here and by helpers that fork, exec, exit or are
 * killed, removed before or after them.  A helper that wrote its mark
 * wrote it in the pages everyone shares, and once all are gone and it
 * is removed, the segment is gone too. */
static void scenario_sysv(void)
{
	int id = (int)raw_call(__NR_shmget, IPC_PRIVATE, SHM_PAGES * 4096, 0600);
	int n = 1 + (int)below(4);
	long at = id >= 0 ? shm_attach(id) : -1;
	volatile char *p = (volatile char *)at;
	bool early = one_in(2);
	struct shmid64_ds ds;
	pid_t pid[4];
	if (at < 0) {
		raw_call(__NR_shmctl, id, IPC_RMID, 0);
		return;
	}
	for (int i = 0; i < n; i++)
		if ((pid[i] = helper()) == 0)
			shm_helper(id, p, i);
	if (early)
		raw_call(__NR_shmctl, id, IPC_RMID, 0);
	settle();
	for (int i = 0; i < n; i++) {
		int status = pid[i] > 0 ? helper_wait(pid[i], 20) : -1;
		if (status >= 0 && exited_with(status, 0) && p[MARK + i] != 'a' + i)
			finding(F_SHM_LOST);
	}
	kill_helpers();
	if (!early)
		raw_call(__NR_shmctl, id, IPC_RMID, 0);
	raw_call(__NR_shmdt, at, 0, 0);
	/* Gone, or still attached by a process outside the scenario: an
	 * argument-fuzzing worker may attach any segment by its id.  Removed
	 * and attached by nobody, it must be gone. */
	for (long end = now_ms() + HELPER_END_MS; /* a killed helper's exit may lag */;
	     sleep_ms(1)) {
		if (raw_call(__NR_shmctl, id, IPC_STAT, (long)&ds) == -EINVAL)
			break;
		if (now_ms() > end) {
			if (ds.shm_nattch == 0)
				finding(F_SHM_ALIVE);
			break;
		}
	}
}

#endif
