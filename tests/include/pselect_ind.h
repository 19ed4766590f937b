/* pselect() built on syscall_indirect(SYSIND_SIGMASK, mask, poll): the fd
 * sets become a poll array, the timeout milliseconds (rounded up), and the
 * mask is in force exactly while poll waits, as pselect's is. */
#ifndef USER_PSELECT_IND_H
#define USER_PSELECT_IND_H

#include <errno.h>
#include <fdkernel.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <time.h>

/* Ready bits of one poll entry into the sets (NULL sets skipped); returns
 * how many bits it set. */
static inline int pselect_ind_mark(const struct pollfd *p, fd_set *r, fd_set *w, fd_set *e)
{
	int n = 0;

	if (r && (p->revents & (POLLIN | POLLHUP | POLLERR)) && ++n)
		FD_SET(p->fd, r);
	if (w && (p->revents & (POLLOUT | POLLERR)) && ++n)
		FD_SET(p->fd, w);
	if (e && (p->revents & POLLPRI) && ++n)
		FD_SET(p->fd, e);
	return n;
}

/* Fills PFDS from the sets for fds below NFDS; returns the entry count. */
static inline int pselect_ind_poll_array(int nfds, const fd_set *r, const fd_set *w,
					 const fd_set *e, struct pollfd *pfds)
{
	int n = 0;

	for (int fd = 0; fd < nfds; fd++) {
		short ev = (r && FD_ISSET(fd, r) ? POLLIN : 0) |
			   (w && FD_ISSET(fd, w) ? POLLOUT : 0) |
			   (e && FD_ISSET(fd, e) ? POLLPRI : 0);
		if (ev)
			pfds[n++] = (struct pollfd){.fd = fd, .events = ev};
	}
	return n;
}

/* pselect(2): NFDS at most FD_SETSIZE; TIMEOUT NULL waits for ever; SIGMASK
 * NULL keeps the caller's mask.  Returns the number of ready bits, 0 on
 * timeout, -1 and errno (EINTR, EBADF for a closed fd, EINVAL). */
static inline int pselect_ind(int nfds, fd_set *r, fd_set *w, fd_set *e,
			      const struct timespec *timeout, const sigset_t *sigmask)
{
	struct pollfd pfds[FD_SETSIZE];
	sigset_t none;
	long ms = -1, ret;
	int n, ready = 0;

	if (nfds < 0 || nfds > FD_SETSIZE ||
	    (timeout &&
	     (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000L))) {
		errno = EINVAL;
		return -1;
	}
	if (timeout)
		ms = timeout->tv_sec * 1000 + (timeout->tv_nsec + 999999) / 1000000;
	n = pselect_ind_poll_array(nfds, r, w, e, pfds);
	sigemptyset(&none);
	ret = syscall_indirect(sigmask ? SYSIND_SIGMASK : 0, sigmask ? *sigmask : none, __NR_poll,
			       (const unsigned long[6]){(unsigned long)pfds, n, ms});
	if (ret < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (pfds[i].revents & POLLNVAL) {
			errno = EBADF;
			return -1;
		}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (e)
		FD_ZERO(e);
	for (int i = 0; i < n; i++)
		ready += pselect_ind_mark(&pfds[i], r, w, e);
	return ready;
}

#endif
