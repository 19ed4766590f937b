/*
 * File leases (fcntl F_SETLEASE/F_GETLEASE; docs/locks.md, "Leases"): an
 * open file description of a regular file asks to be told, by its owner's
 * signal (fs/fasync.h: SIGIO, or F_SETSIG's with si_code POLL_MSG and
 * si_fd), before another open conflicts with it; the opener waits until
 * the holder gives the lease up or downgrades it, or until
 * /proc/sys/fs/lease-break-time passes and the kernel breaks it.
 */
#ifndef FS_LEASE_H
#define FS_LEASE_H

#include "fs/inode.h"

struct file;

/* F_SETLEASE on f, reached through fd (the break signal's si_fd), with
 * F_RDLCK, F_WRLCK or F_UNLCK: 0 or -errno, as Linux's. */
long lease_setlease(struct file *f, int fd, unsigned long arg);
/* F_GETLEASE: f's lease type, or the type a pending break asks for. */
long lease_getlease(struct file *f);

int __lease_break(struct inode *ip, unsigned int flags);

/*
 * An open of ip with open's flags (or a truncate: O_WRONLY), after it
 * took its write access, breaks the leases it conflicts with (Linux's
 * break_lease): 0 once none is left, -EWOULDBLOCK with O_NONBLOCK while
 * some are, -ERESTARTSYS when a signal ends the wait.  The fence pairs
 * with lease_setlease's: either the opener sees the new lease, or the
 * setter sees the opener's counts.
 */
static inline int lease_break(struct inode *ip, unsigned int flags)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ip->leases, __ATOMIC_RELAXED))
		return __lease_break(ip, flags);
	return 0;
}

/* f's last reference is going: its lease goes, waking any breaker. */
void lease_release(struct file *f);
/* Leases in the system (leak accounting). */
unsigned long lease_count(void);

#endif
