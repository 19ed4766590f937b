/*
 * fd flags: the one form the kernel keeps an fd's flags in, from the fd
 * choke point (fd_install.c) and the descriptor calls (sys_fd.c) down to
 * the files table (fdtable.c) and each fdmap slot.  Every user-visible
 * form is converted here and only here, once, where a call enters the fd
 * layer: O_* (open, dup3, pipe2, socket and the other fd creators),
 * CLOSE_RANGE_* and syscall_indirect's SYSIND_*.  F_GETFD/F_SETFD's FD_*
 * need no conversion: the kept bits have their values (asserted below).
 */
#ifndef FD_FDFLAGS_H
#define FD_FDFLAGS_H

#include <uapi/fcntl.h>
#include <uapi/syscall_indirect.h>

typedef unsigned int fdflags_t;

#define FDF_CLOEXEC 1u /* close on execve (FD_CLOEXEC) */
#define FDF_CLOFORK 2u /* not copied into a forked child (FD_CLOFORK) */
#define FDF_NONSEQ  4u /* a new fd: in the non-sequential area (docs/fds.md); never kept */
#define FDF_KEPT    (FDF_CLOEXEC | FDF_CLOFORK) /* what an fd carries (F_GETFD) */
#define FDF_ALL	    (FDF_KEPT | FDF_NONSEQ)

_Static_assert(FDF_CLOEXEC == FD_CLOEXEC && FDF_CLOFORK == FD_CLOFORK,
	       "F_GETFD/F_SETFD pass fd flags through unconverted");

/*
 * The fd flags of an fd creator's O_* flags (other bits ignored).  Two
 * shifts: O_CLOEXEC is bit 19, O_CLOFORK and O_NONSEQFD bits 23 and 24,
 * so they land on the fd flags' bits (asserted).  dup3's non-sequential
 * form, the cheapest fd path, converts here.
 */
#define FDF_OPEN_SHIFT_CLOEXEC 19
#define FDF_OPEN_SHIFT_OTHERS  22
_Static_assert(O_CLOEXEC >> FDF_OPEN_SHIFT_CLOEXEC == FDF_CLOEXEC &&
		   O_CLOFORK >> FDF_OPEN_SHIFT_OTHERS == FDF_CLOFORK &&
		   O_NONSEQFD >> FDF_OPEN_SHIFT_OTHERS == FDF_NONSEQ,
	       "O_CLOEXEC, O_CLOFORK and O_NONSEQFD shift onto the fd flags");
static inline fdflags_t fdflags_from_open(unsigned int oflags)
{
	return ((oflags >> FDF_OPEN_SHIFT_CLOEXEC) & FDF_CLOEXEC) |
	       ((oflags >> FDF_OPEN_SHIFT_OTHERS) & (FDF_CLOFORK | FDF_NONSEQ));
}

/* The fd flags close_range(2) sets instead of closing (CLOSE_RANGE_CLOEXEC,
 * CLOSE_RANGE_CLOFORK); 0 means close. */
static inline fdflags_t fdflags_from_close_range(unsigned int flags)
{
	return (flags & CLOSE_RANGE_CLOEXEC ? FDF_CLOEXEC : 0) |
	       (flags & CLOSE_RANGE_CLOFORK ? FDF_CLOFORK : 0);
}

/* The fd flags syscall_indirect()'s per-call flags add to every fd the
 * call creates (SYSIND_NONBLOCK is a file flag: fd_install()). */
static inline fdflags_t fdflags_from_sysind(unsigned long sysind)
{
	return (sysind & SYSIND_CLOEXEC ? FDF_CLOEXEC : 0) |
	       (sysind & SYSIND_CLOFORK ? FDF_CLOFORK : 0) |
	       (sysind & SYSIND_NONSEQFD ? FDF_NONSEQ : 0);
}

#endif
