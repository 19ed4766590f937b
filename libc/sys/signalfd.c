/*
 * signalfd: signalfd4 with the mask translated to Linux's numbering
 * (translate.c); records come back with Linux numbers.
 */
#include <sys/signalfd.h>

#include "syscall.h"
#include "translate.h"

int signalfd(int fd, const sigset_t *mask, int flags)
{
	unsigned long lset;

	if (!mask)
		return sys_call(__NR_signalfd4, fd, 0, 8, flags); /* EFAULT */
	lset = sigset_to_linux(mask);
	return sys_call(__NR_signalfd4, fd, &lset, 8, flags);
}

int signalfd_signo(const struct signalfd_siginfo *ssi)
{
	return signal_from_linux((int)ssi->ssi_signo);
}
