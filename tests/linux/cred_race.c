/* Credentials under concurrency: threads changing the process's ids (the
 * file-system uid back and forth, the effective uid through the saved
 * one) while others fork children that exit, read the ids and
 * /proc/self/status, and another process reads this one's status; then
 * an execve racing a thread's set*id: the new program's auxv (AT_EUID,
 * AT_SECURE) must agree with the ids it runs with.  Nothing may crash or
 * leak (the guest's leak check counts the credentials). */
#include "cred_util.h"
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>

#define ROUNDS 300

static volatile int stop;
static int bad; /* inconsistent views seen (atomic adds) */

static void *toggle_fsuid(void *arg)
{
	(void)arg;
	while (!stop) {
		setfsuid(U1);
		setfsuid(0);
	}
	return NULL;
}

/* The effective uid leaves 0 and comes back (the saved uid stays 0). */
static void *toggle_euid(void *arg)
{
	(void)arg;
	while (!stop) {
		syscall(SYS_setresuid, -1, U2, -1);
		syscall(SYS_setresuid, -1, 0, -1);
	}
	return NULL;
}

static void *forker(void *arg)
{
	(void)arg;
	while (!stop) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(getuid() == 0 ? 0 : 1);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !exited_with(st, 0))
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Every view keeps the real and saved uids 0 whatever the toggles do. */
static void *reader(void *arg)
{
	char line[128];

	(void)arg;
	while (!stop) {
		uid_t r, e, s;
		if (syscall(SYS_getresuid, &r, &e, &s) != 0 || r != 0 || s != 0 ||
		    (e != 0 && e != U2))
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
		if (!status_line(0, "Uid:", line, sizeof line) || strncmp(line, "Uid:\t0\t", 7))
			__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void churn(void)
{
	void *(*fns[])(void *) = {toggle_fsuid, toggle_euid, forker, reader, reader};
	pthread_t th[5];
	pid_t self = getpid(), watcher;
	char line[128];

	if ((watcher = fork()) == 0) { /* another process reads our status */
		for (int i = 0; i < ROUNDS; i++)
			if (!status_line(self, "Uid:", line, sizeof line))
				_exit(1);
		_exit(0);
	}
	for (int i = 0; i < 5; i++)
		pthread_create(&th[i], NULL, fns[i], NULL);
	int st;
	ok(waitpid(watcher, &st, 0) == watcher && exited_with(st, 0),
	   "another process read the status throughout");
	stop = 1;
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	is_int(bad, 0, "no thread saw an impossible set of ids");
	ok(setfsuid(-1) == 0 && syscall(SYS_setresuid, -1, 0, -1) == 0 && uids_are(0, 0, 0),
	   "root again at the end");
}

/* The exec'd program: its auxv against its ids, on fd 3. */
static int report(void)
{
	unsigned long ok_ids = getauxval(AT_EUID) == geteuid() && getauxval(AT_UID) == getuid() &&
			       getauxval(AT_SECURE) == (geteuid() != getuid());

	dprintf(3, "%lu\n", ok_ids);
	return 0;
}

static void *exec_racer(void *arg)
{
	(void)arg;
	for (;;) {
		syscall(SYS_setresuid, -1, U2, -1);
		syscall(SYS_setresuid, -1, 0, -1);
	}
	return NULL;
}

/* execve while another thread flips the effective uid. */
static void exec_race(void)
{
	int good = 0;

	for (int i = 0; i < 20; i++) {
		int p[2];
		char buf[8] = "";
		pid_t pid;

		require(pipe(p) == 0, "pipe");
		if ((pid = fork()) == 0) {
			pthread_t th;
			pthread_create(&th, NULL, exec_racer, NULL);
			dup2(p[1], 3);
			execl("/proc/self/exe", "cred_race", "report", (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		good += read(p[0], buf, sizeof buf - 1) > 0 && buf[0] == '1';
		close(p[0]);
		waitpid(pid, NULL, 0);
	}
	is_int(good, 20, "every exec'd image's auxv matches the ids it runs with");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report();
	plan(4);
	require(getuid() == 0, "the test runs as root");
	in_child("churn", churn);
	in_child("exec race", exec_race);
	return done();
}
