/* prctl options as Linux answers them: PR_SET_PDEATHSIG (a child gets its
 * signal when the thread that forked it exits, also while the process
 * lives on), PR_SET_CHILD_SUBREAPER (an orphaned grandchild comes to the
 * subreaper, which reaps it), PR_SET_TIMERSLACK, PR_SET_TSC
 * (PR_TSC_SIGSEGV makes rdtsc fault), personality (query, set, unknown
 * persona kept; STICKY_TIMEOUTS keeps select's timeout), and the bad
 * values' EINVAL. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static int pipefd[2];

/* A child that asks for SIGUSR1 at its parent thread's death, says so on
 * the pipe, then waits for the signal (killed by it: default action). */
static void pdeath_child(void)
{
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	if (write(pipefd[1], "r", 1) != 1)
		_exit(2);
	for (int i = 0; i < 3000; i++)
		usleep(10000);
	_exit(3);
}

static pid_t forked;

static void *forking_thread(void *arg)
{
	(void)arg;
	if ((forked = fork()) == 0)
		pdeath_child();
	char c;
	if (read(pipefd[0], &c, 1) != 1)
		return NULL;
	return NULL; /* the thread exits: its child's signal */
}

static void test_pdeathsig(void)
{
	pthread_t t;
	int sig = -1, status;

	ok(prctl(PR_SET_PDEATHSIG, SIGUSR2) == 0 && prctl(PR_GET_PDEATHSIG, &sig) == 0 &&
	       sig == SIGUSR2,
	   "PR_SET_PDEATHSIG, PR_GET_PDEATHSIG");
	errno = 0;
	is_errno(prctl(PR_SET_PDEATHSIG, 65), EINVAL, "PR_SET_PDEATHSIG 65: EINVAL");
	prctl(PR_SET_PDEATHSIG, 0);
	if (pipe(pipefd))
		return;
	pthread_create(&t, NULL, forking_thread, NULL);
	pthread_join(t, NULL);
	waitpid(forked, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1,
	   "a child gets its PDEATHSIG when the thread that forked it exits");
}

static void test_subreaper(void)
{
	int on = -1, status, go[2];
	pid_t mid, grandchild = -1;

	ok(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 && prctl(PR_GET_CHILD_SUBREAPER, &on) == 0 &&
	       on == 1,
	   "PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER");
	if (pipe(pipefd) || pipe(go))
		return;
	if ((mid = fork()) == 0) {
		if ((grandchild = fork()) == 0) {
			char c;
			if (read(go[0], &c, 1) != 1) /* until the middle one is gone */
				_exit(4);
			_exit(7);
		}
		if (write(pipefd[1], &grandchild, sizeof(grandchild)) != sizeof(grandchild))
			_exit(1);
		_exit(0);
	}
	waitpid(mid, &status, 0);
	if (read(pipefd[0], &grandchild, sizeof(grandchild)) != sizeof(grandchild) ||
	    write(go[1], "g", 1) != 1)
		return;
	ok(waitpid(grandchild, &status, 0) == grandchild && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 7,
	   "the orphaned grandchild comes to the subreaper, which reaps it");
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

static void test_tsc(void)
{
	int mode = -1, status;
	pid_t pid;

	ok(prctl(PR_GET_TSC, &mode) == 0 && mode == PR_TSC_ENABLE, "PR_GET_TSC: enabled");
	errno = 0;
	is_errno(prctl(PR_SET_TSC, 3), EINVAL, "PR_SET_TSC 3: EINVAL");
	if ((pid = fork()) == 0) {
		unsigned lo, hi;
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	   "rdtsc under PR_TSC_SIGSEGV: SIGSEGV");
	unsigned lo, hi;
	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	ok(1, "rdtsc still works in the parent");
}

int main(void)
{
	plan(15);
	test_pdeathsig();
	test_subreaper();

	long slack = prctl(PR_GET_TIMERSLACK);
	ok(slack > 0 && prctl(PR_SET_TIMERSLACK, 1000) == 0 && prctl(PR_GET_TIMERSLACK) == 1000,
	   "PR_SET_TIMERSLACK, PR_GET_TIMERSLACK (default %ld)", slack);
	ok(prctl(PR_SET_TIMERSLACK, 0) == 0 && prctl(PR_GET_TIMERSLACK) == slack,
	   "PR_SET_TIMERSLACK 0: back to the default");
	test_tsc();

	ok(personality(0xffffffff) == PER_LINUX, "personality: PER_LINUX, queried");
	ok(personality(ADDR_NO_RANDOMIZE) == PER_LINUX &&
	       personality(0xffffffff) == ADDR_NO_RANDOMIZE,
	   "personality: set and read back");
	personality(STICKY_TIMEOUTS);
	struct timeval tv = {0, 10000};
	ok(select(0, NULL, NULL, NULL, &tv) == 0 && tv.tv_sec == 0 && tv.tv_usec == 10000,
	   "STICKY_TIMEOUTS: select leaves its timeout as given");
	personality(0x00ab);
	ok(personality(0xffffffff) == 0x00ab, "personality: an unknown persona is kept");
	personality(PER_LINUX);
	return done();
}
