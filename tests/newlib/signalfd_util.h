/* What the signalfd tests share: raw signalfd4 with a Linux mask (newlib's
 * signal numbers differ), one-record reads, and a child that signals the
 * caller after a delay.  The same binaries run on the host Linux. */
#ifndef SIGNALFD_UTIL_H
#define SIGNALFD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "testutil.h"
#include <uapi/signalfd.h>

#define SSI_SIZE    ((long)sizeof(struct signalfd_siginfo))
#define USR12	    (LBIT(LSIGUSR1) | LBIT(LSIGUSR2))
#define LCLD_EXITED 1 /* SIGCHLD ssi_code values (Linux) */
#define LCLD_KILLED 2

/* signalfd4(fd, &mask, 8, flags): the fd, or -1 with errno. */
static inline int sfd(int fd, uint64_t mask, int flags)
{
	return (int)syscall(__NR_signalfd4, fd, &mask, 8, flags);
}

/* One record into *ssi: its signal number, 0 on EAGAIN, -1 on another
 * error (errno kept). */
static inline int sfd_read1(int fd, struct signalfd_siginfo *ssi)
{
	long n = read(fd, ssi, sizeof(*ssi));

	if (n == SSI_SIZE)
		return (int)ssi->ssi_signo;
	return n < 0 && errno == EAGAIN ? 0 : -1;
}

/* poll() of fd for POLLIN with timeout_ms: its revents, or -1. */
static inline int sfd_poll(int fd, int timeout_ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	int n = poll(&p, 1, timeout_ms);

	return n < 0 ? -1 : p.revents;
}

/* Forks a child that sends sig to the caller after ms and exits: its pid
 * (reap it with waitpid). */
static inline pid_t sfd_signal_later(int sig, long ms)
{
	pid_t parent = getpid(), pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(ms);
		_exit(lsig_kill(parent, sig) == 0 ? 0 : 1);
	}
	return pid;
}

#endif
