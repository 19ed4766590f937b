/* Exhaustion of the wait paths: 200 children exiting at once under a
 * blocking waitpid, and 200 zombies reaped in one go, each status right. */
#include "robust.h"

#define CHILDREN 200

static pid_t pids[CHILDREN];

/* CHILDREN children: each writes a byte to TELL_FD, blocks until EOF on
 * WAIT_FD (if >= 0), then exits with its index. */
static void spawn(int tell_fd, int wait_fd, int hold_fd)
{
	fflush(stdout);
	for (int i = 0; i < CHILDREN; i++) {
		char c = 'x';
		if ((pids[i] = fork()) == 0) {
			if (hold_fd >= 0)
				close(hold_fd);
			write(tell_fd, &c, 1);
			while (wait_fd >= 0 && read(wait_fd, &c, 1) < 0 && errno == EINTR)
				;
			_exit(i);
		}
		require(pids[i] > 0, "fork");
	}
}

/* Reap CHILDREN with waitpid(-1, OPTIONS): true if each came once, with the
 * exit status of its index. */
static bool reap_each_once(int options)
{
	static bool seen[CHILDREN];
	int status, good = 0;
	memset(seen, 0, sizeof seen);
	for (int n = 0; n < CHILDREN; n++) {
		pid_t pid = waitpid(-1, &status, options);
		for (int i = 0; i < CHILDREN; i++)
			if (pid == pids[i] && !seen[i] && exited_with(status, i)) {
				seen[i] = true;
				good++;
			}
	}
	return good == CHILDREN;
}

/* Read until N bytes came (every child has started). */
static void await_bytes(int fd, int n)
{
	char buf[64];
	ssize_t got;
	while (n > 0 && (got = read(fd, buf, n < 64 ? n : 64)) > 0)
		n -= got;
}

static void exit_together(void)
{
	int tell[2], release[2];
	require(pipe(tell) == 0 && pipe(release) == 0, "pipes");
	spawn(tell[1], release[0], release[1]);
	await_bytes(tell[0], CHILDREN);
	close(release[1]); /* all wake and exit at once */
	ok(reap_each_once(0), "%d children exiting at once: each reaped once, status right",
	   CHILDREN);
	close(release[0]);
	close(tell[0]);
	close(tell[1]);
}

static void zombies(void)
{
	int tell[2];
	require(pipe(tell) == 0, "a pipe");
	spawn(tell[1], -1, -1);
	for (int i = 0; i < CHILDREN; i++)
		require(await_zombie(pids[i]), "a child exits");
	ok(reap_each_once(WNOHANG), "%d zombies: each reaped at once (WNOHANG), status right",
	   CHILDREN);
	close(tell[0]);
	close(tell[1]);
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	bool have_before = kstat_read(&before);
	plan(6);
	exit_together();
	zombies();
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left");
	system_usable(argv[0], "400 children");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
