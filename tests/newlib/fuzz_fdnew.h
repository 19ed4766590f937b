/* Lifetime scenarios for the fd kinds issue 29 adds (memfd, pidfd,
 * inotify): each tears its objects down in a random order, across forks,
 * and reports what a program can tell was wrong as a finding
 * (fuzz_scenario.h).  The leak check after the fuzzer counts what they
 * leave.  Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_FDNEW_H
#define FUZZ_FDNEW_H

#include <poll.h>
#include <sys/mman.h>
#include <uapi/memfd.h>

#define MEMFD_PAGES 4

/* --- memfd: mappings, seals and fds dropped in any order. --- */

/* A sealable memfd of MEMFD_PAGES pages, or -1. */
static int memfd_sized(void)
{
	int fd = (int)raw_call(__NR_memfd_create, (long)"fuzz", MFD_ALLOW_SEALING, 0);

	if (fd >= 0 && ftruncate(fd, MEMFD_PAGES * 4096) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A writable shared mapping must block F_SEAL_WRITE however the fd, the
 * mapping and a forked child's copies go; a sealed file takes no write. */
static void scenario_memfd(void)
{
	int fd = memfd_sized();
	char *p = fd < 0
		      ? MAP_FAILED
		      : mmap(NULL, MEMFD_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pid_t pid;

	if (p == MAP_FAILED) {
		close(fd);
		return;
	}
	if ((pid = helper()) == 0) { /* the child's copy of the mapping */
		p[below(MEMFD_PAGES * 4096)] = 1;
		if (one_in(2))
			munmap(p, MEMFD_PAGES * 4096);
		_exit(0);
	}
	if (one_in(2)) { /* the mapping outlives its fd */
		int again = (int)raw_call(__NR_fcntl, fd, F_DUPFD, 0);
		close(fd);
		fd = again;
	}
	if (raw_call(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE) == 0)
		finding(F_SEAL_MAPPED);
	raw_call(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | (one_in(2) ? F_SEAL_GROW : 0));
	p[below(MEMFD_PAGES * 4096)] = 2; /* still allowed: the mapping came first */
	if (pid > 0)
		helper_wait(pid, 30);
	munmap(p, MEMFD_PAGES * 4096);
	if (write(fd, "x", 1) >= 0)
		finding(F_SEAL_WRITTEN);
	close(fd);
}

/* --- pidfd: the process exits and is reaped under its pidfds. --- */

static long pidfd_of(pid_t pid, long flags)
{
	return raw_call(__NR_pidfd_open, pid, flags, 0);
}

/* A holder (a helper) keeps a copy of the pidfd and polls it, signals
 * through it, or is killed mid-poll; the pidfd must turn readable at the
 * exit, reap the child through waitid(P_PIDFD) and refuse to signal
 * once it is reaped (the pid may be someone else's then). */
static void scenario_pidfd(void)
{
	struct pollfd p;
	long si[16] = {0};
	int fd, nb, holder;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms((long)below(4));
		_exit(3);
	}
	fd = pid > 0 ? (int)pidfd_of(pid, 0) : -1;
	nb = pid > 0 ? (int)pidfd_of(pid, 04000 /* PIDFD_NONBLOCK */) : -1;
	if (fd < 0 || nb < 0)
		return;
	if ((holder = helper()) == 0) {
		p = (struct pollfd){one_in(2) ? fd : nb, POLLIN, 0};
		if (one_in(2))
			raw_call(__NR_pidfd_send_signal, p.fd, 0, 0);
		poll(&p, 1, (int)below(50));
		_exit(0);
	}
	if (holder > 0 && one_in(2))
		kill(holder, SIGKILL);
	p = (struct pollfd){one_in(2) ? fd : nb, POLLIN, 0};
	if (poll(&p, 1, -1) != 1 || !(p.revents & POLLIN)) /* a hang: the watchdog's */
		finding(F_PIDFD_EXIT);
	long a[6] = {3 /* P_PIDFD */, one_in(2) ? fd : nb, (long)si, LINUX_WEXITED, 0, 0};
	if (raw_syscall(NR_WAITID, a) != 0 || (int)si[2] != pid)
		finding(F_PIDFD_EXIT);
	if (raw_call(__NR_pidfd_send_signal, one_in(2) ? fd : nb, 0, 0) != -ESRCH)
		finding(F_PIDFD_REAPED);
	if (holder > 0)
		helper_wait(holder, HELPER_END_MS);
	close(fd);
	close(nb);
}

/* --- inotify: watches outliving their files, fds closed mid-event. --- */

/* A helper creates, writes, renames and removes files and a directory
 * under watch while the scenario reads events, removes watches and closes
 * the inotify fd (or a dup of it) in a random order; a watched file's
 * removal must end its watch (IN_IGNORED: a second rm_watch is EINVAL). */
static void scenario_inotify(void)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = (int)raw_call(__NR_inotify_init1, 04000 /* IN_NONBLOCK */, 0, 0), wd, copy;
	pid_t writer;

	if (fd < 0)
		return;
	mkdir("in", 0700);
	close(open("in/f", O_CREAT | O_WRONLY, 0600));
	raw_call(__NR_inotify_add_watch, fd, (long)"in", 0xfff /* IN_ALL_EVENTS */);
	wd = (int)raw_call(__NR_inotify_add_watch, fd, (long)"in/f",
			   0xfff | (one_in(2) ? 0x80000000 : 0));
	copy = one_in(2) ? dup(fd) : -1;
	if ((writer = helper()) == 0) {
		for (int i = 0; i < 64; i++) {
			int f = open("in/f", O_CREAT | O_WRONLY | O_APPEND, 0600);
			write(f, "x", 1);
			close(f);
			if (one_in(8))
				rename("in/f", "in/g"), rename("in/g", "in/f");
			if (one_in(16))
				unlink("in/f");
			if (one_in(16))
				mkdir("in/d", 0700), rmdir("in/d");
		}
		_exit(0);
	}
	for (int i = 0; i < 16; i++)
		read(one_in(2) || copy < 0 ? fd : copy, buf, one_in(4) ? 8 : sizeof buf);
	if (one_in(2)) /* the reader goes while the writer may still write */
		close(fd), fd = -1;
	bool writer_done = writer > 0 && helper_wait(writer, HELPER_END_MS) >= 0;
	unlink("in/f");
	if (writer_done && fd >= 0 && wd > 0 &&
	    raw_call(__NR_inotify_rm_watch, fd, wd, 0) != -EINVAL)
		finding(F_INOTIFY_WATCH_LEFT);
	rmdir("in");
	close(fd);
	close(copy);
}

#endif
