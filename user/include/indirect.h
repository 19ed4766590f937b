/* syscall_indirect() for the ind_* tests and bench_indirect: a raw form with
 * Linux masks and inline arguments, and a probe for the call (ENOSYS on the
 * host Linux).  Semantics: docs/syscall_indirect.md. */
#ifndef USER_INDIRECT_H
#define USER_INDIRECT_H

#include <errno.h>
#include <fdkernel.h>
#include <stdbool.h>
#include <stdint.h>

/* syscall_indirect(flags, Linux mask LMASK, nr, {args...}), by the raw
 * syscall so the mask is passed as is.  -1 and errno on failure. */
#define IND_CALL(flags, lmask, nr, ...)                                                            \
	syscall(__NR_syscall_indirect, (unsigned long)(flags), (uint64_t)(lmask), (long)(nr),      \
		(const unsigned long[6]){__VA_ARGS__})

/* The same without a mask. */
#define IND(flags, nr, ...) IND_CALL(flags, 0, nr, __VA_ARGS__)

/* True if the kernel has syscall_indirect (fdkernel). */
static inline bool indirect_available(void)
{
	return IND(0, __NR_getpid, 0) >= 0 || errno != ENOSYS;
}

#endif
