/*
 * RLIMIT_NPROC as Linux enforces it: the live tasks (threads too) of a
 * real uid; fork, clone and pthread_create are EAGAIN at the caller's
 * soft limit, except for root and a caller with CAP_SYS_RESOURCE; a task
 * that goes frees a place; a set*id call moving a process to a user past
 * the limit succeeds, and its execve is EAGAIN until the user is under
 * it again.  Runs as root, every user in a child, with uids no other
 * process of the host has.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cred_util.h"

#define CAP_SYS_RESOURCE_N 24
#define EXIT_CODE	   42

/* A child that pauses until killed, or -1 with errno. */
static pid_t pauser(void)
{
	pid_t pid = fork();

	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void become(uid_t uid)
{
	require(setgroups(0, NULL) == 0 && setresgid(G1, G1, G1) == 0 &&
		    setresuid(uid, uid, uid) == 0,
		"become an ordinary user");
}

static void set_nproc(rlim_t n)
{
	struct rlimit r = {n, n};

	require(setrlimit(RLIMIT_NPROC, &r) == 0, "set RLIMIT_NPROC");
}

static void *idle(void *arg)
{
	return arg;
}

static void user_limit(void)
{
	pid_t a, b, c;
	pthread_t th;
	int err;

	become(U1);
	set_nproc(3);
	a = pauser();
	b = pauser();
	ok(a > 0 && b > 0, "a user at 1 task of 3 forks twice");
	errno = 0;
	c = fork();
	if (c == 0)
		_exit(0);
	ok(c == -1 && errno == EAGAIN, "the third fork: EAGAIN");
	err = pthread_create(&th, NULL, idle, NULL);
	ok(err == EAGAIN, "a thread counts too: EAGAIN");
	if (!err)
		pthread_join(th, NULL);
	reap(a);
	c = pauser();
	ok(c > 0, "one reaped: a fork again succeeds");
	reap(b);
	if (c > 0)
		reap(c);
}

static void root_exempt(void)
{
	pid_t pid;

	set_nproc(1);
	pid = pauser();
	ok(pid > 0, "root past its RLIMIT_NPROC still forks");
	if (pid > 0)
		reap(pid);
}

static void cap_exempt(void)
{
	pid_t a, b;

	if (prctl(PR_CAPBSET_READ, CAP_SYS_RESOURCE_N) != 1) {
		skip("no CAP_SYS_RESOURCE in the bounding set here", "CAP_SYS_RESOURCE exempts");
		skip("no CAP_SYS_RESOURCE in the bounding set here", "... from the effective set");
		return;
	}
	require(prctl(PR_SET_KEEPCAPS, 1) == 0, "keep capabilities");
	become(U2);
	uint64_t res = 1ULL << CAP_SYS_RESOURCE_N;
	require(caps_set(res, res, 0) == 0, "keep CAP_SYS_RESOURCE alone");
	set_nproc(1);
	a = pauser();
	ok(a > 0, "a user with CAP_SYS_RESOURCE forks past the limit");
	require(caps_set(0, res, 0) == 0, "drop it from the effective set");
	errno = 0;
	b = fork();
	if (b == 0)
		_exit(0);
	ok(b == -1 && errno == EAGAIN, "without it in the effective set: EAGAIN");
	if (a > 0)
		reap(a);
}

/* spawn_paused's setup: the child becomes U3, one more task of U3's. */
static bool to_u3(const void *arg)
{
	(void)arg;
	return setresuid(U3, U3, U3) == 0;
}

/* In a child of root: exits EXIT_CODE if every step went as Linux's, or
 * the number of the step that did not. */
static void setuid_past_limit(void)
{
	pid_t x = spawn_paused(to_u3, NULL), y = spawn_paused(to_u3, NULL);
	char *early[] = {"rlimit_nproc", "--early", NULL},
	     *late[] = {"rlimit_nproc", "--exit", NULL};

	set_nproc(1);
	if (setresuid(U3, U3, U3) != 0)
		_exit(3); /* the set*id call itself must succeed */
	for (int i = 0; i < 2; i++)
		if (execv("/proc/self/exe", early) != -1 || errno != EAGAIN)
			_exit(4); /* past the limit: EAGAIN, each time */
	reap(x);
	reap(y);
	execv("/proc/self/exe", late); /* under the limit now: exits EXIT_CODE */
	_exit(5);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return EXIT_CODE;
	if (argc == 2 && !strcmp(argv[1], "--early"))
		return 6; /* an exec that should have been refused */
	plan(8);
	if (geteuid() != 0)
		skip_all("needs root, to become other users");
	in_child("an ordinary user's limit", user_limit);
	in_child("root", root_exempt);
	in_child("CAP_SYS_RESOURCE", cap_exempt);
	fflush(stdout);
	if ((pid = fork()) == 0)
		setuid_past_limit();
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_CODE,
	   "setuid to a user past the limit succeeds, execve is EAGAIN until the user is under "
	   "it again, then runs (status 0x%x)",
	   status);
	return done();
}
