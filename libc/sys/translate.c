/*
 * The one place where newlib's numbering meets Linux's.  Tables are built
 * from the X-macro lists of kernel/uapi by name, so a value is never typed
 * twice; newlib's own headers supply the other side.
 */
/* newlib hides some Linux errno names behind this; the table needs them. */
#define __LINUX_ERRNO_EXTENSIONS__
#define _GNU_SOURCE /* CLOCK_BOOTTIME */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "translate.h"

#define UAPI_NO_ERRNO_NAMES
#define UAPI_NO_FLAG_NAMES
#define UAPI_NO_SIGNAL_NAMES
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/signal.h>

/* Names in the uapi lists that newlib lacks: 0 means "no equivalent". */
#define O_DSYNC	  0
#define SIGSTKFLT 0
#define SIGPWR	  0

static const unsigned char errno_table[UAPI_ERRNO_MAX + 1] = {
#define X(name, value, msg) [value] = name,
    UAPI_ERRNO_LIST(X)
#undef X
};

int errno_from_linux(int lerr)
{
	if (lerr > 0 && lerr <= UAPI_ERRNO_MAX && errno_table[lerr])
		return errno_table[lerr];
	return EIO;
}

long open_flags_to_linux(int flags)
{
	long lflags = flags & O_ACCMODE;
	int rest = flags & ~O_ACCMODE;

#define X(name, value)                                                                             \
	if ((name) != 0 && (rest & (name)) == (name)) {                                            \
		lflags |= (value);                                                                 \
		rest &= ~(name);                                                                   \
	}
	UAPI_OPEN_FLAGS(X)
#undef X
	if (rest) {
		errno = EINVAL;
		return -1;
	}
	return lflags;
}

long fd_flags_to_linux(int flags)
{
	long lflags = 0;

	if (flags & ~(O_CLOEXEC | O_CLOFORK | O_NONSEQFD))
		return open_flags_to_linux(flags);
		/* Only the three names match: the compiler keeps three tests. */
#define X(name, value)                                                                             \
	if (((name) == O_CLOEXEC || (name) == O_CLOFORK || (name) == O_NONSEQFD) &&                \
	    (flags & (name)))                                                                      \
		lflags |= (value);
	UAPI_OPEN_FLAGS(X)
#undef X
	return lflags;
}

int open_flags_from_linux(long lflags)
{
	int flags = lflags & UAPI_O_ACCMODE;

#define X(name, value)                                                                             \
	if ((lflags & (value)) == (value))                                                         \
		flags |= (name);
	UAPI_OPEN_FLAGS(X)
#undef X
	return flags;
}

int at_flags_to_linux(int flags)
{
	static const struct {
		int newlib, kernel;
	} table[] = {
	    {AT_EACCESS, UAPI_AT_REMOVEDIR}, /* Linux gives AT_EACCESS AT_REMOVEDIR's bit */
	    {AT_SYMLINK_NOFOLLOW, UAPI_AT_SYMLINK_NOFOLLOW},
	    {AT_SYMLINK_FOLLOW, UAPI_AT_SYMLINK_FOLLOW},
	    {AT_REMOVEDIR, UAPI_AT_REMOVEDIR},
#ifdef AT_EMPTY_PATH /* newlib has it only for GNU code */
	    {AT_EMPTY_PATH, UAPI_AT_EMPTY_PATH},
#endif
	};
	int out = 0;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (flags & table[i].newlib) {
			flags &= ~table[i].newlib;
			out |= table[i].kernel;
		}
	}
	return out | flags;
}

int fcntl_cmd_to_linux(int cmd)
{
	switch (cmd) {
	case F_DUPFD:
	case F_GETFD:
	case F_SETFD:
	case F_GETFL:
	case F_SETFL:
	case F_DUPFD_CLOFORK:
		return cmd; /* same number on both sides */
	case F_DUPFD_CLOEXEC:
		return UAPI_F_DUPFD_CLOEXEC;
	default:
		return -1;
	}
}

long clock_to_linux(clockid_t clock)
{
	switch (clock) {
	case CLOCK_REALTIME:
		return 0;
	case CLOCK_MONOTONIC:
		return 1;
	case CLOCK_BOOTTIME:
		return 7;
	default:
		return -1;
	}
}

void stat_from_linux(struct stat *st, const struct uapi_stat *lst)
{
	*st = (struct stat){
	    .st_dev = lst->st_dev,
	    .st_ino = lst->st_ino,
	    .st_mode = lst->st_mode,
	    .st_nlink = lst->st_nlink,
	    .st_uid = lst->st_uid,
	    .st_gid = lst->st_gid,
	    .st_rdev = lst->st_rdev,
	    .st_size = lst->st_size,
	    .st_atim = {lst->atime_sec, lst->atime_nsec},
	    .st_mtim = {lst->mtime_sec, lst->mtime_nsec},
	    .st_ctim = {lst->ctime_sec, lst->ctime_nsec},
	    .st_blksize = lst->st_blksize,
	    .st_blocks = lst->st_blocks,
	};
}

static const unsigned char signal_table[UAPI_NSIG + 1] = {
#define X(name, value) [value] = name,
    UAPI_SIGNAL_LIST(X)
#undef X
};

int signal_from_linux(int lsig)
{
	return lsig > 0 && lsig <= UAPI_NSIG ? signal_table[lsig] : 0;
}

int signal_to_linux(int sig)
{
	for (int lsig = 1; sig > 0 && lsig <= UAPI_NSIG; lsig++)
		if (signal_table[lsig] == sig)
			return lsig;
	return 0;
}

/*
 * newlib's sigaddset() sets bit `sig`; Linux's sigset has bit `sig - 1`.
 * Only the signals in the set are looked up: every syscall_indirect() call
 * translates a mask, usually empty, and looking up all NSIG signals (a table
 * scan each) cost it ~3,600 instructions (docs/bench.md, fd_nonseq_*).
 */
unsigned long sigset_to_linux(const sigset_t *set)
{
	unsigned long lset = 0;
	unsigned long sigs = *set & ((1UL << NSIG) - 2); /* signals 1 .. NSIG-1 */

	for (; sigs; sigs &= sigs - 1) {
		int lsig = signal_to_linux(__builtin_ctzl(sigs));
		if (lsig)
			lset |= 1UL << (lsig - 1);
	}
	return lset;
}

void sigset_from_linux(sigset_t *set, unsigned long lset)
{
	*set = 0;
	for (int lsig = 1; lsig <= UAPI_NSIG; lsig++)
		if ((lset & (1UL << (lsig - 1))) && signal_table[lsig])
			*set |= 1UL << signal_table[lsig];
}

int sighow_to_linux(int how)
{
	switch (how) {
	case SIG_BLOCK:
		return UAPI_SIG_BLOCK;
	case SIG_UNBLOCK:
		return UAPI_SIG_UNBLOCK;
	case SIG_SETMASK:
		return UAPI_SIG_SETMASK;
	default:
		return -1;
	}
}

/* Same layout as newlib's macros expect; only the signal numbers move.  A
 * signal newlib cannot name keeps its Linux number. */
int wait_status_from_linux(int lstatus)
{
	int low = lstatus & 0x7f;
	int lsig = low == 0x7f ? (lstatus >> 8) & 0xff : low;
	int sig = signal_from_linux(lsig);

	if (low == 0 || sig == 0)
		return lstatus;
	if (low == 0x7f)
		return (lstatus & ~0xff00) | sig << 8;
	return (lstatus & ~0x7f) | sig;
}
