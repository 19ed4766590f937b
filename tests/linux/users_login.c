/* busybox login on a pseudo-terminal with the image's accounts (README,
 * "Users"; docs/security.md): `login user` with the password `user` gives
 * a shell of uid 1000 in /home/user; a wrong password is refused and no
 * shell starts.  Root starts it, as getty would.  fdkernel only: the
 * host's accounts are not the image's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define WAIT_MS 20000 /* a prompt's longest wait: a hang, not a speed check */

static char seen[8192];
static size_t seen_len;

/* Read the master into seen until WANT shows (true) or it stays silent
 * WAIT_MS, or the slave side is gone (false). */
static bool read_until(int master, const char *want)
{
	struct pollfd p = {.fd = master, .events = POLLIN};

	while (!strstr(seen, want)) {
		if (poll(&p, 1, WAIT_MS) <= 0)
			return false;
		ssize_t n = read(master, seen + seen_len, sizeof seen - 1 - seen_len);
		if (n <= 0)
			return false;
		seen_len += (size_t)n;
		seen[seen_len] = '\0';
	}
	return true;
}

/* login USER on a new pty, the child leading a session with it as its
 * controlling terminal; the master in *master. */
static pid_t start_login(const char *user, int *master)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	require(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0, "a pty");
	const char *slave = ptsname(m);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {"login", (char *)user, NULL};
		char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "TERM=vt100", NULL};
		int s;
		if (setsid() < 0 || (s = open(slave, O_RDWR)) < 0)
			_exit(126);
		dup2(s, 0), dup2(s, 1), dup2(s, 2);
		close(m);
		execve("/bin/busybox", argv, envp);
		_exit(127);
	}
	require(pid > 0, "fork");
	seen_len = 0;
	seen[0] = '\0';
	*master = m;
	return pid;
}

static int finish(pid_t pid, int master)
{
	int status = -1;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(master);
	return status;
}

static void good_password(void)
{
	int m;
	pid_t pid = start_login("user", &m);

	ok(read_until(m, "Password: "), "login asks for the password");
	ok(write(m, "user\n", 5) == 5, "the password written");
	ok(write(m, "id; pwd; exit\n", 14) == 14 &&
	       read_until(m, "uid=1000(user) gid=1000(user) groups=1000(user)"),
	   "a shell of uid 1000");
	ok(read_until(m, "/home/user"), "in the home directory");
	if (!strstr(seen, "uid=1000"))
		diag("the pty showed: %s", seen);
	finish(pid, m);
}

static void bad_password(void)
{
	int m;
	pid_t pid = start_login("user", &m);

	ok(read_until(m, "Password: ") && write(m, "wrong\n", 6) == 6 &&
	       read_until(m, "Login incorrect"),
	   "a wrong password: Login incorrect");
	ok(!strstr(seen, "uid=1000"), "and no shell");
	finish(pid, m);
}

int main(void)
{
	if (!on_fdkernel())
		skip_all("the image's accounts: fdkernel only");
	plan(6);
	good_password();
	bad_password();
	return done();
}
