/*
 * The console as a controlling terminal (Linux's tty->session and
 * tty->pgrp for fdkernel's one terminal): which session it controls,
 * which of that session's process groups is in the foreground, and the
 * job-control checks of readers and of calls that change it.
 * docs/linux-abi.md, "Job control".
 */
#ifndef FS_CTTY_H
#define FS_CTTY_H

#include <stdbool.h>

struct thread_group;

/* Opening the console (dev_tty false) or /dev/tty: /dev/tty is -ENXIO
 * without a controlling terminal; the console becomes the controlling
 * terminal of a session leader that has none, unless O_NOCTTY or another
 * session has it.  0 or -errno. */
int ctty_open(bool dev_tty, unsigned flags);
/* TIOCGPGRP, TIOCSPGRP, TIOCSCTTY, TIOCGSID on the console: the
 * result or -errno (-ENOTTY for any other cmd). */
long ctty_ioctl(unsigned long cmd, unsigned long arg);
/*
 * May the caller read (sig SIGTTIN) or change the terminal (SIGTTOU)?
 * 0 if it is in the foreground or this is not its controlling terminal;
 * else its group gets sig and the call restarts (-ERESTARTSYS), or
 * -EIO if the group is orphaned or (SIGTTIN) the signal is ignored or
 * blocked; an ignored or blocked SIGTTOU lets the change through.
 */
int ctty_check(int sig);
/* The foreground group gets sig (a ^C, ^\ or ^Z typed; any context). */
void ctty_signal_foreground(int sig);
/* g, a session leader, is dying (proc_lock held): its session loses the
 * terminal and the foreground group gets SIGHUP and SIGCONT (Linux's
 * disassociate_ctty). */
void ctty_session_ended_locked(struct thread_group *g);

#endif
