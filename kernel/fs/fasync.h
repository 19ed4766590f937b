/*
 * Signal-driven I/O (Linux's fasync and f_owner): an open file with
 * O_ASYNC is on a list of the object it refers to (a pipe, a socket, the
 * console), and when that object becomes readable or writable the file's
 * owner (a thread, a process or a process group: F_SETOWN, F_SETOWN_EX)
 * gets SIGIO, or the signal F_SETSIG chose with si_code POLL_*, si_band
 * and si_fd.  docs/fds.md, "Signal-driven I/O".
 */
#ifndef FS_FASYNC_H
#define FS_FASYNC_H

#include <stdbool.h>
#include "lib/list.h"
#include "proc/sigqueue.h" /* POLL_IN... */

struct file;

/* An object's O_ASYNC files (struct fown, by link), under fasync_lock. */
struct fasync_list {
	struct list_head head;
	/* A pipe's: POLL_IN goes to its files open for reading, POLL_OUT to
	 * those open for writing (Linux keeps two lists); others tell all. */
	bool by_mode;
};

static inline void fasync_list_init(struct fasync_list *l, bool by_mode)
{
	list_init(&l->head);
	l->by_mode = by_mode;
}

/*
 * F_SETOWN, F_GETOWN, F_SETOWN_EX, F_GETOWN_EX, F_SETSIG, F_GETSIG on f
 * (arg as fcntl got it): the result or -errno as Linux's.
 */
long fasync_fcntl(struct file *f, unsigned int cmd, unsigned long arg);
/*
 * F_SETFL on f, reached through fd: the status flags of mask become those
 * of set; when O_ASYNC changes, f joins or leaves its object's list (si_fd
 * will be fd) in the same step.  0 or -ENOMEM.
 */
int fasync_setfl(struct file *f, int fd, unsigned int set, unsigned int mask);
/*
 * Tells l's files that their object became readable (POLL_IN), writable
 * (POLL_OUT), hung up (POLL_HUP), failed (POLL_ERR).  Takes fasync_lock
 * and proc_lock: the caller holds no spinlock the signal path takes (no
 * proc_lock, siglock, socket or console lock); an interrupt handler may
 * call it.
 */
void fasync_notify(struct fasync_list *l, int reason);
/*
 * f's owner gets f's signal for reason with si_fd fd, as fasync_notify
 * sends it (dnotify's events: POLL_MSG).  Takes fasync_lock and proc_lock,
 * as fasync_notify.
 */
void fasync_signal(struct file *f, int fd, int reason);
/* F_NOTIFY's owner (Linux's __f_setown without force): the calling
 * process, unless f has one already.  0 or -ENOMEM. */
int fasync_own_default(struct file *f);
/* Allocates f's owner state now, so that a later fasync_own_default
 * cannot fail (a lease sets its owner under its lock): 0 or -ENOMEM. */
int fasync_prepare(struct file *f);
/* A lease went (Linux's f_delown and signum 0 in lease_modify): f has no
 * owner and no F_SETSIG signal any more. */
void fasync_disown(struct file *f);
/* f's last reference is gone: off its list, its owner state freed. */
void fasync_release(struct file *f);
/* Owner states allocated now (the leak check's count). */
unsigned long fasync_count(void);

#endif
