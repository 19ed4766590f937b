/*
 * Job control: SIGSTOP and SIGTSTP stop every thread of a process, SIGCONT
 * resumes it (even blocked or ignored), SIGKILL ends a stopped one; a stop
 * discards a pending SIGCONT and SIGCONT pending stops; the parent hears
 * of both through SIGCHLD (CLD_STOPPED, CLD_CONTINUED, none with
 * SA_NOCLDSTOP), wait4's WUNTRACED and WCONTINUED (once each) and waitid's
 * WSTOPPED and WCONTINUED; SIGTSTP is ignored in an orphaned group.  Linux
 * status words and numbers, raw calls: the same binary runs on the host.
 */
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sigutil.h"
#include "thread.h"

#define NR_waitid      247
#define LWNOHANG       1
#define LWUNTRACED     2 /* WSTOPPED for waitid */
#define LWEXITED       4
#define LWCONTINUED    8
#define LWNOWAIT       0x01000000
#define LP_PID	       1
#define LCLD_STOPPED   5
#define LCLD_CONTINUED 6

#define L_STOPPED(s)   (((s)&0xff) == 0x7f)
#define L_STOPSIG(s)   (((s) >> 8) & 0xff)
#define L_CONTINUED(s) ((s) == 0xffff)

/* Counters the children bump while they run, in memory the parent sees. */
static volatile long *counter;

static long lwait4(pid_t pid, int *status, int options)
{
	return syscall(__NR_wait4, pid, status, options, NULL);
}

/* Does *c move within 200 ms? */
static bool moves(volatile long *c)
{
	long before = *c;

	sleep_ms(200);
	return *c != before;
}

/* A child that counts in counter[0] forever, in a group of its own if
 * OWN_GROUP (a group with a parent outside it: not orphaned). */
static pid_t spinner(bool own_group)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (own_group)
			syscall(__NR_setpgid, 0, 0);
		for (;;)
			counter[0]++;
	}
	require(pid > 0, "fork");
	if (own_group)
		syscall(__NR_setpgid, pid, pid);
	while (!counter[0])
		sleep_ms(1);
	return pid;
}

static void test_stop_cont(void)
{
	int status = 0;
	pid_t pid;

	counter[0] = 0;
	pid = spinner(false);
	is_int(lsig_kill(pid, LSIGSTOP), 0, "kill(SIGSTOP) succeeds");
	ok(lwait4(pid, &status, LWUNTRACED) == pid && L_STOPPED(status) &&
	       L_STOPSIG(status) == LSIGSTOP,
	   "wait4(WUNTRACED): WIFSTOPPED with WSTOPSIG SIGSTOP");
	ok(!moves(&counter[0]), "a stopped process runs no code");
	is_int(lwait4(pid, &status, LWUNTRACED | LWNOHANG), 0, "the stop is reported once");
	is_int(lsig_kill(pid, LSIGCONT), 0, "kill(SIGCONT) succeeds");
	ok(lwait4(pid, &status, LWCONTINUED) == pid && L_CONTINUED(status),
	   "wait4(WCONTINUED): WIFCONTINUED");
	ok(moves(&counter[0]), "the continued process runs again");
	is_int(lwait4(pid, &status, LWCONTINUED | LWNOHANG), 0, "the continue is reported once");
	lsig_kill(pid, LSIGSTOP);
	lwait4(pid, &status, LWUNTRACED);
	syscall(__NR_tgkill, pid, pid, LSIGCONT);
	ok(moves(&counter[0]), "tgkill(SIGCONT) to one thread resumes the process");
	/* Stopped, the stop not yet reported: SIGKILL takes the report back
	 * at once (Linux: the group exit replaces the stop), so even
	 * WUNTRACED waits for the death (ash's "Killed" depends on it). */
	lsig_kill(pid, LSIGSTOP);
	while (moves(&counter[0]))
		;
	lsig_kill(pid, LSIGKILL);
	ok(lwait4(pid, &status, LWUNTRACED) == pid && killed_by(status, LSIGKILL),
	   "SIGKILL ends a stopped process; wait4(WUNTRACED) gets the death, not the stop");
}

static volatile sig_atomic_t chld_hits;
static struct lsiginfo chld_info;

static void chld_handler(int sig, struct lsiginfo *info, void *uc)
{
	(void)sig, (void)uc;
	chld_info = *info;
	chld_hits++;
}

/* Waits up to 2 s for a SIGCHLD. */
static bool got_chld(void)
{
	for (int i = 0; i < 200 && !chld_hits; i++)
		sleep_ms(10);
	return chld_hits;
}

struct chld_siginfo {
	int32_t si_signo, si_errno, si_code, pad;
	int32_t si_pid;
	uint32_t si_uid;
	int32_t si_status;
	uint8_t rest[100];
};

static void test_sigchld_waitid(void)
{
	struct chld_siginfo wi;
	int status;
	pid_t pid;

	lsig_handle_info(LSIGCHLD, chld_handler, UAPI_SA_RESTART);
	counter[0] = 0;
	chld_hits = 0;
	pid = spinner(true);
	lsig_kill(pid, LSIGTSTP);
	ok(got_chld() && chld_info.si_code == LCLD_STOPPED && chld_info.kill.pid == pid &&
	       chld_info.bytes[8] == LSIGTSTP,
	   "SIGTSTP stops it; SIGCHLD says CLD_STOPPED, the pid and SIGTSTP");
	memset(&wi, 0, sizeof(wi));
	ok(syscall(NR_waitid, LP_PID, pid, &wi, LWUNTRACED | LWNOWAIT, NULL) == 0 &&
	       wi.si_code == LCLD_STOPPED && wi.si_status == LSIGTSTP && wi.si_pid == pid,
	   "waitid(WSTOPPED|WNOWAIT): CLD_STOPPED, SIGTSTP");
	ok(syscall(NR_waitid, LP_PID, pid, &wi, LWUNTRACED, NULL) == 0 &&
	       wi.si_code == LCLD_STOPPED,
	   "WNOWAIT left it to report again");
	memset(&wi, 0, sizeof(wi));
	ok(syscall(NR_waitid, LP_PID, pid, &wi, LWUNTRACED | LWNOHANG, NULL) == 0 && wi.si_pid == 0,
	   "then it is reported no more");
	chld_hits = 0;
	lsig_kill(pid, LSIGCONT);
	ok(got_chld() && chld_info.si_code == LCLD_CONTINUED && chld_info.bytes[8] == LSIGCONT,
	   "SIGCONT: SIGCHLD says CLD_CONTINUED, SIGCONT");
	ok(syscall(NR_waitid, LP_PID, pid, &wi, LWCONTINUED, NULL) == 0 &&
	       wi.si_code == LCLD_CONTINUED && wi.si_status == LSIGCONT,
	   "waitid(WCONTINUED): CLD_CONTINUED, SIGCONT");
	lsig_handle_info(LSIGCHLD, chld_handler, UAPI_SA_RESTART | UAPI_SA_NOCLDSTOP);
	chld_hits = 0;
	lsig_kill(pid, LSIGSTOP);
	ok(lwait4(pid, &status, LWUNTRACED) == pid && L_STOPPED(status) && chld_hits == 0,
	   "SA_NOCLDSTOP: no SIGCHLD for a stop, wait4 still reports it");
	lsig_kill(pid, LSIGKILL);
	lwait4(pid, &status, 0);
	lsig_action(LSIGCHLD, UAPI_SIG_DFL, 0, 0);
}

/* SIGCONT is blocked and ignored: it resumes the process all the same. */
static void test_cont_blocked(void)
{
	int status;
	pid_t pid;

	counter[0] = 0;
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGCONT), NULL);
	lsig_action(LSIGCONT, UAPI_SIG_IGN, 0, 0);
	pid = spinner(false); /* inherits both */
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGCONT), NULL);
	lsig_action(LSIGCONT, UAPI_SIG_DFL, 0, 0);
	lsig_kill(pid, LSIGSTOP);
	lwait4(pid, &status, LWUNTRACED);
	lsig_kill(pid, LSIGCONT);
	ok(moves(&counter[0]), "a blocked and ignored SIGCONT resumes the process");
	lsig_kill(pid, LSIGKILL);
	lwait4(pid, &status, 0);
}

/* The child blocks SIGTSTP and SIGCONT; the parent sends FIRST then
 * SECOND; the child exits 0 if only SECOND is pending. */
static void check_discard(int first, int second, const char *what)
{
	int go[2], ready[2], status;
	pid_t pid;
	char c;

	require(pipe(go) == 0 && pipe(ready) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(__NR_setpgid, 0, 0); /* not orphaned: the parent is outside */
		lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGTSTP) | LBIT(LSIGCONT), NULL);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(lsig_pending() == LBIT(second) ? 0 : 1);
	}
	require(read(ready[0], &c, 1) == 1, "child ready");
	lsig_kill(pid, first);
	lsig_kill(pid, second);
	require(write(go[1], "g", 1) == 1, "go");
	ok(lwait4(pid, &status, 0) == pid && exited_with(status, 0), what);
	close(go[0]), close(go[1]), close(ready[0]), close(ready[1]);
}

static int thread_spin(void *arg)
{
	(void)arg;
	for (;;)
		counter[1]++;
	return 0;
}

/* A stop stops every thread; SIGCONT resumes every thread. */
static void test_threads(void)
{
	int status;
	pid_t pid;

	counter[0] = counter[1] = 0;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		static struct thread t;
		if (thread_start(&t, thread_spin, NULL) < 0)
			_exit(1);
		for (;;)
			counter[0]++;
	}
	while (!counter[0] || !counter[1])
		sleep_ms(1);
	lsig_kill(pid, LSIGSTOP);
	lwait4(pid, &status, LWUNTRACED);
	sleep_ms(50); /* the other thread is on its way to stop */
	ok(!moves(&counter[0]) && !moves(&counter[1]), "SIGSTOP stops every thread");
	lsig_kill(pid, LSIGCONT);
	ok(moves(&counter[0]) && moves(&counter[1]), "SIGCONT resumes every thread");
	lsig_kill(pid, LSIGKILL);
	ok(lwait4(pid, &status, 0) == pid && killed_by(status, LSIGKILL),
	   "SIGKILL ends the threaded process");
}

/* A session leader's own group has no parent in its session: orphaned. */
static void test_orphaned(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(__NR_setsid);
		lsig_kill(getpid(), LSIGTSTP);
		lsig_kill(getpid(), LSIGTTIN);
		lsig_kill(getpid(), LSIGTTOU);
		_exit(7);
	}
	ok(lwait4(pid, &status, LWUNTRACED) == pid && exited_with(status, 7),
	   "SIGTSTP, SIGTTIN, SIGTTOU are ignored in an orphaned group");
	if (L_STOPPED(status)) {
		lsig_kill(pid, LSIGKILL);
		lwait4(pid, &status, 0);
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(__NR_setsid);
		lsig_kill(getpid(), LSIGSTOP);
		_exit(7);
	}
	ok(lwait4(pid, &status, LWUNTRACED) == pid && L_STOPPED(status) &&
	       L_STOPSIG(status) == LSIGSTOP,
	   "SIGSTOP stops it all the same");
	lsig_kill(pid, LSIGCONT);
	ok(lwait4(pid, &status, 0) == pid && exited_with(status, 7), "and SIGCONT lets it finish");
}

/*
 * A stopped job whose session leader exits: its group is orphaned with a
 * stopped member, so it gets SIGHUP (which kills it) and SIGCONT.  The
 * job holds a pipe's write end: its end is the reader's EOF.
 */
static void test_orphaned_stopped(void)
{
	int fds[2], status;
	pid_t leader, job = 0;
	struct pollfd pfd;
	char c;

	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((leader = fork()) == 0) {
		close(fds[0]);
		syscall(__NR_setsid);
		if ((job = fork()) == 0) {
			syscall(__NR_setpgid, 0, 0);
			lsig_action(LSIGHUP, 0, 0, 0); /* run under nohup, it would be ignored */
			lsig_kill(getpid(), LSIGSTOP);
			for (;;)
				pause();
		}
		syscall(__NR_setpgid, job, job);
		/* Its pid for the reader; leaving once the job is stopped. */
		if (write(fds[1], &job, sizeof(job)) != sizeof(job) ||
		    lwait4(job, &status, LWUNTRACED) != job)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ok(read(fds[0], &job, sizeof(job)) == sizeof(job) && lwait4(leader, &status, 0) == leader &&
	       exited_with(status, 0),
	   "the session leader left with its job stopped");
	pfd = (struct pollfd){fds[0], POLLIN, 0};
	ok(poll(&pfd, 1, 5000) == 1 && read(fds[0], &c, 1) == 0,
	   "the orphaned stopped job got SIGHUP and SIGCONT: it ended");
	if (job > 0)
		lsig_kill(job, LSIGKILL); /* if it did not */
	close(fds[0]);
}

int main(void)
{
	counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(counter != MAP_FAILED, "mmap");
	plan(28);
	test_stop_cont();
	test_sigchld_waitid();
	test_cont_blocked();
	check_discard(LSIGTSTP, LSIGCONT, "SIGCONT discards a pending SIGTSTP");
	check_discard(LSIGCONT, LSIGTSTP, "SIGTSTP discards a pending SIGCONT");
	test_threads();
	test_orphaned();
	test_orphaned_stopped();
	return done();
}
