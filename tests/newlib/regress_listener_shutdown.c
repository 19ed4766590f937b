/*
 * Regression (issue 13, item 13): shutdown(SHUT_RD or SHUT_RDWR) on a
 * listening socket failed with ENOTCONN and left a blocked accept blocked.
 * Linux returns 0 and the listener stops: a blocked or later accept fails
 * with EINVAL and a connect is refused.  SHUT_WR alone changes nothing.
 * Both families, on the host Linux too.
 */
#include <signal.h>

#include "sock_util.h"

#define BLOCKED_MS 100 /* time for a child to block in accept */
/* How long a child may take to end: a hang detector, generous enough for a
 * loaded machine (the answer must come; how fast is not the question). */
#define END_MS 30000

/* Child exit codes of accepter(). */
enum { GOT_EINVAL, GOT_OTHER, GOT_CONN };

static int listener;

/* accept() on the listener once, blocking. */
static void accepter(void)
{
	int fd = accept(listener, NULL, NULL);

	_exit(fd >= 0 ? GOT_CONN : errno == EINVAL ? GOT_EINVAL : GOT_OTHER);
}

static pid_t start_accepter(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		accepter();
	require(pid > 0, "fork");
	return pid;
}

/* The child's exit code once it exits within ms, or -1 (it is killed). */
static int exit_within(pid_t pid, long ms)
{
	int status;

	for (; ms > 0; ms -= 10) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void listen_on(int family, struct saddr *a)
{
	listener = sock_server(family, SOCK_STREAM, "lshut", a);
	require(listener >= 0, "listener");
}

/* SHUT_RD or SHUT_RDWR: the listener stops listening. */
static void check_stops(int family, int how)
{
	const char *fn = fam_name(family), *hn = how == SHUT_RD ? "SHUT_RD" : "SHUT_RDWR";
	struct saddr a;
	pid_t pid;
	int c;

	listen_on(family, &a);
	pid = start_accepter();
	sleep_ms(BLOCKED_MS);
	is_int(shutdown(listener, how), 0, "%s: shutdown(%s) on a listener: 0", fn, hn);
	is_int(exit_within(pid, END_MS), GOT_EINVAL, "%s, %s: the blocked accept fails with EINVAL",
	       fn, hn);
	is_int(exit_within(start_accepter(), END_MS), GOT_EINVAL,
	       "%s, %s: a later accept fails with EINVAL at once", fn, hn);
	c = socket(family, SOCK_STREAM, 0);
	is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), ECONNREFUSED,
		 "%s, %s: a connect is refused", fn, hn);
	close(c);
	close(listener);
	saddr_drop(&a);
}

/* SHUT_WR: nothing changes for a listener. */
static void check_shut_wr(int family)
{
	const char *fn = fam_name(family);
	struct saddr a;
	pid_t pid;
	int c;

	listen_on(family, &a);
	pid = start_accepter();
	sleep_ms(BLOCKED_MS);
	is_int(shutdown(listener, SHUT_WR), 0, "%s: shutdown(SHUT_WR) on a listener: 0", fn);
	c = sock_client(family, SOCK_STREAM, &a);
	is_int(exit_within(pid, END_MS), GOT_CONN,
	       "%s, SHUT_WR: the blocked accept stays blocked and gets the next connection", fn);
	close(c);
	close(listener);
	saddr_drop(&a);
}

int main(void)
{
	plan(2 * (2 * 4 + 2));
	for (int i = 0; i < 2; i++) {
		check_stops(families[i], SHUT_RD);
		check_stops(families[i], SHUT_RDWR);
		check_shut_wr(families[i]);
	}
	return done();
}
