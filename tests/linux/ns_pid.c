/* pid namespaces, as Linux: clone(CLONE_NEWPID) gives a child pid 1 in
 * a new namespace, with no parent it can name (getppid 0), while its
 * parent numbers it as before (clone, waitpid, waitid's si_pid); a
 * signal from outside carries si_pid 0; the namespace's init reaps the
 * orphans of its namespace, ignores SIGKILL from inside it and SIGHUP
 * from outside, and its death kills every other process in
 * it before its parent can reap it; after that a fork in it is ENOMEM
 * (unshare(CLONE_NEWPID): the next child is the init); /proc/<pid>/ns/pid
 * and pid_for_children, NS_GET_PARENT (EPERM above the caller's own
 * namespace) and NS_GET_NSTYPE; setns into a descendant namespace;
 * /proc/<pid>/status's NSpid; clone3's set_tid; nesting stops with
 * ENOSPC at level 33;
 * the EINVAL cases of clone and unshare.  Run as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#define NSIO		 0xb7
#define NS_GET_PARENT	 _IO(NSIO, 0x2)
#define NS_GET_NSTYPE	 _IO(NSIO, 0x3)
#define MAX_PID_NS_LEVEL 32

/* Children report numbers to the test through report; the test lets
 * them go on through go; a namespace's init hears its own children
 * through inner. */
static int report[2], go[2], inner[2];

static void put_int(int fd, int v)
{
	write(fd, &v, sizeof v);
}

static int get_int(int fd)
{
	int v = -1;

	read(fd, &v, sizeof v);
	return v;
}

static void say(int v)
{
	put_int(report[1], v);
}

static int hear(void)
{
	return get_int(report[0]);
}

/* A fork-like clone with flags (CLONE_NEWPID ...): the child runs fn. */
static pid_t clone_with(unsigned long flags, int (*fn)(void))
{
	pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(fn());
	return pid;
}

static unsigned long ns_ino(pid_t pid, const char *kind)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, kind);
	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned long fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

/* The numbers of the NSpid line of /proc/self/status (from the initial
 * namespace's down): how many, the first and the last in *first, *last. */
static int nspid(int *first, int *last)
{
	char buf[4096], *line, *p, *end;
	int n = 0;

	if (read_text("/proc/self/status", buf, sizeof buf) < 0 ||
	    !(line = strstr(buf, "\nNSpid:")))
		return 0;
	for (p = line + 7; *p && *p != '\n'; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (!n++)
			*first = (int)v;
		*last = (int)v;
	}
	return n;
}

static int sigusr_from = -1;
static int test_pidfd; /* the test's process: the child cannot name it */

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	sigusr_from = si->si_pid;
}

/* The namespace's init: its own view, then a signal from outside. */
static int init_view(void)
{
	struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
	int first = 0, last = 0, levels = nspid(&first, &last);
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	say(getpid());
	say(getppid());
	say((int)syscall(SYS_gettid));
	say(levels >= 2 && last == 1 ? first : -1); /* its global number */
	/* A pidfd of a process outside its namespace: EINVAL (Linux's
	 * access_pidfd_pidns). */
	say(syscall(SYS_pidfd_send_signal, test_pidfd, 0, NULL, 0) == -1 ? errno : 0);
	sigemptyset(&set);
	sigsuspend(&set); /* the parent's SIGUSR1 */
	say(sigusr_from);
	return 7;
}

static void check_init_view(void)
{
	siginfo_t si = {0};
	pid_t pid;
	int v[5];

	test_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pid = clone_with(CLONE_NEWPID, init_view);
	require(pid > 0, "clone(CLONE_NEWPID)");
	for (int i = 0; i < 5; i++)
		v[i] = hear();
	is_int(v[0], 1, "the child of clone(CLONE_NEWPID) is pid 1");
	is_int(v[1], 0, "... its parent is outside: getppid 0");
	is_int(v[2], 1, "... gettid 1");
	ok(pid != 1 && v[3] == pid, "... its parent numbers it as clone said (NSpid %d)", v[3]);
	ok(ns_ino(pid, "pid") != ns_ino(getpid(), "pid") && ns_ino(pid, "pid") != 0,
	   "/proc/<child>/ns/pid is another namespace");
	ok(ns_ino(pid, "pid_for_children") == ns_ino(pid, "pid"),
	   "... its pid_for_children is its own");
	is_int(v[4], EINVAL, "pidfd_send_signal to a process outside the namespace: EINVAL");
	close(test_pidfd);
	kill(pid, SIGUSR1);
	is_int(hear(), 0, "a signal from outside the namespace: si_pid 0");
	ok(waitid(P_PID, pid, &si, WEXITED) == 0 && si.si_pid == pid && si.si_status == 7,
	   "waitid: si_pid is the parent's number of it");
}

/* The init's orphan: it reports its number, then its new parent. */
static int orphan(void)
{
	put_int(inner[1], getpid());
	while (getppid() != 1) /* its parent's exit hands it to the init */
		sched_yield();
	put_int(inner[1], getppid());
	return 5;
}

static int orphan_parent(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(orphan());
	return 0;
}

/* Forks a child that forks an orphan, then reaps both: reports what
 * wait returned for each. */
static int reaping_init(void)
{
	int status, orphan_nr, got_parent = 0, got_orphan = 0;
	pid_t mid = fork(), w;

	if (mid == 0)
		_exit(orphan_parent());
	orphan_nr = get_int(inner[0]);
	say(orphan_nr);
	say(get_int(inner[0])); /* its new parent */
	while ((w = wait(&status)) > 0) {
		if (w == mid)
			got_parent = 1;
		else if (w == orphan_nr && exited_with(status, 5))
			got_orphan = 1;
	}
	say(got_parent && got_orphan && errno == ECHILD);
	return 0;
}

static void check_reaping(void)
{
	pid_t pid = clone_with(CLONE_NEWPID, reaping_init);
	int status, nr;

	require(pid > 0, "clone(CLONE_NEWPID)");
	nr = hear();
	ok(nr > 1, "a grandchild in the namespace gets a number past 1 (%d)", nr);
	is_int(hear(), 1, "an orphan in the namespace goes to its init (getppid 1)");
	is_int(hear(), 1, "the init's wait reaps the orphan by its namespace's number");
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the init exits");
}

/* An init that leaves a child behind and exits: the child's global pid
 * is reported first (from its NSpid). */
static int sleeper(void)
{
	int first = 0, last = 0;

	say(nspid(&first, &last) == 2 && last == getpid() ? first : -1);
	pause();
	return 0;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A multi-threaded init: the namespace dies with the last of its
 * threads, whichever that is. */
static int abandoning_init(void)
{
	pthread_t idle;
	pid_t killer;

	if (pthread_create(&idle, NULL, idle_thread, NULL))
		return 9;
	killer = fork();

	if (killer == 0) /* from inside, SIGKILL without a handler: ignored */
		_exit(kill(1, SIGKILL) == 0 ? 0 : 1);
	waitpid(killer, NULL, 0);
	if (fork() == 0)
		_exit(sleeper());
	get_int(go[0]); /* the test heard the sleeper */
	return 3;
}

static void check_init_death(void)
{
	pid_t pid, sleeper_pid;
	int status;

	pid = clone_with(CLONE_NEWPID, abandoning_init);
	require(pid > 0, "clone(CLONE_NEWPID)");
	sleeper_pid = hear();
	ok(sleeper_pid > 0 && sleeper_pid != pid, "NSpid: the global and the namespace's number");
	put_int(go[1], 0); /* lets the init go */
	waitpid(pid, &status, 0);
	ok(exited_with(status, 3), "the init (two threads) ignored SIGKILL from its namespace "
				   "and exits with its own status");
	is_errno(kill(sleeper_pid, 0), ESRCH,
		 "its death killed the namespace's other process, reaped before the init");
}

static int waiting_init(void)
{
	say(0);
	while (pause() == -1) /* until killed */
		;
	return 0;
}

/* From outside, a default-action SIGHUP is ignored by a namespace's
 * init, SIGKILL is not (Linux's SIGNAL_UNKILLABLE and its exceptions).
 * SIGHUP, not SIGTERM: were it queued, it would be taken before SIGKILL,
 * the lower number first. */
static void check_init_signals(void)
{
	pid_t pid = clone_with(CLONE_NEWPID, waiting_init);
	int status;

	require(pid > 0, "clone(CLONE_NEWPID)");
	hear(); /* it runs, its handlers the defaults */
	kill(pid, SIGHUP);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(killed_by(status, SIGKILL), "the init ignores SIGHUP from outside, not SIGKILL");
}

/* unshare(CLONE_NEWPID): the caller stays, its next child is the init;
 * once that init is gone, fork in the namespace is ENOMEM. */
static int unshare_then_fork(void)
{
	int status, me = getpid(), first = 0, last = 0;
	pid_t c;

	if (unshare(CLONE_NEWPID))
		return 10;
	if (unshare(CLONE_NEWPID) != -1 || errno != EINVAL)
		return 11; /* a second before a child entered the first */
	if (getpid() != me)
		return 12;
	if (ns_ino(getpid(), "pid") == ns_ino(getpid(), "pid_for_children"))
		return 13;
	if (syscall(SYS_clone, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 0, 0, 0, 0) != -1 ||
	    errno != EINVAL)
		return 14; /* a thread cannot go where the children go */
	if ((c = fork()) == 0)
		_exit(getpid() == 1 && nspid(&first, &last) >= 2 ? 0 : 1);
	if (c <= 1 || waitpid(c, &status, 0) != c || !exited_with(status, 0))
		return 15;
	if (fork() != -1 || errno != ENOMEM)
		return 16;
	return 0;
}

static void check_unshare(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(unshare_then_fork());
	waitpid(pid, &status, 0);
	is_int(WEXITSTATUS(status), 0,
	       "unshare(CLONE_NEWPID): the next child is pid 1, a second unshare and "
	       "CLONE_THREAD EINVAL, fork after the init's end ENOMEM");
	is_errno(
	    syscall(SYS_clone, CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 0, 0, 0, 0),
	    EINVAL, "clone(CLONE_NEWPID | CLONE_THREAD): EINVAL");
}

static int outer_ns = -1; /* the test's pid namespace file */

/* The namespace files and their ioctls from inside the child. */
static int ns_files(void)
{
	int fd = open("/proc/self/ns/pid", O_RDONLY);

	say(ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWPID);
	/* Its parent is above the caller's namespace: EPERM; nor may the
	 * caller enter it. */
	say(ioctl(fd, NS_GET_PARENT) == -1 ? errno : 0);
	say(setns(outer_ns, CLONE_NEWPID) == -1 ? errno : 0);
	get_int(go[0]);
	return 0;
}

static void check_ns_files(void)
{
	int fd = outer_ns = open("/proc/self/ns/pid", O_RDONLY), status, child_ns, gp, parent;
	pid_t pid = clone_with(CLONE_NEWPID, ns_files), other;
	unsigned long mine = fd_ino(fd);
	char path[64];

	require(pid > 0, "clone(CLONE_NEWPID)");
	is_int(hear(), 1, "NS_GET_NSTYPE: CLONE_NEWPID");
	is_int(hear(), EPERM, "NS_GET_PARENT above the caller's namespace: EPERM");
	is_int(hear(), EINVAL, "setns into an ancestor pid namespace: EINVAL");
	snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)pid);
	child_ns = open(path, O_RDONLY);
	parent = ioctl(child_ns, NS_GET_PARENT);
	ok(parent >= 0 && fd_ino(parent) == mine, "NS_GET_PARENT: the parent's namespace");
	close(parent);
	close(child_ns);
	/* setns into the child's namespace: our next child is in it. */
	if ((other = fork()) == 0) {
		child_ns = open(path, O_RDONLY);
		if (setns(child_ns, CLONE_NEWPID))
			_exit(1);
		if (ns_ino(getpid(), "pid") != mine ||
		    ns_ino(getpid(), "pid_for_children") != fd_ino(child_ns))
			_exit(2);
		if ((gp = fork()) == 0)
			_exit(getpid() > 1 && getppid() == 0 ? 0 : 1);
		waitpid(gp, &status, 0);
		_exit(exited_with(status, 0) ? 0 : 3);
	}
	waitpid(other, &status, 0);
	is_int(WEXITSTATUS(status), 0, "setns(pid file): the next child is in that namespace");
	put_int(go[1], 0);
	waitpid(pid, &status, 0);
	close(fd);
}

struct clone_args_k {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

/* clone3 as fork, with set_tid: the child exits 0 if getpid() is want. */
static long clone3_tid(uint64_t flags, const pid_t *tids, int n, pid_t want)
{
	struct clone_args_k a = {.flags = flags,
				 .exit_signal = SIGCHLD,
				 .set_tid = (uint64_t)(uintptr_t)tids,
				 .set_tid_size = (uint64_t)n};
	long pid = syscall(435 /* clone3 */, &a, sizeof a);
	int status;

	if (pid == 0)
		_exit(getpid() == want ? 0 : 1);
	if (pid > 0 && (waitpid((pid_t)pid, &status, 0) != pid || !exited_with(status, 0)))
		return -2;
	return pid;
}

/* clone3's set_tid: the numbers a checkpoint/restore tool asks for. */
static void check_set_tid(void)
{
	pid_t gone = fork(), tids[2];

	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0); /* a free number, most likely still free */
	tids[0] = 1;
	tids[1] = gone;
	is_int(clone3_tid(CLONE_NEWPID, tids, 2, 1), gone,
	       "set_tid {1, a free pid}: pid 1 in the new namespace, that pid outside");
	tids[0] = 2;
	is_errno(clone3_tid(CLONE_NEWPID, tids, 1, 2), EINVAL,
		 "set_tid 2 in a namespace without its init: EINVAL");
	tids[0] = getpid();
	is_errno(clone3_tid(0, tids, 1, 0), EEXIST, "set_tid of a pid in use: EEXIST");
	is_errno(clone3_tid(0, tids, 2, 0), EINVAL, "set_tid longer than the levels: EINVAL");
}

/* Nests pid namespaces until unshare refuses: reports the depth reached
 * and the errno. */
static int nest(int depth)
{
	int status;
	pid_t c;

	if (unshare(CLONE_NEWPID)) {
		say(depth);
		say(errno);
		return 0;
	}
	if ((c = fork()) == 0)
		_exit(nest(depth + 1));
	if (c < 0)
		return 1;
	waitpid(c, &status, 0);
	return WEXITSTATUS(status);
}

static void check_nesting(void)
{
	int first = 0, last = 0, level = nspid(&first, &last) - 1, depth, err, status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(nest(0));
	depth = hear();
	err = hear();
	waitpid(pid, &status, 0);
	is_int(level + depth, MAX_PID_NS_LEVEL, "pid namespaces nest to level 32 (%d below us)",
	       depth);
	is_int(err, ENOSPC, "... the 33rd level: ENOSPC");
}

int main(void)
{
	if (geteuid() || access("/proc/self/ns/pid_for_children", F_OK))
		skip_all("not root, or no pid namespaces");
	require(pipe(report) == 0 && pipe(go) == 0 && pipe(inner) == 0, "pipes");
	plan(30);
	check_init_view();
	check_reaping();
	check_init_death();
	check_init_signals();
	check_unshare();
	check_ns_files();
	check_set_tid();
	check_nesting();
	return done();
}
