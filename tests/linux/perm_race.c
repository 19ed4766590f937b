/*
 * A permission check racing a change of the file's mode or owner sees the
 * old state or the new one, never a mix: while root flips a file between
 * two modes (or owners) that both refuse an ordinary user, every open by
 * that user in another process fails with EACCES, and one that both allow
 * always succeeds.  SMP makes the two really concurrent (the guest runs
 * with 2 CPUs, the suite with 4 too).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cred_util.h"

#define OPENS 20000

static char path[64];
static volatile int stop;

struct flip {
	mode_t a, b;  /* chmod between these */
	uid_t ua, ub; /* and chown between these (same: no chown) */
};

static void *flipper(void *arg)
{
	const struct flip *f = arg;

	for (unsigned i = 0; !stop; i++) {
		chmod(path, i & 1 ? f->b : f->a);
		if (f->ua != f->ub)
			chown(path, i & 1 ? f->ub : f->ua, G2);
	}
	return NULL;
}

/* In a child that becomes U1 (not in G2): how many of OPENS reads got
 * errno other than want (0: success wanted), reported as exit status
 * (capped). */
static int user_opens(int want)
{
	int bad = 0;

	if (setgroups(0, NULL) || setresgid(G1, G1, G1) || setresuid(U1, U1, U1))
		return 255;
	for (int i = 0; i < OPENS; i++) {
		int fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
		if (want ? !(fd < 0 && errno == want) : fd < 0)
			bad++;
	}
	return bad > 250 ? 250 : bad;
}

static int race(const struct flip *f, int want)
{
	pthread_t th;
	int status = -1;
	pid_t pid;

	require(chown(path, f->ua, G2) == 0 && chmod(path, f->a) == 0, "reset the file");
	stop = 0;
	require(pthread_create(&th, NULL, flipper, (void *)f) == 0, "the flipping thread");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(user_opens(want));
	if (pid > 0)
		waitpid(pid, &status, 0);
	stop = 1;
	pthread_join(th, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	int fd;

	if (geteuid() != 0) /* before the plan: runtests runs perm_* as uid 1000 too */
		skip_all("needs root, to flip a file under an ordinary user");
	plan(4);
	snprintf(path, sizeof path, "/tmp/perm-race-%d", (int)getpid());
	fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
	require(fd >= 0 && close(fd) == 0, "a scratch file");
	is_int(race(&(struct flip){0600, 0640, 0, 0}, EACCES), 0,
	       "mode flipping 0600/0640 (group not the user's): every open EACCES");
	is_int(race(&(struct flip){0604, 0644, 0, 0}, 0), 0,
	       "mode flipping 0604/0644 (others may read in both): every open succeeds");
	is_int(race(&(struct flip){0640, 0640, 0, U2}, EACCES), 0,
	       "owner flipping root/another user, mode 0640: every open EACCES");
	ok(unlink(path) == 0, "clean up");
	return done();
}
