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
/* Raw calls return Linux's errno values; newlib's numbering differs. */
#define LINUX_E2BIG  7
#define LINUX_EINVAL 22
#define LINUX_EIDRM  43

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

static void fuzz_semget(void)
{
	long nsems = one_in(2) ? (long)below(8) : (long)PICK(interesting);
	remember(raw_call(__NR_semget, ipc_key(), nsems, ipc_get_flags()));
}

/* Operations in the struct area: small semaphore numbers and values, mostly
 * IPC_NOWAIT (a waiting worker stalls until the watchdog ends it), now and
 * then SEM_UNDO; semtimedop with a short or a bad timeout. */
static void fuzz_semop(void)
{
	struct sembuf *sops = (struct sembuf *)fz.buf;
	long nsops = one_in(8) ? (long)PICK(interesting) : (long)(1 + below(4));
	long ts[2] = {0, (long)below(2000000)};
	for (int i = 0; i < 4; i++)
		sops[i] = (struct sembuf){
		    (uint16_t)(one_in(8) ? rnd() : below(4)),
		    (int16_t)(one_in(8) ? rnd() : below(5) - 2),
		    (int16_t)((one_in(16) ? 0 : IPC_NOWAIT) | (one_in(3) ? SEM_UNDO : 0))};
	const long a[6] = {ipc_id(), one_in(8) ? any_pointer() : (long)sops,
			   nsops,    one_in(4) ? any_pointer() : (long)ts,
			   0,	     0};
	raw_syscall(one_in(2) ? __NR_semop : __NR_semtimedop, a);
}

static void fuzz_semctl(void)
{
	long arg = one_in(2) ? arg_value('b') : (long)PICK(interesting);
	const long a[6] = {ipc_id(), one_in(4) ? (long)rnd() : (long)below(4), ipc_cmd(), arg, 0,
			   0};
	raw_syscall(__NR_semctl, a);
}

static void fuzz_msgget(void)
{
	remember(raw_call(__NR_msgget, ipc_key(), ipc_get_flags(), 0));
}

/* Sends and receives with a type and size drawn, mostly IPC_NOWAIT. */
static void fuzz_msg(long nr)
{
	static const long flags[] = {IPC_NOWAIT,
				     IPC_NOWAIT | MSG_NOERROR,
				     IPC_NOWAIT | MSG_EXCEPT,
				     IPC_NOWAIT | MSG_COPY,
				     MSG_COPY,
				     0};
	long *buf = (long *)buffer_pointer();
	long size = one_in(2) ? (long)below(64) : length_value();
	long type = one_in(2) ? (long)below(5) - 2 : (long)PICK(interesting);
	if ((char *)buf + sizeof(long) <= fz.buf + BUF_SIZE)
		*buf = type;
	const long a[6] = {ipc_id(), one_in(8) ? any_pointer() : (long)buf,   size,
			   type,     one_in(8) ? flags_value() : PICK(flags), 0};
	raw_syscall(nr, a);
}

static void fuzz_msgsnd(void)
{
	fuzz_msg(__NR_msgsnd);
}

static void fuzz_msgrcv(void)
{
	fuzz_msg(__NR_msgrcv);
}

static void fuzz_msgctl(void)
{
	raw_call(__NR_msgctl, ipc_id(), ipc_cmd(), arg_value('b'));
}

/* --- The sweep: every object of every kind removed (fdkernel only: on
 * Linux the fuzzer plays only its scenarios, which remove their own). --- */

/* ctl(id, cmd, buf) of shmctl and msgctl; semctl's cmd comes third. */
static long ctl(long nr, long id, long cmd, long *buf)
{
	const long a[6] = {
	    id, nr == __NR_semctl ? 0 : cmd, nr == __NR_semctl ? cmd : (long)buf, (long)buf, 0, 0};
	return raw_syscall(nr, a);
}

static void sweep_kind(long nr, long stat_any)
{
	long buf[32]; /* the largest *_ds and *info */
	long max = ctl(nr, 0, IPC_INFO, buf);
	for (long idx = 0; idx <= max; idx++) {
		long id = ctl(nr, idx, stat_any, buf);
		if (id >= 0)
			ctl(nr, id, IPC_RMID, buf);
	}
}

static void ipc_sweep(void)
{
	sweep_kind(__NR_shmctl, SHM_STAT_ANY);
	sweep_kind(__NR_semctl, SEM_STAT_ANY);
	sweep_kind(__NR_msgctl, MSG_STAT_ANY);
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
static void sysv_shm(void)
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
		if (raw_call(__NR_shmctl, id, IPC_STAT, (long)&ds) == -LINUX_EINVAL)
			break;
		if (now_ms() > end) {
			if (ds.shm_nattch == 0)
				finding(F_SHM_ALIVE);
			break;
		}
	}
}

/* A helper's blocking call ended: 0 done, 1 EIDRM (removed under it) or
 * EINVAL (removed before it came), 2 E2BIG (a message too long for a
 * receiver); anything else is not Linux's (3). */
static _Noreturn void ipc_helper_exit(long r)
{
	_exit(r >= 0 ? 0 : r == -LINUX_EIDRM || r == -LINUX_EINVAL ? 1 : r == -LINUX_E2BIG ? 2 : 3);
}

/* Waits for the helpers (those still blocked are killed); each that
 * ended by itself must have ended as Linux would; the object must be
 * gone once removed (stat_nr: its ctl, cmd third for semctl). */
static void ipc_scenario_end(pid_t *pid, int n, long stat_nr, int id)
{
	long buf[32];
	for (int i = 0; i < n; i++) {
		int status = pid[i] > 0 ? helper_wait(pid[i], 20) : -1;
		if (status >= 0 && !(WIFSIGNALED(status) || WEXITSTATUS(status) < 3))
			finding(F_IPC_RESULT);
	}
	kill_helpers();
	ctl(stat_nr, id, IPC_RMID, buf);
	if (ctl(stat_nr, id, IPC_STAT, buf) != -LINUX_EINVAL)
		finding(F_IPC_ALIVE);
}

/* Helpers wait on a set (to take 1, or for zero), some with SEM_UNDO; the
 * scenario adds some, then removes the set under the rest. */
static void sysv_sem(void)
{
	int id = (int)raw_call(__NR_semget, IPC_PRIVATE, 2, 0600), n = 1 + (int)below(4);
	pid_t pid[4];
	if (id < 0)
		return;
	const long one[6] = {id, 1, SETVAL, 1, 0, 0};
	raw_syscall(__NR_semctl, one); /* 0 to take from, 1 to wait for zero on */
	for (int i = 0; i < n; i++)
		if ((pid[i] = helper()) == 0) {
			struct sembuf sb = {(uint16_t)below(2), (int16_t)(one_in(3) ? 0 : -1),
					    (int16_t)(one_in(2) ? SEM_UNDO : 0)};
			ipc_helper_exit(raw_call(__NR_semop, id, (long)&sb, 1));
		}
	settle();
	struct sembuf up[2] = {{0, (int16_t)below(3), IPC_NOWAIT},
			       {1, -(int16_t)below(2), IPC_NOWAIT}};
	raw_call(__NR_semop, id, (long)up, 1 + (long)below(2));
	settle();
	if (one_in(2))
		ctl(__NR_semctl, id, IPC_RMID, NULL);
	ipc_scenario_end(pid, n, __NR_semctl, id);
}

/* Receivers and senders wait on a small queue; the scenario sends and
 * receives a little, then removes the queue under the rest. */
static void sysv_msg(void)
{
	int id = (int)raw_call(__NR_msgget, IPC_PRIVATE, 0600, 0), n = 1 + (int)below(4);
	struct msqid64_ds ds;
	long msg[5] = {1};
	pid_t pid[4];
	if (id < 0 || raw_call(__NR_msgctl, id, IPC_STAT, (long)&ds))
		return;
	ds.msg_qbytes = 16;
	raw_call(__NR_msgctl, id, IPC_SET, (long)&ds);
	for (int i = 0; i < n; i++)
		if ((pid[i] = helper()) == 0) {
			long type = (long)below(3) - 1, size = (long)below(17);
			msg[0] = 1 + (long)below(2);
			if (one_in(2))
				ipc_helper_exit(raw_call(__NR_msgsnd, id, (long)msg, size));
			const long a[6] = {
			    id, (long)msg, (long)below(17), type, one_in(2) ? MSG_NOERROR : 0, 0};
			ipc_helper_exit(raw_syscall(__NR_msgrcv, a));
		}
	settle();
	for (int i = (int)below(3); i > 0; i--) {
		const long a[6] = {id, (long)msg, 32, 0, IPC_NOWAIT, 0};
		raw_syscall(__NR_msgrcv, a);
		const long snd[6] = {id, (long)msg, (long)below(9), IPC_NOWAIT, 0, 0};
		raw_syscall(__NR_msgsnd, snd);
	}
	settle();
	ipc_scenario_end(pid, n, __NR_msgctl, id);
}

/* One of the three kinds' lifetimes. */
static void scenario_sysv(void)
{
	switch (below(3)) {
	case 0:
		sysv_shm();
		break;
	case 1:
		sysv_sem();
		break;
	default:
		sysv_msg();
	}
}

#endif
