/* The fuzzer's calls: the table of every call fdkernel implements with the
 * kind of each argument (the calls that get their own treatment are
 * fuzz_special.h's), and the end of a fuzzing process.  Included by fuzz.c
 * only, after fuzz_scenario.h. */
#ifndef FUZZ_CALLS_H
#define FUZZ_CALLS_H

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

#include "fuzz_special.h"

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
    {__NR_syslog, "", fuzz_syslog},
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
    {__NR_setns, "fF", 0},
    {__NR_getcpu, "bbb", 0},
    {__NR_kcmp, "PPsff", 0},
    {__NR_memfd_create, "oF", 0},
    {__NR_mlock2, "", fuzz_mlock},
    {__NR_copy_file_range, "fbfblF", 0},
    {__NR_preadv2, "fbsisF", 0},
    {__NR_pwritev2, "fbsisF", 0},
    {__NR_statx, "foFsb", 0},
    {__NR_pidfd_send_signal, "", fuzz_pidfd},
    {__NR_io_uring_setup, "lb", 0},
    {__NR_io_uring_enter, "fllFbl", 0},
    {__NR_io_uring_register, "fibl", 0},
    {__NR_pidfd_open, "PF", 0},
    {435 /* clone3 */, "", fuzz_fork},
    {__NR_close_range, "ffF", 0},
    {__NR_openat2, "", fuzz_openat2},
    {__NR_pidfd_getfd, "ffF", 0},
    {__NR_faccessat2, "fosF", 0},
    {__NR_socket2, "dFsF", 0},
    {__NR_syscall_indirect, "", fuzz_indirect},
    {__NR_sysind_queue, "F", 0},
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
	/* The fifth word names SYSIND_ASYNC's queue: any fd, often one the
	 * fuzzer made with sysind_queue. */
	const long a[6] = {flags,
			   (long)rnd(),
			   nr,
			   one_in(8) ? any_pointer() : (long)args,
			   one_in(2) ? fd_value() : 0,
			   0};
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
