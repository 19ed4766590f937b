/*
 * Between newlib's values and the kernel's (Linux's): errno, open flags,
 * fcntl commands, clocks, struct stat, signals, signal sets, wait status.
 * Every translation of the glue lives in translate.c.
 */
#ifndef LIBC_SYS_TRANSLATE_H
#define LIBC_SYS_TRANSLATE_H

#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <uapi/stat.h>

/* Linux errno -> newlib errno; EIO for a number newlib has no name for. */
int errno_from_linux(int lerr);

/* newlib O_* -> Linux O_*; -1 with errno EINVAL if a bit has no Linux
 * equivalent. */
long open_flags_to_linux(int flags);
/* The same, quicker for dup3's flags (O_CLOEXEC, O_CLOFORK, O_NONSEQFD);
 * other bits go the long way. */
long fd_flags_to_linux(int flags);
/* Linux O_* (as F_GETFL reports them) -> newlib O_*; unknown bits dropped. */
int open_flags_from_linux(long lflags);

/* newlib AT_* flags -> Linux's; unknown bits pass through (the kernel
 * answers EINVAL for them). */
int at_flags_to_linux(int flags);

/* newlib fcntl command -> Linux's (F_DUPFD_CLOEXEC differs). */
int fcntl_cmd_to_linux(int cmd);
/* newlib clockid_t -> Linux clock id; -1 if unknown. */
long clock_to_linux(clockid_t clock);

void stat_from_linux(struct stat *st, const struct uapi_stat *lst);

/* Signal numbers; 0 when the other side has no such signal. */
int signal_to_linux(int sig);
int signal_from_linux(int lsig);
unsigned long sigset_to_linux(const sigset_t *set);
void sigset_from_linux(sigset_t *set, unsigned long lset);
/* SIG_BLOCK & co -> Linux's `how`; -1 if unknown. */
int sighow_to_linux(int how);

/* A wait status from wait4(): the signal numbers in it made newlib's. */
int wait_status_from_linux(int lstatus);

#endif
