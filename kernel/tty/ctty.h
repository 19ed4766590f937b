/*
 * Controlling terminals (Linux's tty->session and tty->pgrp): which
 * session a terminal controls, which of that session's process groups is
 * in its foreground, and the job-control checks of readers and of calls
 * that change it.  A session has at most one terminal: the one whose sid
 * is its own (there is no pointer from the session, so a terminal that
 * goes away takes nothing with it).  docs/tty.md, docs/linux-abi.md "Job
 * control".
 */
#ifndef TTY_CTTY_H
#define TTY_CTTY_H

#include <stdbool.h>

struct thread_group;
struct tty;

/* Opening t (not /dev/tty, not a pty master): t becomes the controlling
 * terminal of a session leader whose session has none, unless O_NOCTTY,
 * another session has t, or t is hung up. */
void ctty_open(struct tty *t, unsigned flags);
/* /dev/tty: the caller's controlling terminal with a reference for an
 * open file (its driver's get), or NULL (ENXIO). */
struct tty *ctty_get_current(void);
/* TIOCSCTTY through a file of t (readable: open for reading): a session
 * leader without a terminal takes t; one another session has is stolen
 * only with arg 1 and CAP_SYS_ADMIN; a file not open for reading needs
 * CAP_SYS_ADMIN too (Linux's tiocsctty).  0 or -errno. */
long ctty_set(struct tty *t, unsigned long arg, bool readable);
/* TIOCGPGRP, TIOCSPGRP, TIOCNOTTY, TIOCGSID on t (master: on a
 * pty master, which asks about its slave): the result, -errno, or
 * -ENOIOCTLCMD for any other cmd. */
long ctty_ioctl(struct tty *t, bool master, unsigned long cmd, unsigned long arg);
/*
 * May the caller read (sig SIGTTIN) or change t (SIGTTOU)?  0 if it is
 * in the foreground or t is not its controlling terminal; else its group
 * gets sig and the call restarts (-ERESTARTSYS), or -EIO if the group is
 * orphaned or (SIGTTIN) the signal is ignored or blocked; an ignored or
 * blocked SIGTTOU lets the change through.
 */
int ctty_check(struct tty *t, int sig);
/* t's foreground group gets sig (a signal key, SIGWINCH; any context). */
void ctty_signal_foreground(struct tty *t, int sig);
/* g, a session leader, is dying (proc_lock held): its session loses its
 * terminal and the foreground group gets SIGHUP and SIGCONT (Linux's
 * disassociate_ctty). */
void ctty_session_ended_locked(struct thread_group *g);
/* t was hung up (its pty master closed): the session leader it controls
 * gets SIGHUP and SIGCONT and the session loses it (Linux's
 * tty_signal_session_leader). */
void ctty_hangup(struct tty *t);

#endif
