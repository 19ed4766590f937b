/* The calls the fuzzer treats on their own: fork, exit, execve, kill and
 * the pidfds, the process-group calls, the sleeping calls, locks, fcntl's
 * owners and leases, mlock, futexes, ioctl and the identity calls, each
 * kept from ending or escaping its fuzzing process.  Included by
 * fuzz_calls.h only. */
#ifndef FUZZ_SPECIAL_H
#define FUZZ_SPECIAL_H

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
 * syslog: any action but the console's (OFF, ON, LEVEL: 6-8), which would
 * silence the kernel's messages, the leak check's among them, for every
 * test after the fuzzer; syslog_console tests those.
 */
static void fuzz_syslog(void)
{
	long type = one_in(8) ? arg_value('i') : (long)below(11);

	if (type >= 6 && type <= 8)
		type = 3; /* READ_ALL */
	remember(raw_call(__NR_syslog, type, arg_value('b'), arg_value('l')));
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

/* ioctl: half the time a terminal request (the worker has a pty, fuzz.c),
 * one every file answers (fs/ioctl.c) or a socket's (net/sock_ioctl.c),
 * with a buffer, an int or a bad pointer.  TIOCSCTTY and TIOCNOTTY stay
 * out: a worker taking or dropping a terminal could stop or hang up its
 * own group, which is job control working, not a finding; so does
 * FS_IOC_SETFLAGS: an immutable file left in the worker's directory could
 * not be removed after it (file_attr_flags tests it). */
static void fuzz_ioctl(void)
{
	static const long requests[] = {0x5401 /* TCGETS */,
					0x5402 /* TCSETS */,
					0x5403 /* TCSETSW */,
					0x5404 /* TCSETSF */,
					0x5409 /* TCSBRK */,
					0x540B /* TCFLSH */,
					0x540F /* TIOCGPGRP */,
					0x5410 /* TIOCSPGRP */,
					0x5411 /* TIOCOUTQ */,
					0x5413 /* TIOCGWINSZ */,
					0x5414 /* TIOCSWINSZ */,
					0x541B /* FIONREAD */,
					0x5420 /* TIOCPKT */,
					0x5429 /* TIOCGSID */,
					0x80045430 /* TIOCGPTN */,
					0x40045431 /* TIOCSPTLCK */,
					0x80045439 /* TIOCGPTLCK */,
					0x5441 /* TIOCGPTPEER */,
					0x5450 /* FIONCLEX */,
					0x5451 /* FIOCLEX */,
					0x5452 /* FIOASYNC */,
					0x5460 /* FIOQSIZE */,
					2 /* FIGETBSZ */,
					0x40049409 /* FICLONE */,
					0x4020940d /* FICLONERANGE */,
					0xc0189436 /* FIDEDUPERANGE */,
					0x80086601 /* FS_IOC_GETFLAGS */,
					0x8901 /* FIOSETOWN */,
					0x8903 /* FIOGETOWN */,
					0x8905 /* SIOCATMARK */,
					0x8910 /* SIOCGIFNAME */,
					0x8913 /* SIOCGIFFLAGS */,
					0x8914 /* SIOCSIFFLAGS */,
					0x8915 /* SIOCGIFADDR */,
					0x891b /* SIOCGIFNETMASK */,
					0x8921 /* SIOCGIFMTU */,
					0x8922 /* SIOCSIFMTU */,
					0x8927 /* SIOCGIFHWADDR */,
					0x8933 /* SIOCGIFINDEX */,
					0x8942 /* SIOCGIFTXQLEN */,
					0x8943 /* SIOCSIFTXQLEN */};
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

#endif
