/*
 * The two system calls fdkernel adds to the Linux x86_64 ABI, and their
 * flags.  Numbers sit above Linux's table (x86_64 ends below 512).
 * Semantics: docs/syscall_indirect.md and docs/sockets.md.
 */
#ifndef UAPI_SYSCALL_INDIRECT_H
#define UAPI_SYSCALL_INDIRECT_H

#include <stdint.h>

#define __NR_socket2	      1000 /* socket2(domain, type, protocol, flags) */
#define __NR_syscall_indirect 1001 /* syscall_indirect(flags, sigmask, nr, args[, queue]) */
#define __NR_sysind_queue     1002 /* sysind_queue(flags): SYSIND_ASYNC's completion queue */

/* syscall_indirect() flags. */
#define SYSIND_NONSEQFD (1UL << 0) /* fds created by the call: non-sequential area */
#define SYSIND_CLOEXEC	(1UL << 1) /* ... close-on-exec */
#define SYSIND_CLOFORK	(1UL << 2) /* ... close-on-fork */
#define SYSIND_NONBLOCK (1UL << 3) /* ... O_NONBLOCK */
#define SYSIND_SIGMASK	(1UL << 4) /* block exactly `sigmask` during the call */
#define SYSIND_NOFOLLOW (1UL << 5) /* a final symbolic link in a path is not followed */
#define SYSIND_ASYNC	(1UL << 6) /* run on a worker: returns a token, the result goes to queue */
#define SYSIND_ALL	0x7fUL

/* What a read of a sysind_queue fd returns: one record per finished call. */
struct sysind_completion {
	uint64_t token; /* what syscall_indirect returned for it */
	int64_t result; /* the call's return value (-errno on failure) */
};

#endif
