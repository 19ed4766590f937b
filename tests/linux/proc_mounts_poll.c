/* /proc/<pid>/mounts and mountinfo can be polled for changes of the
 * mount namespace, as Linux's mounts_poll: always readable, and
 * POLLPRI | POLLERR once after each mount, umount or remount since the
 * file was opened or last polled, through poll and epoll, woken from a
 * wait by another process's mount; a change in another namespace is not
 * reported.  Other /proc/<pid> files stay out of epoll (EPERM).  On the
 * host it runs in a mount namespace of its own (mount_ns.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mount_ns.h"
#include "testutil.h"

static char dir[64];

static short revents(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};
	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

int main(void)
{
	struct epoll_event ev = {.events = EPOLLPRI}, out;

	plan(13);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/mounts_poll.%d", getpid());
	require(mkdir(dir, 0700) == 0, "mkdir");
	int fd = open("/proc/self/mounts", O_RDONLY), info = open("/proc/self/mountinfo", O_RDONLY);
	require(fd >= 0 && info >= 0, "open mounts");

	is_int(revents(fd), 0, "no change yet: nothing but POLLIN asked for");
	ok(poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 0) == 1, "always readable");
	require(mount("none", dir, "tmpfs", 0, NULL) == 0, "mount");
	is_int(revents(fd), POLLPRI | POLLERR, "after a mount: POLLPRI | POLLERR");
	is_int(revents(fd), 0, "reported once");
	is_int(revents(info), POLLPRI | POLLERR, "mountinfo too");

	int ep = epoll_create1(0);
	ok(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll takes it");
	is_int(epoll_wait(ep, &out, 1, 0), 0, "epoll: nothing yet");
	pid_t pid = fork();
	if (pid == 0) {
		usleep(50000); /* the parent waits in epoll_wait (or not yet: same result) */
		_exit(umount(dir) ? 1 : 0);
	}
	int n = epoll_wait(ep, &out, 1, 30000);
	ok(n == 1 && (out.events & EPOLLPRI) && (out.events & EPOLLERR),
	   "another process's umount wakes epoll_wait: EPOLLPRI | EPOLLERR (%d, %#x)", n,
	   n == 1 ? out.events : 0);
	int status;
	waitpid(pid, &status, 0);
	is_int(epoll_wait(ep, &out, 1, 0), 0, "then quiet again");
	is_int(revents(info), POLLPRI | POLLERR, "mountinfo saw the umount");

	pid = fork();
	if (pid == 0) { /* a namespace of its own: its mounts are not ours */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(2);
		_exit(mount("none", dir, "tmpfs", 0, NULL) ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0) && revents(fd) == 0,
	   "a mount in another namespace is not reported (%#x)", status);
	is_int(revents(info), 0, "nor to mountinfo");

	int stat_fd = open("/proc/self/stat", O_RDONLY);
	is_errno(epoll_ctl(ep, EPOLL_CTL_ADD, stat_fd, &ev), EPERM, "/proc/self/stat: EPERM");
	close(stat_fd), close(ep), close(fd), close(info);
	rmdir(dir);
	return done();
}
