/* fdkernel's additions to the Linux ABI, from kernel/uapi: O_CLOFORK,
 * O_NONSEQFD, FD_CLOFORK, F_DUPFD_CLOFORK, SOCK_CLOFORK, NONSEQ_FD_BASE,
 * socket2 and syscall_indirect; and struct open_how with the RESOLVE_*
 * flags of openat2, Linux's, which musl lacks.  Linux's own names stay musl's
 * (UAPI_NO_FLAG_NAMES).  Include this first: musl's headers then redefine
 * SOCK_NONBLOCK and SOCK_CLOEXEC (same values) as system headers, silently.
 * On Linux the calls are ENOSYS: tests check on_fdkernel() first. */
#ifndef LINUX_FDKERNEL_ABI_H
#define LINUX_FDKERNEL_ABI_H

#define UAPI_NO_FLAG_NAMES
#include "../../kernel/uapi/fcntl.h"
#include "../../kernel/uapi/syscall_indirect.h"

#include <stdint.h>
#include <unistd.h>

/* syscall_indirect(FLAGS, no sigmask, NR, {args}); -1 and errno on failure. */
#define INDIRECT(flags, nr, ...)                                                                   \
	syscall(__NR_syscall_indirect, (unsigned long)(flags), (uint64_t)0, (long)(nr),            \
		(const unsigned long[6]){__VA_ARGS__})

static inline int socket2(int domain, int type, int protocol, int flags)
{
	return syscall(__NR_socket2, domain, type, protocol, flags);
}

#endif
