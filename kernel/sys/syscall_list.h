/*
 * Every system call fdkernel implements: X(number, name) where the handler
 * is sys_NAME, defined with SYSCALL_DEFINEn (sys/syscall.h) in the
 * subsystem's syscall file.  Numbers are Linux x86_64's (uapi/syscalls.h);
 * docs/abi.md lists them.  Keep sorted by number.
 */
#ifndef SYS_SYSCALL_LIST_H
#define SYS_SYSCALL_LIST_H

#include <uapi/syscalls.h>
#include <uapi/syscall_indirect.h>

#define SYSCALL_LIST(X)                                                                            \
	X(__NR_mmap, mmap)                                                                         \
	X(__NR_munmap, munmap)                                                                     \
	X(__NR_brk, brk)                                                                           \
	X(__NR_sched_yield, sched_yield)                                                           \
	X(__NR_nanosleep, nanosleep)                                                               \
	X(__NR_getpid, getpid)                                                                     \
	X(__NR_fork, fork)                                                                         \
	X(__NR_execve, execve)                                                                     \
	X(__NR_exit, exit)                                                                         \
	X(__NR_wait4, wait4)                                                                       \
	X(__NR_kill, kill)                                                                         \
	X(__NR_uname, uname)                                                                       \
	X(__NR_gettimeofday, gettimeofday)                                                         \
	X(__NR_times, times)                                                                       \
	X(__NR_getuid, getuid)                                                                     \
	X(__NR_getppid, getppid)                                                                   \
	X(__NR_gettid, gettid)                                                                     \
	X(__NR_clock_gettime, clock_gettime)                                                       \
	X(__NR_clock_getres, clock_getres)                                                         \
	X(__NR_exit_group, exit_group)

#endif
