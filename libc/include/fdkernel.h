/*
 * fdkernel's additions to the Linux ABI, for user programs: socket2(),
 * syscall_indirect(), the new fd flags, and raw syscall().  On Linux the two
 * new calls fail with ENOSYS.  Semantics: docs/syscall_indirect.md.
 */
#ifndef _FDKERNEL_H
#define _FDKERNEL_H

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h> /* dup3's prototype, before the macro below */

/* Only the names newlib lacks: O_CLOFORK, O_NONSEQFD, FD_CLOFORK,
 * F_DUPFD_CLOFORK, SOCK_*, CLOSE_RANGE_*, NONSEQ_FD_BASE. */
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>
#include <uapi/syscall_indirect.h>
#include <uapi/syscalls.h>

#ifdef __cplusplus
extern "C" {
#endif

/* socket() with open flags: O_NONSEQFD, O_CLOEXEC, O_CLOFORK, O_NONBLOCK. */
int socket2(int domain, int type, int protocol, int flags);

/* Run syscall `nr` (a Linux __NR_* number, arguments in Linux's values)
 * with SYSIND_* flags applied to the fds it creates and, with
 * SYSIND_SIGMASK, `sigmask` blocked for its duration. */
long syscall_indirect(unsigned long flags, sigset_t sigmask, int nr, const unsigned long args[6]);

/* Any system call by number, Linux values in and out; -1 and errno (newlib's
 * value) on failure. */
long syscall(long nr, ...);

int close_range(unsigned int first, unsigned int last, unsigned int flags);
pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage);
unsigned long getauxval(unsigned long type);

/* dup3 with flags already in the kernel's (Linux's) values. */
int __dup3_linux(int fd, int fd2, long lflags);
/*
 * dup3 with fd flags known at compile time (dup3(fd, -1, O_NONSEQFD), the
 * direct route of docs/fds.md): the compiler translates them, so the call
 * costs no run-time translation.  Only O_CLOEXEC's value differs (newlib's
 * 0x40000; Linux's is the bit SOCK_CLOEXEC shares, uapi/fcntl.h); O_CLOFORK
 * and O_NONSEQFD have Linux's.  Other flags, or flags known only at run
 * time, go through libc's dup3 (translate.c).
 */
#define __DUP3_FD_FLAGS (O_CLOEXEC | O_CLOFORK | O_NONSEQFD)
#define dup3(fd, fd2, flags)                                                                       \
	(__builtin_constant_p(flags) && !((flags) & ~__DUP3_FD_FLAGS)                              \
	     ? __dup3_linux((fd), (fd2),                                                           \
			    ((flags) & (O_CLOFORK | O_NONSEQFD)) |                                 \
				((flags)&O_CLOEXEC ? (long)SOCK_CLOEXEC : 0))                      \
	     : (dup3)((fd), (fd2), (flags)))

#ifdef __cplusplus
}
#endif
#endif
