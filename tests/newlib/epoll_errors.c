/*
 * epoll's bad input, each with Linux's errno: epoll_create sizes and
 * epoll_create1 flags; epoll_ctl's EBADF, EPERM, EINVAL, EEXIST, ENOENT,
 * EFAULT and EPOLLEXCLUSIVE rules; epoll_wait's maxevents, EFAULT, EBADF,
 * EINVAL; epoll_pwait's sigsetsize.  A failed call leaves no fd behind.
 */
#include "epoll_util.h"

#include <sys/epoll.h>

static void check_create(void)
{
	int fd, before = next_fd();

	is_errno(epoll_create(0), EINVAL, "epoll_create(0): EINVAL");
	is_errno(epoll_create(-1), EINVAL, "epoll_create(-1): EINVAL");
	fd = epoll_create(1);
	ok(fd == before, "epoll_create(1): the lowest free fd");
	ok(fcntl(fd, F_GETFD) == 0, "epoll_create: no FD_CLOEXEC");
	close(fd);
	is_errno(epoll_create1(1), EINVAL, "epoll_create1(1): EINVAL");
	is_errno(epoll_create1(O_NONBLOCK), EINVAL, "epoll_create1(O_NONBLOCK): EINVAL");
	fd = epoll_create1(EPOLL_CLOEXEC);
	ok(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC, "epoll_create1(EPOLL_CLOEXEC): FD_CLOEXEC");
	close(fd);
	if (on_fdkernel()) {
		fd = epoll_create1(EPOLL_CLOFORK | EPOLL_CLOEXEC);
		ok(fd >= 0 && fcntl(fd, F_GETFD) == (FD_CLOEXEC | FD_CLOFORK),
		   "epoll_create1(EPOLL_CLOFORK | EPOLL_CLOEXEC): both fd flags");
		close(fd);
	} else {
		is_errno(epoll_create1(EPOLL_CLOFORK), EINVAL, "Linux: EPOLL_CLOFORK is EINVAL");
	}
	is_int(next_fd(), before, "failed creates left no fd");
}

static void check_ctl(void)
{
	int ep = epoll_create1(0), ep2 = epoll_create1(0), p[2], file, closed;
	struct epoll_event ev = {.events = EPOLLIN};

	require(ep >= 0 && ep2 >= 0 && pipe(p) == 0, "set-up");
	file = open("/tmp/epoll_errors", O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(file >= 0, "open /tmp/epoll_errors");
	closed = next_fd() + 10;
	is_errno(epoll_ctl(closed, EPOLL_CTL_ADD, p[0], &ev), EBADF, "ctl: closed epfd: EBADF");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, closed, &ev), EBADF, "ctl: closed fd: EBADF");
	is_errno(epoll_ctl(-1, EPOLL_CTL_ADD, p[0], &ev), EBADF, "ctl: epfd -1: EBADF");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, file, &ev), EPERM, "ctl: a regular file: EPERM");
	is_errno(epoll_ctl(p[0], EPOLL_CTL_ADD, p[1], &ev), EINVAL,
		 "ctl: epfd not an epoll: EINVAL");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL, "ctl: epfd == fd: EINVAL");
	is_errno(epoll_ctl(ep, 0, p[0], &ev), EINVAL, "ctl: op 0: EINVAL");
	is_errno(epoll_ctl(ep, 4, p[0], &ev), EINVAL, "ctl: op 4: EINVAL");
	is_errno(epoll_ctl(ep, 99, p[0], NULL), EFAULT,
		 "ctl: bad op with NULL event: EFAULT first");
	is_errno(epoll_ctl(ep, 99, file, &ev), EPERM, "ctl: bad op on a regular file: EPERM first");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], NULL), EFAULT, "ctl: ADD NULL event: EFAULT");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], KERNEL_PTR), EFAULT,
		 "ctl: ADD kernel-half event: EFAULT");
	is_errno(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), ENOENT, "ctl: MOD unregistered: ENOENT");
	is_errno(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), ENOENT, "ctl: DEL unregistered: ENOENT");
	ok(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "ctl: ADD a pipe");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST, "ctl: ADD twice: EEXIST");
	ok(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0, "ctl: MOD");
	ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0, "ctl: DEL ignores the event pointer");
	is_errno(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), ENOENT, "ctl: DEL twice: ENOENT");

	ev.events = EPOLLIN | EPOLLEXCLUSIVE;
	is_errno(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), EINVAL, "EXCLUSIVE with MOD: EINVAL");
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, ep2, &ev), EINVAL, "EXCLUSIVE on an epoll: EINVAL");
	ev.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT;
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EINVAL, "EXCLUSIVE | ONESHOT: EINVAL");
	ev.events = EPOLLIN | EPOLLEXCLUSIVE | EPOLLRDHUP;
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EINVAL, "EXCLUSIVE | RDHUP: EINVAL");
	ev.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLEXCLUSIVE;
	ok(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "EXCLUSIVE with IN/OUT/ET: accepted");
	ev.events = EPOLLIN;
	is_errno(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), EINVAL,
		 "MOD of an EXCLUSIVE item: EINVAL");
	ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0, "DEL of an EXCLUSIVE item");
	close(file);
	unlink("/tmp/epoll_errors");
	close(p[0]);
	close(p[1]);
	close(ep);
	close(ep2);
}

static void check_wait(void)
{
	struct epoll_event evs[4];
	int ep = epoll_create1(0), p[2], closed = next_fd() + 10;
	sigset_t none;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	is_errno(epoll_wait(ep, evs, 0, 0), EINVAL, "wait: maxevents 0: EINVAL");
	is_errno(epoll_wait(ep, evs, -1, 0), EINVAL, "wait: maxevents -1: EINVAL");
	is_errno(epoll_wait(ep, evs, 0x7fffffff / 12 + 1, 0), EINVAL,
		 "wait: maxevents above INT_MAX/12: EINVAL");
	is_errno(epoll_wait(ep, KERNEL_PTR, 1, 0), EFAULT, "wait: kernel-half events: EFAULT");
	is_errno(epoll_wait(closed, evs, 1, 0), EBADF, "wait: closed epfd: EBADF");
	is_errno(epoll_wait(p[0], evs, 1, 0), EINVAL, "wait: not an epoll: EINVAL");
	is_errno(epoll_wait(closed, evs, 0, 0), EBADF, "wait: EBADF before EINVAL (maxevents)");
	is_errno(epoll_wait(p[0], KERNEL_PTR, 1, 0), EFAULT,
		 "wait: EFAULT before EINVAL (not epoll)");
	is_errno(epoll_wait(ep, KERNEL_PTR, 0, 0), EINVAL,
		 "wait: EINVAL (maxevents) before EFAULT");
	is_int(epoll_wait(ep, NULL, 1, 0), 0, "wait: NULL events, nothing ready: 0");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLOUT) == 0, "ADD a ready write end");
	is_errno(epoll_wait(ep, NULL, 1, 0), EFAULT, "wait: NULL events, one ready: EFAULT");
	is_int(ep_wait1(ep, 0, NULL), EPOLLOUT, "the event was not lost to the fault");
	sigemptyset(&none);
	is_errno(syscall(__NR_epoll_pwait, ep, evs, 1, 0, &none, 4), EINVAL,
		 "pwait: sigsetsize 4: EINVAL");
	is_errno(syscall(__NR_epoll_pwait, ep, evs, 1, 0, KERNEL_PTR, 8), EFAULT,
		 "pwait: kernel-half sigmask: EFAULT");
	is_errno(syscall(__NR_epoll_pwait, ep, evs, 0, 0, KERNEL_PTR, 8), EFAULT,
		 "pwait: the mask is read before maxevents is checked");
	is_int(syscall(__NR_epoll_pwait, ep, evs, 1, 0, NULL, 4), 1,
	       "pwait: sigsetsize unchecked without a mask");
	is_int(epoll_pwait(ep, evs, 4, 0, NULL), 1, "pwait: NULL mask is epoll_wait");
	is_errno(read(ep, evs, 1), EINVAL, "read on an epoll: EINVAL");
	is_errno(write(ep, "x", 1), EINVAL, "write on an epoll: EINVAL");
	close(p[0]);
	close(p[1]);
	close(ep);
}

int main(void)
{
	plan(55);
	check_create();
	check_ctl();
	check_wait();
	return done();
}
