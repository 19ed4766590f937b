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
	X(__NR_read, read)                                                                         \
	X(__NR_write, write)                                                                       \
	X(__NR_open, open)                                                                         \
	X(__NR_close, close)                                                                       \
	X(__NR_stat, stat)                                                                         \
	X(__NR_fstat, fstat)                                                                       \
	X(__NR_lstat, lstat)                                                                       \
	X(__NR_poll, poll)                                                                         \
	X(__NR_lseek, lseek)                                                                       \
	X(__NR_mmap, mmap)                                                                         \
	X(__NR_mprotect, mprotect)                                                                 \
	X(__NR_munmap, munmap)                                                                     \
	X(__NR_brk, brk)                                                                           \
	X(__NR_rt_sigaction, rt_sigaction)                                                         \
	X(__NR_rt_sigprocmask, rt_sigprocmask)                                                     \
	X(__NR_rt_sigreturn, rt_sigreturn)                                                         \
	X(__NR_ioctl, ioctl)                                                                       \
	X(__NR_pread64, pread64)                                                                   \
	X(__NR_pwrite64, pwrite64)                                                                 \
	X(__NR_readv, readv)                                                                       \
	X(__NR_writev, writev)                                                                     \
	X(__NR_access, access)                                                                     \
	X(__NR_pipe, pipe)                                                                         \
	X(__NR_sched_yield, sched_yield)                                                           \
	X(__NR_dup, dup)                                                                           \
	X(__NR_dup2, dup2)                                                                         \
	X(__NR_pause, pause)                                                                       \
	X(__NR_nanosleep, nanosleep)                                                               \
	X(__NR_getitimer, getitimer)                                                               \
	X(__NR_alarm, alarm)                                                                       \
	X(__NR_setitimer, setitimer)                                                               \
	X(__NR_getpid, getpid)                                                                     \
	X(__NR_socket, socket)                                                                     \
	X(__NR_connect, connect)                                                                   \
	X(__NR_accept, accept)                                                                     \
	X(__NR_sendto, sendto)                                                                     \
	X(__NR_recvfrom, recvfrom)                                                                 \
	X(__NR_sendmsg, sendmsg)                                                                   \
	X(__NR_recvmsg, recvmsg)                                                                   \
	X(__NR_shutdown, shutdown)                                                                 \
	X(__NR_bind, bind)                                                                         \
	X(__NR_listen, listen)                                                                     \
	X(__NR_getsockname, getsockname)                                                           \
	X(__NR_getpeername, getpeername)                                                           \
	X(__NR_socketpair, socketpair)                                                             \
	X(__NR_setsockopt, setsockopt)                                                             \
	X(__NR_getsockopt, getsockopt)                                                             \
	X(__NR_fork, fork)                                                                         \
	X(__NR_execve, execve)                                                                     \
	X(__NR_exit, exit)                                                                         \
	X(__NR_wait4, wait4)                                                                       \
	X(__NR_kill, kill)                                                                         \
	X(__NR_uname, uname)                                                                       \
	X(__NR_fcntl, fcntl)                                                                       \
	X(__NR_truncate, truncate)                                                                 \
	X(__NR_ftruncate, ftruncate)                                                               \
	X(__NR_getcwd, getcwd)                                                                     \
	X(__NR_chdir, chdir)                                                                       \
	X(__NR_fchdir, fchdir)                                                                     \
	X(__NR_mkdir, mkdir)                                                                       \
	X(__NR_rmdir, rmdir)                                                                       \
	X(__NR_unlink, unlink)                                                                     \
	X(__NR_gettimeofday, gettimeofday)                                                         \
	X(__NR_getrlimit, getrlimit)                                                               \
	X(__NR_times, times)                                                                       \
	X(__NR_getuid, getuid)                                                                     \
	X(__NR_setpgid, setpgid)                                                                   \
	X(__NR_getppid, getppid)                                                                   \
	X(__NR_getpgrp, getpgrp)                                                                   \
	X(__NR_setsid, setsid)                                                                     \
	X(__NR_getpgid, getpgid)                                                                   \
	X(__NR_getsid, getsid)                                                                     \
	X(__NR_rt_sigpending, rt_sigpending)                                                       \
	X(__NR_rt_sigsuspend, rt_sigsuspend)                                                       \
	X(__NR_arch_prctl, arch_prctl)                                                             \
	X(__NR_setrlimit, setrlimit)                                                               \
	X(__NR_gettid, gettid)                                                                     \
	X(__NR_getdents64, getdents64)                                                             \
	X(__NR_set_tid_address, set_tid_address)                                                   \
	X(__NR_clock_gettime, clock_gettime)                                                       \
	X(__NR_clock_getres, clock_getres)                                                         \
	X(__NR_clock_nanosleep, clock_nanosleep)                                                   \
	X(__NR_exit_group, exit_group)                                                             \
	X(__NR_waitid, waitid)                                                                     \
	X(__NR_openat, openat)                                                                     \
	X(__NR_mkdirat, mkdirat)                                                                   \
	X(__NR_newfstatat, newfstatat)                                                             \
	X(__NR_unlinkat, unlinkat)                                                                 \
	X(__NR_faccessat, faccessat)                                                               \
	X(__NR_accept4, accept4)                                                                   \
	X(__NR_dup3, dup3)                                                                         \
	X(__NR_pipe2, pipe2)                                                                       \
	X(__NR_preadv, preadv)                                                                     \
	X(__NR_pwritev, pwritev)                                                                   \
	X(__NR_prlimit64, prlimit64)                                                               \
	X(__NR_preadv2, preadv2)                                                                   \
	X(__NR_pwritev2, pwritev2)                                                                 \
	X(__NR_close_range, close_range)                                                           \
	X(__NR_socket2, socket2)                                                                   \
	X(__NR_syscall_indirect, syscall_indirect)

#endif
