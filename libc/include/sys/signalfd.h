/*
 * signalfd(2) (newlib has no <sys/signalfd.h>): struct signalfd_siginfo
 * and SFD_* from kernel/uapi, Linux's values (SFD_CLOFORK is fdkernel's).
 * ssi_signo is a Linux signal number: signalfd_signo() gives newlib's.
 */
#ifndef _SYS_SIGNALFD_H
#define _SYS_SIGNALFD_H

#include <signal.h>
#include <uapi/signalfd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* signalfd4(fd, mask, 8, flags); mask in newlib's numbering. */
int signalfd(int fd, const sigset_t *mask, int flags);
/* newlib's number for a record's ssi_signo (0 if newlib has none). */
int signalfd_signo(const struct signalfd_siginfo *ssi);

#ifdef __cplusplus
}
#endif
#endif
