/* The fuzzer's calls: the table of every call fdkernel implements with the
 * kind of each argument, the calls that get their own treatment, and the
 * end of a fuzzing process.  Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_SPECIAL_H
#define FUZZ_SPECIAL_H

/* --- Progress reports and the end of a fuzzing process. --- */

static void report(void)
{
	if (fz.unreported)
		send_report((int)fz.unreported, F_NONE);
	fz.unreported = 0;
}

static void forget_child(long pid)
{
	for (int i = 0; i < fz.nchildren; i++)
		if (fz.children[i] == pid)
			fz.children[i] = fz.children[--fz.nchildren];
}

static _Noreturn void finish(int code)
{
	report();
	for (int i = 0; i < fz.nchildren; i++)
		raw_call(__NR_kill, fz.children[i], SIGKILL, 0);
	while (raw_call(__NR_wait4, -1, 0, 0) != -ECHILD)
		;
	for (;;)
		raw_call(__NR_exit_group, code, 0, 0);
}

/* --- Calls that get their own treatment. --- */

static void fuzz_fork(void)
{
	long pid;
	if (fz.depth >= MAX_DEPTH || fz.nchildren >= MAX_CHILDREN || !one_in(4))
		return;
	report();
	if (one_in(4)) { /* a fork that also leaves a pidfd (CLONE_PIDFD) */
		int pidfd = -1;
		long a[6] = {
		    0x1000 /* CLONE_PIDFD */ | 17 /* Linux SIGCHLD */, 0, (long)&pidfd, 0, 0, 0};
		pid = raw_syscall(__NR_clone, a);
		if (pid > 0)
			remember(pidfd);
	} else {
		pid = raw_call(__NR_fork, 0, 0, 0);
	}
	if (pid == 0) {
		fz.depth++;
		fz.nchildren = 0;
		fz.budget = fz.budget < CHILD_CALLS ? fz.budget : CHILD_CALLS;
		fz.rng ^= (uint64_t)raw_call(__NR_getpid, 0, 0, 0) << 32;
	} else if (pid > 0) {
		fz.children[fz.nchildren++] = pid;
	}
}

static void fuzz_exit(void)
{
	if (one_in(TERMINAL_ODDS))
		finish((int)below(SETUP_FAILED));
}

/* A bad execve or execveat: bad pointers, a directory, a non-ELF file, an
 * fd of any kind with or without AT_EMPTY_PATH; in a forked child now and
 * then a real one (/bin/true ends it). */
static void fuzz_execve(void)
{
	char *argv[] = {"true", NULL};
	long path = arg_value('o');
	if (fz.depth > 0 && one_in(TERMINAL_ODDS)) {
		report();
		path = (long)"/bin/true";
	}
	long a[6] = {path, one_in(2) ? (long)argv : any_pointer(), any_pointer()};
	long nr = __NR_execve;
	if (one_in(2)) { /* execveat(fd, path, argv, envp, flags) */
		a[4] = one_in(2) ? 0x1000 /* AT_EMPTY_PATH */ : arg_value('F');
		a[3] = a[2], a[2] = a[1], a[1] = one_in(2) ? (long)"" : a[0];
		a[0] = one_in(4) ? -100 /* AT_FDCWD */ : arg_value('f');
		nr = 322;
	}
	remember(raw_syscall(nr, a));
}

static void fuzz_sigreturn(void)
{
	if (one_in(TERMINAL_ODDS)) {
		report();
		raw_call(__NR_rt_sigreturn, 0, 0, 0);
	}
}

/* openat2: an open_how of drawn flags, mode and resolve bits, at a size of
 * each class (short, version 0, longer with a stray byte past the fields,
 * over a page) or drawn; now and then the structure is any pointer. */
static void fuzz_openat2(void)
{
	static const long sizes[] = {0, 23, 24, 32, 4097};
	long how[4] = {arg_value('F'), one_in(2) ? 0 : arg_value('m'),
		       one_in(2) ? (long)below(0x40) : arg_value('F'), one_in(4)};
	long a[6] = {one_in(4) ? -100 /* AT_FDCWD */ : arg_value('f'), arg_value('o'),
		     one_in(8) ? arg_value('b') : (long)how,
		     one_in(8) ? arg_value('l') : PICK(sizes)};

	remember(raw_syscall(__NR_openat2, a));
}

/* kill: own children, a pid that does not exist, rarely itself. */
static void fuzz_kill(void)
{
	long sig = arg_value('S'), pid = fz.nchildren ? fz.children[below(fz.nchildren)] : 99999;
	if (one_in(TERMINAL_ODDS)) {
		report();
		pid = raw_call(__NR_getpid, 0, 0, 0);
	}
	if (raw_call(__NR_kill, pid, sig, 0) == 0 && (sig == SIGKILL || sig == SIGTERM))
		forget_child(pid);
}

/* The pidfd calls on the processes kill may name (fuzz_kill): a child, or
 * rarely itself; signalled (a siginfo drawn now and then), copied from,
 * or waited on, reaping a child that exited (forgotten then, like wait4's). */
static void fuzz_pidfd(void)
{
	long pid = fz.nchildren ? fz.children[below(fz.nchildren)] : 99999, sig = arg_value('S');
	long fd, ret, si[16] = {0};

	if (one_in(TERMINAL_ODDS)) {
		report();
		pid = raw_call(__NR_getpid, 0, 0, 0);
	}
	fd = raw_call(__NR_pidfd_open, pid, one_in(2) ? 04000 /* PIDFD_NONBLOCK */ : arg_value('F'),
		      0);
	remember(fd);
	if (one_in(3)) {
		long a[6] = {fd, sig, one_in(2) ? 0 : arg_value('b'),
			     one_in(4) ? arg_value('F') : 0};
		if (raw_syscall(__NR_pidfd_send_signal, a) == 0 &&
		    (sig == SIGKILL || sig == SIGTERM))
			forget_child(pid);
	} else if (one_in(2)) {
		remember(
		    raw_call(__NR_pidfd_getfd, fd, arg_value('f'), one_in(4) ? arg_value('F') : 0));
	} else {
		long a[6] = {3 /* P_PIDFD */, fd, (long)si, LINUX_WEXITED | LINUX_WNOHANG, 0, 0};
		if ((ret = raw_syscall(NR_WAITID, a)) == 0 && (int)si[2])
			forget_child((int)si[2]); /* si_pid: reaped */
		remember(ret);
	}
}

/* setpgid/setsid would let a process leave its worker's group, which the
 * parent kills as a whole: only calls that must fail (not a child, not self;
 * setsid in a group leader). */
static void fuzz_setpgid(void)
{
	static const long others[] = {1, 99999, INT_MAX, -1};
	raw_call(__NR_setpgid, PICK(others), arg_value('P'), 0);
}

static void fuzz_setsid(void)
{
	if (fz.depth == 0)
		raw_call(__NR_setsid, 0, 0, 0);
}

/* pause and sigsuspend sleep until a signal: the stall watchdog ends them. */
static void fuzz_sleep_for_signal(void)
{
	if (!one_in(TERMINAL_ODDS))
		return;
	report();
	if (one_in(2))
		raw_call(__NR_pause, 0, 0, 0);
	else
		raw_call(__NR_rt_sigsuspend, any_pointer(), 8, 0);
}

/* flock may wait for a lock another fuzzing process holds: mostly
 * LOCK_NB, and the stall watchdog's signal ends a rare blocking one. */
static void fuzz_flock(void)
{
	long op = arg_value('F') | (one_in(TERMINAL_ODDS) ? 0 : 4 /* LOCK_NB */);
	remember(raw_call(__NR_flock, arg_value('f'), op, 0));
}

/* fcntl's lock commands, Linux's numbers (newlib's differ). */
static const long lock_cmds[] = {5, 6, 36, 37, 7, 38}; /* GETLK, SETLK, OFD_*; SETLKW last */

/* A record-lock command on a struct flock of edge values (types, whences
 * and ranges past both ends); a waiting F_SETLKW is rare, and the stall
 * watchdog's signal ends it. */
static void fuzz_fcntl_lock(void)
{
	static const long ends[] = {0, 1, -1, 4096, LONG_MAX, LONG_MIN, LONG_MAX - 1};
	struct fz_flock *fl = (struct fz_flock *)fz.buf;
	long cmd = lock_cmds[below(one_in(TERMINAL_ODDS) ? 6 : 4)];

	*fl = (struct fz_flock){.type = (short)below(4),
				.whence = (short)below(4),
				.start = one_in(2) ? (long)below(64) : PICK(ends),
				.len = one_in(2) ? (long)below(64) - 8 : PICK(ends),
				.pid = one_in(8) ? 1 : 0};
	remember(raw_call(__NR_fcntl, arg_value('f'), cmd, one_in(8) ? any_pointer() : (long)fl));
}

/*
 * An owner for signal-driven I/O: a child, a pid or group of no one, and
 * only rarely the worker itself or its group (SIGIO's default action
 * ends it) -- never init's or the runner's, whose signal would end the
 * run.
 */
static long fcntl_owner(void)
{
	static const long none[] = {0, 99999, -99999, INT_MAX};
	long self = raw_call(__NR_getpid, 0, 0, 0);

	if (one_in(TERMINAL_ODDS)) {
		report();
		return one_in(2) ? self : -self; /* the worker leads its group */
	}
	return fz.nchildren && one_in(2) ? fz.children[below(fz.nchildren)] : PICK(none);
}

/* F_SETOWN, F_SETOWN_EX (of a struct f_owner_ex, any type, or a bad
 * pointer), F_SETSIG (any number), F_SETFL with O_ASYNC, F_NOTIFY (any
 * DN_* bits) after an F_SETOWN that named someone (F_NOTIFY makes the
 * worker the owner of a file without one): the owner commands, Linux's
 * numbers (newlib's F_SETOWN is BSD's). */
static void fuzz_fcntl_owner(long fd)
{
	int *own = (int *)fz.buf; /* struct f_owner_ex: type, pid */
	long who, arg;

	switch (below(5)) {
	case 0:
		remember(raw_call(__NR_fcntl, fd, 8 /* F_SETOWN */, fcntl_owner()));
		break;
	case 1:
		who = fcntl_owner();
		own[0] = (int)below(4) - (one_in(8) ? 2 : 0); /* TID, PID, PGRP, bad */
		own[1] = (int)(own[0] == 2 && who < 0 ? -who : who);
		remember(raw_call(__NR_fcntl, fd, 15 /* F_SETOWN_EX */,
				  one_in(8) ? any_pointer() : (long)own));
		break;
	case 2:
		remember(raw_call(__NR_fcntl, fd, 10 /* F_SETSIG */, arg_value('S')));
		break;
	case 3:
		who = fcntl_owner();
		arg = one_in(8) ? arg_value('F') : (long)below(64) | (one_in(2) ? 0x80000000L : 0);
		if (who && raw_call(__NR_fcntl, fd, 8 /* F_SETOWN */, who) == 0)
			remember(raw_call(__NR_fcntl, fd, 1026 /* F_NOTIFY */, arg));
		break;
	default:
		remember(raw_call(__NR_fcntl, fd, 4 /* F_SETFL */,
				  020000 /* O_ASYNC */ | (one_in(2) ? 04000 /* O_NONBLOCK */ : 0)));
	}
}

/*
 * F_GETLEASE (1025) and F_SETLEASE (1024) of any type.  A lease makes the
 * worker its file's owner, and an open that breaks it -- the worker's own
 * too -- sends it SIGIO, whose default action ends it, or waits for the
 * break (the stall watchdog's signal ends that wait): a granted lease is
 * mostly removed at once and kept only rarely, as a terminal call.
 */
static void fuzz_fcntl_lease(long fd)
{
	long type = one_in(8) ? arg_value('i') : (long)below(3); /* F_RDLCK, F_WRLCK, F_UNLCK */
	bool keep = one_in(TERMINAL_ODDS);
	long ret;

	if (one_in(2)) {
		remember(raw_call(__NR_fcntl, fd, 1025 /* F_GETLEASE */, 0));
		return;
	}
	if (keep)
		report();
	remember(ret = raw_call(__NR_fcntl, fd, 1024 /* F_SETLEASE */, type));
	if (ret == 0 && !keep)
		raw_call(__NR_fcntl, fd, 1024, 2 /* F_UNLCK */);
}

/* fcntl: mostly the small commands; now and then the seal commands (1033,
 * 1034) or the pipe-size ones (1031, 1032), which the small range never
 * reaches, a record-lock command, a lease command (fuzz_fcntl_lease), or
 * an owner command (which the small range would reach with any pid: they
 * go through fuzz_fcntl_owner). */
static void fuzz_fcntl(void)
{
	long cmd = one_in(4) ? 1031 + (long)below(4) : arg_value('s');

	if (one_in(2)) {
		fuzz_fcntl_lock();
		return;
	}
	if (one_in(8)) {
		fuzz_fcntl_lease(arg_value('f'));
		return;
	}
	if ((unsigned int)cmd == 8 || (unsigned int)cmd == 15 || one_in(4)) {
		fuzz_fcntl_owner(arg_value('f'));
		return;
	}
	remember(raw_call(__NR_fcntl, arg_value('f'), cmd, arg_value(one_in(2) ? 'F' : 'i')));
}

/* mlock and its kin populate what they lock: a length past a megabyte or
 * a non-lazy MCL_FUTURE would let one worker take every frame (root has
 * no RLIMIT_MEMLOCK), so lengths stay small and mlockall is on fault. */
static void fuzz_mlock(void)
{
	static const long nrs[] = {__NR_mlock, __NR_mlock2, __NR_munlock, __NR_mlockall,
				   __NR_munlockall};
	long nr = PICK(nrs), flags = one_in(8) ? arg_value('F') : (long)below(8);
	long a[6] = {arg_value('a'), (long)below(1 << 20), one_in(2) ? 1 : arg_value('F')};

	if (nr == __NR_mlockall) {
		if (flags & 3)	    /* MCL_CURRENT, MCL_FUTURE */
			flags |= 4; /* MCL_ONFAULT */
		a[0] = flags;
	}
	remember(raw_syscall(nr, a));
}

/*
 * futex: the wakes and the PI operations on four words of the fuzzer's
 * buffer (which its threads and children may hold or wait on), now and
 * then a bad address.  A wait or lock only with a timeout already past,
 * so nothing sleeps long (a LOCK_PI is never ended by a signal).
 */
static void fuzz_futex(void)
{
	static const struct timespec past = {0, 1};
	static const long ops[] = {6 /* LOCK_PI */,
				   7 /* UNLOCK_PI */,
				   8 /* TRYLOCK_PI */,
				   11 /* WAIT_REQUEUE_PI */,
				   12 /* CMP_REQUEUE_PI */,
				   13 /* LOCK_PI2 */,
				   1 /* WAKE */,
				   0 /* WAIT */};
	uint32_t *words = (uint32_t *)fz.buf;
	long op = PICK(ops), a[6];

	a[0] = one_in(8) ? any_pointer() : (long)&words[below(4)];
	a[1] =
	    op | (one_in(2) ? 128 /* PRIVATE */ : 0) | (one_in(8) ? 256 /* CLOCK_REALTIME */ : 0);
	a[2] = one_in(2) ? (long)words[below(4)] : arg_value('i');
	a[3] = op == 12 ? (long)below(4) : one_in(8) ? any_pointer() : (long)&past;
	a[4] = one_in(8) ? any_pointer() : (long)&words[below(4)];
	a[5] = one_in(2) ? (long)words[below(4)] : (long)rnd();
	if (one_in(4)) /* a word that looks locked: a tid, maybe this one's */
		words[below(4)] =
		    one_in(2) ? (uint32_t)raw_call(__NR_gettid, 0, 0, 0) : (uint32_t)rnd();
	remember(raw_syscall(__NR_futex, a));
}

/* futex_waitv on one to four of the same words, their values now or
 * random, flags mostly right; a timeout already past, or none only when a
 * value is sure to differ (EAGAIN), so nothing sleeps. */
static void fuzz_futex_waitv(void)
{
	static const struct timespec past = {0, 1};
	struct {
		uint64_t val, uaddr;
		uint32_t flags, reserved;
	} v[4];
	uint32_t *words = (uint32_t *)fz.buf;
	long n = 1 + (long)below(4), a[6];

	for (long i = 0; i < n; i++) {
		long w = (long)below(4);
		v[i].uaddr = one_in(8) ? (uint64_t)any_pointer() : (uint64_t)&words[w];
		v[i].val = one_in(2) ? words[w] : rnd();
		v[i].flags = one_in(8) ? (uint32_t)arg_value('F') : 2 | (one_in(2) ? 128 : 0);
		v[i].reserved = one_in(16);
	}
	a[0] = one_in(16) ? any_pointer() : (long)v;
	a[1] = one_in(16) ? arg_value('i') : n;
	a[2] = one_in(16) ? arg_value('F') : 0;
	a[3] = one_in(8) ? any_pointer() : (long)&past;
	a[4] = one_in(8) ? arg_value('s') : (long)below(2);
	a[5] = 0;
	if (a[3] != (long)&past) { /* may wait without an end: word 0 differs */
		a[0] = (long)v;
		v[0].uaddr = (uint64_t)&words[0];
		v[0].val = (uint64_t)words[0] + 1;
		v[0].flags = 2;
		v[0].reserved = 0;
	}
	remember(raw_syscall(__NR_futex_waitv, a));
}

/* ioctl: half the time a terminal request (the worker has a pty, fuzz.c)
 * with a buffer, an int or a bad pointer.  TIOCSCTTY and TIOCNOTTY stay
 * out: a worker taking or dropping a terminal could stop or hang up its
 * own group, which is job control working, not a finding. */
static void fuzz_ioctl(void)
{
	static const long requests[] = {
	    0x5401 /* TCGETS */,	 0x5402 /* TCSETS */,	      0x5403 /* TCSETSW */,
	    0x5404 /* TCSETSF */,	 0x5409 /* TCSBRK */,	      0x540B /* TCFLSH */,
	    0x540F /* TIOCGPGRP */,	 0x5410 /* TIOCSPGRP */,      0x5411 /* TIOCOUTQ */,
	    0x5413 /* TIOCGWINSZ */,	 0x5414 /* TIOCSWINSZ */,     0x541B /* FIONREAD */,
	    0x5420 /* TIOCPKT */,	 0x5429 /* TIOCGSID */,	      0x80045430 /* TIOCGPTN */,
	    0x40045431 /* TIOCSPTLCK */, 0x80045439 /* TIOCGPTLCK */, 0x5441 /* TIOCGPTPEER */};
	long req = one_in(2) ? PICK(requests) : arg_value('i');
	long arg = one_in(4) ? arg_value('i') : one_in(8) ? any_pointer() : buffer_pointer();

	if (req == 0x5441) /* TIOCGPTPEER's argument is open's flags: O_NOCTTY always */
		arg = (arg & (O_ACCMODE | O_NONBLOCK | O_CLOEXEC)) | O_NOCTTY;
	remember(raw_call(__NR_ioctl, arg_value('f'), req, arg));
}

/*
 * The identity setters (set*id, setgroups, capset) with ids near the
 * caller's, a few at a time in a child that exits at once: the worker
 * keeps root, which its end needs (finish SIGKILLs its children).  The
 * getters are ordinary table entries.
 */
static void fuzz_setid(void)
{
	static const long ids[] = {-1, 0, 1, 1000, 61001, 65534};
	static const long nrs[] = {__NR_setuid,	   __NR_setgid,	   __NR_setreuid, __NR_setregid,
				   __NR_setresuid, __NR_setresgid, __NR_setfsuid, __NR_setfsgid,
				   __NR_setgroups, __NR_capset};
	long pid;

	if (!one_in(8) || (pid = raw_call(__NR_fork, 0, 0, 0)) < 0)
		return;
	if (pid == 0) {
		for (int i = 0; i < 4; i++) {
			long nr = PICK(nrs), a[6] = {PICK(ids), PICK(ids), PICK(ids)};
			if (nr == __NR_setgroups || nr == __NR_capset) {
				a[0] = nr == __NR_capset ? buffer_pointer() : arg_value('s');
				a[1] = one_in(4) ? any_pointer() : buffer_pointer();
			}
			raw_syscall(nr, a);
		}
		raw_call(__NR_exit_group, 0, 0, 0);
	}
	raw_call(__NR_wait4, pid, 0, 0);
}

static void fuzz_indirect(void);

/* Calls that would end the whole system if fdkernel ever implements them. */
static void never(void)
{
}

struct call {
	long nr;
	const char *kinds; /* one letter per argument, see arg_value */
	void (*special)(void);
};

/* Every call fdkernel implements (kernel/sys/syscall_list.h) and the
 * dangerous ones it may implement later; waitid and the timers too (issue
 * 13 adds them: ENOSYS before). */
static const struct call calls[] = {
    {__NR_read, "fbl", 0},
    {__NR_write, "fbl", 0},
    {__NR_open, "oFm", 0},
    {__NR_close, "f", 0},
    {__NR_stat, "ob", 0},
    {__NR_fstat, "fb", 0},
    {__NR_lstat, "ob", 0},
    {__NR_poll, "bst", 0},
    {__NR_lseek, "fis", 0},
    {__NR_mmap, "alsFfi", 0},
    {__NR_mprotect, "als", 0},
    {__NR_munmap, "al", 0},
    {__NR_brk, "a", 0},
    {__NR_rt_sigaction, "Sbbs", 0},
    {__NR_rt_sigprocmask, "sbbs", 0},
    {__NR_rt_sigreturn, "", fuzz_sigreturn},
    {__NR_ioctl, "fib", fuzz_ioctl},
    {__NR_pread64, "fbli", 0},
    {__NR_pwrite64, "fbli", 0},
    {__NR_readv, "fbs", 0},
    {__NR_writev, "fbs", 0},
    {__NR_access, "os", 0},
    {__NR_pipe, "b", 0},
    {__NR_select, "sbbbb", 0},
    {__NR_sched_yield, "", 0},
    {__NR_mremap, "allFa", 0},
    {__NR_msync, "als", 0},
    {__NR_mincore, "alb", 0},
    {__NR_madvise, "als", 0},
    {__NR_shmget, "", fuzz_shmget},
    {__NR_shmat, "", fuzz_shmat},
    {__NR_shmctl, "", fuzz_shmctl},
    {__NR_dup, "f", 0},
    {__NR_dup2, "ff", 0},
    {__NR_pause, "", fuzz_sleep_for_signal},
    {__NR_nanosleep, "bb", 0},
    {NR_GETITIMER, "sb", 0},
    {__NR_alarm, "t", 0},
    {NR_SETITIMER, "sbb", 0},
    {__NR_getpid, "", 0},
    {__NR_sendfile, "ffbl", 0},
    {__NR_socket, "dFs", 0},
    {__NR_connect, "fbl", 0},
    {__NR_accept, "fbb", 0},
    {__NR_sendto, "fblFbl", 0},
    {__NR_recvfrom, "fblFbb", 0},
    {__NR_sendmsg, "fbF", 0},
    {__NR_recvmsg, "fbF", 0},
    {__NR_shutdown, "fs", 0},
    {__NR_bind, "fbl", 0},
    {__NR_listen, "fi", 0},
    {__NR_getsockname, "fbb", 0},
    {__NR_getpeername, "fbb", 0},
    {__NR_socketpair, "dFsb", 0},
    {__NR_setsockopt, "fkkbl", 0},
    {__NR_getsockopt, "fkkbb", 0},
    {__NR_clone, "", fuzz_fork},
    {__NR_fork, "", fuzz_fork},
    {__NR_vfork, "", fuzz_fork},
    {__NR_execve, "", fuzz_execve},
    {__NR_exit, "", fuzz_exit},
    {__NR_wait4, "PbFb", 0},
    {__NR_kill, "", fuzz_kill},
    {__NR_uname, "b", 0},
    {__NR_semget, "", fuzz_semget},
    {__NR_semop, "", fuzz_semop},
    {__NR_semctl, "", fuzz_semctl},
    {__NR_shmdt, "", fuzz_shmdt},
    {__NR_msgget, "", fuzz_msgget},
    {__NR_msgsnd, "", fuzz_msgsnd},
    {__NR_msgrcv, "", fuzz_msgrcv},
    {__NR_msgctl, "", fuzz_msgctl},
    {__NR_fcntl, "", fuzz_fcntl},
    {__NR_flock, "", fuzz_flock},
    {__NR_fsync, "f", 0},
    {__NR_fdatasync, "f", 0},
    {__NR_truncate, "pl", 0},
    {__NR_ftruncate, "fl", 0},
    {__NR_getcwd, "bl", 0},
    {__NR_chdir, "p", 0},
    {__NR_fchdir, "f", 0},
    {__NR_mkdir, "pm", 0},
    {__NR_rmdir, "p", 0},
    {__NR_creat, "pm", 0},
    {__NR_unlink, "p", 0},
    {__NR_gettimeofday, "bb", 0},
    {__NR_getrlimit, "sb", 0},
    {__NR_times, "b", 0},
    {__NR_getuid, "", 0},
    {__NR_geteuid, "", 0},
    {__NR_getgid, "", 0},
    {__NR_getegid, "", 0},
    {__NR_getresuid, "bbb", 0},
    {__NR_getresgid, "bbb", 0},
    {__NR_getgroups, "sb", 0},
    {__NR_capget, "bb", 0},
    {__NR_setuid, "", fuzz_setid},
    {__NR_setresuid, "", fuzz_setid},
    {__NR_setgroups, "", fuzz_setid},
    {__NR_capset, "", fuzz_setid},
    {__NR_setpgid, "", fuzz_setpgid},
    {__NR_getppid, "", 0},
    {__NR_getpgrp, "", 0},
    {__NR_setsid, "", fuzz_setsid},
    {__NR_getpgid, "P", 0},
    {__NR_getsid, "P", 0},
    {__NR_rt_sigpending, "bs", 0},
    {__NR_rt_sigqueueinfo, "PSb", 0},
    {__NR_rt_sigsuspend, "", fuzz_sleep_for_signal},
    {__NR_sigaltstack, "bb", 0},
    {__NR_personality, "s", 0},
    {__NR_getpriority, "sP", 0},
    {__NR_setpriority, "sPi", 0},
    {__NR_mknod, "pmF", 0},
    {__NR_sched_setparam, "Pb", 0},
    {__NR_sched_getparam, "Pb", 0},
    {__NR_sched_setscheduler, "Psb", 0},
    {__NR_sched_getscheduler, "P", 0},
    {__NR_sched_get_priority_max, "s", 0},
    {__NR_sched_get_priority_min, "s", 0},
    {__NR_sched_rr_get_interval, "Pb", 0},
    {__NR_setrlimit, "sb", 0},
    {__NR_sync, "", 0},
    {169 /* reboot */, "", never},
    {__NR_mlock, "", fuzz_mlock},
    {__NR_munlock, "", fuzz_mlock},
    {__NR_mlockall, "", fuzz_mlock},
    {__NR_munlockall, "", fuzz_mlock},
    {__NR_gettid, "", 0},
    {__NR_setxattr, "obblF", 0},
    {__NR_fgetxattr, "fbbl", 0},
    {__NR_llistxattr, "obl", 0},
    {__NR_fremovexattr, "fb", 0},
    {__NR_readahead, "fil", 0},
    {__NR_tkill, "", fuzz_kill},
    {__NR_futex, "", fuzz_futex},
    {__NR_sched_setaffinity, "Plb", 0},
    {__NR_sched_getaffinity, "Plb", 0},
    {__NR_epoll_create, "s", 0},
    {__NR_remap_file_pages, "alsls", 0},
    {__NR_getdents64, "fbl", 0},
    {__NR_semtimedop, "", fuzz_semop},
    {__NR_fadvise64, "fils", 0},
    {__NR_timer_create, "sbb", 0},
    {__NR_timer_settime, "sFbb", 0},
    {__NR_timer_gettime, "sb", 0},
    {__NR_timer_getoverrun, "s", 0},
    {__NR_timer_delete, "s", 0},
    {__NR_clock_gettime, "sb", 0},
    {__NR_clock_getres, "sb", 0},
    {__NR_exit_group, "", fuzz_exit},
    {__NR_epoll_wait, "fbst", 0},
    {__NR_epoll_ctl, "fsfb", 0},
    {__NR_tgkill, "", fuzz_kill},
    {246 /* kexec_load */, "", never},
    {NR_WAITID, "sPbFb", 0},
    {__NR_inotify_init, "", 0},
    {__NR_inotify_add_watch, "foF", 0},
    {__NR_inotify_rm_watch, "fi", 0},
    {__NR_openat, "foFm", 0},
    {__NR_mkdirat, "fpm", 0},
    {__NR_mknodat, "fpmF", 0},
    {__NR_newfstatat, "fobF", 0},
    {__NR_unlinkat, "fpF", 0},
    {__NR_faccessat, "fosF", 0},
    {__NR_pselect6, "sbbbbb", 0},
    {__NR_ppoll, "bsbbs", 0},
    {__NR_sync_file_range, "fllF", 0},
    {__NR_timerfd_create, "sF", 0},
    {__NR_eventfd, "i", 0},
    {__NR_fallocate, "fsil", 0},
    {__NR_splice, "fbfblF", 0},
    {__NR_tee, "fflF", 0},
    {__NR_vmsplice, "fbsF", 0},
    {__NR_timerfd_settime, "fFbb", 0},
    {__NR_timerfd_gettime, "fb", 0},
    {__NR_rt_tgsigqueueinfo, "PPSb", 0},
    {__NR_recvmmsg, "fbsFb", 0},
    {__NR_sched_setattr, "PbF", 0},
    {__NR_sched_getattr, "PblF", 0},
    {320 /* kexec_file_load */, "", never},
    {322 /* execveat */, "", fuzz_execve},
    {__NR_epoll_pwait, "fbstbs", 0},
    {__NR_signalfd, "fbs", 0},
    {__NR_accept4, "fbbF", 0},
    {__NR_signalfd4, "fbsF", 0},
    {__NR_epoll_create1, "F", 0},
    {__NR_eventfd2, "iF", 0},
    {__NR_dup3, "ffF", 0},
    {__NR_pipe2, "bF", 0},
    {__NR_inotify_init1, "F", 0},
    {__NR_preadv, "fbsis", 0},
    {__NR_pwritev, "fbsis", 0},
    {__NR_prlimit64, "Psbb", 0},
    {__NR_syncfs, "f", 0},
    {__NR_sendmmsg, "fbsF", 0},
    {__NR_getcpu, "bbb", 0},
    {__NR_kcmp, "PPsff", 0},
    {__NR_memfd_create, "oF", 0},
    {__NR_mlock2, "", fuzz_mlock},
    {__NR_copy_file_range, "fbfblF", 0},
    {__NR_preadv2, "fbsisF", 0},
    {__NR_pwritev2, "fbsisF", 0},
    {__NR_statx, "foFsb", 0},
    {__NR_pidfd_send_signal, "", fuzz_pidfd},
    {__NR_pidfd_open, "PF", 0},
    {435 /* clone3 */, "", fuzz_fork},
    {__NR_close_range, "ffF", 0},
    {__NR_openat2, "", fuzz_openat2},
    {__NR_pidfd_getfd, "ffF", 0},
    {__NR_faccessat2, "fosF", 0},
    {__NR_socket2, "dFsF", 0},
    {__NR_syscall_indirect, "", fuzz_indirect},
    {__NR_epoll_pwait2, "fbsbbs", 0},
    {__NR_futex_waitv, "", fuzz_futex_waitv},
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))

static const struct call *lookup(long nr)
{
	for (size_t i = 0; i < NCALLS; i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/* A call number: mostly from the table, else anything from Linux's range,
 * fdkernel's, x32-flagged, negative or huge. */
static long pick_number(void)
{
	switch (below(16)) {
	case 0:
	case 1:
		return (long)below(341);
	case 2:
		return (long)(1000 + below(4));
	case 3:
		return one_in(2) ? (long)(below(341) | 0x40000000) : (long)(rnd() >> below(64));
	default:
		return calls[below(NCALLS)].nr;
	}
}

/* A call with generated arguments, NR and A; NULL kinds: all arguments any. */
static long typed_call(long *nr, long a[6])
{
	const struct call *c;
	do {
		*nr = pick_number();
		c = lookup(*nr);
	} while (c && c->special);
	const char *k = c ? c->kinds : "iiiiii";
	for (int i = 0; i < 6; i++, k += !!*k)
		a[i] = *k ? arg_value(*k) : (long)(one_in(8) ? rnd() : 0);
	return *nr;
}

/* syscall_indirect of a generated call (never a special one, never nested). */
static void fuzz_indirect(void)
{
	long nr, *args = (long *)(fz.buf + STRUCT_WORDS * sizeof(long));
	long flags = one_in(4) ? flags_value() : (long)below(SYSIND_ALL + 1);
	typed_call(&nr, args);
	const long a[6] = {flags, (long)rnd(), nr, one_in(8) ? any_pointer() : (long)args, 0, 0};
	remember(raw_syscall(__NR_syscall_indirect, a));
}

static void one_call(void)
{
	long nr, a[6], ret;
	const struct call *c;
	refill_struct_area();
	nr = pick_number();
	c = lookup(nr);
	if (c && c->special) {
		c->special();
		return;
	}
	typed_call(&nr, a);
	ret = raw_syscall(nr, a);
	remember(ret);
	if (nr == __NR_wait4 && ret > 0)
		forget_child(ret);
}

#endif
