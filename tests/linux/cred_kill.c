/* Who may signal whom (Linux's check_kill_permission): a sender whose
 * real or effective uid is the target's real or saved uid, or one with
 * CAP_KILL; SIGCONT also within the sender's session.  Every way of
 * sending -- kill (a pid, a process group, -1), tgkill, tkill,
 * rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal -- and the null
 * signal's probe; ESRCH before EPERM; si_uid is the sender's real uid,
 * SIGCHLD's and waitid's the child's. */
#include "cred_util.h"
#include <signal.h>
#include <sys/wait.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Targets: pausing processes with the given ids, started by root. */
static pid_t other_user;  /* U2, its own process group, same session */
static pid_t other_sess;  /* U2 in a session of its own */
static pid_t real_u1;	  /* real uid U1, effective and saved U3 */
static pid_t saved_u1;	  /* real U3, effective U3, saved U1 */
static pid_t euid_u1;	  /* real U3, effective U1, saved U3 */
static pid_t root_target; /* root, for the CAP_KILL test */
static int info_pipe[2];  /* real_u1 writes the si_uid of a SIGUSR1 here */

static void report_uid(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	unsigned int uid = si->si_uid;
	if (write(info_pipe[1], &uid, sizeof uid) != sizeof uid)
		_exit(3);
}

struct target {
	uid_t r, e, s;
	bool session;
};

/* A target's set-up: SIGUSR1 reports, its own group or session, ids. */
static bool become(const void *arg)
{
	const struct target *t = arg;
	struct sigaction sa = {.sa_sigaction = report_uid, .sa_flags = SA_SIGINFO};

	sigaction(SIGUSR1, &sa, NULL);
	if (t->session)
		setsid();
	else
		setpgid(0, 0);
	return setresuid(t->r, t->e, t->s) == 0;
}

/* A child with ids r, e, s (a new session if asked) that pauses forever. */
static pid_t spawn(uid_t r, uid_t e, uid_t s, bool session)
{
	struct target t = {r, e, s, session};

	return spawn_paused(become, &t);
}

static int sigqueue_raw(pid_t pid, int sig)
{
	siginfo_t si = {.si_signo = sig, .si_code = SI_QUEUE};

	return (int)syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
}

static int tgsigqueue_raw(pid_t pid, int sig)
{
	siginfo_t si = {.si_signo = sig, .si_code = SI_QUEUE};

	return (int)syscall(SYS_rt_tgsigqueueinfo, pid, pid, sig, &si);
}

static void as_user(void)
{
	ok(setresuid(U1, U1, U1) == 0, "the sender becomes U1");
	is_errno(kill(other_user, 0), EPERM, "kill(another user's process, 0): EPERM");
	is_errno(kill(other_user, SIGTERM), EPERM, "kill(..., SIGTERM): EPERM");
	is_errno(syscall(SYS_tgkill, other_user, other_user, SIGTERM), EPERM, "tgkill: EPERM");
	is_errno(syscall(SYS_tkill, other_user, SIGTERM), EPERM, "tkill: EPERM");
	is_errno(sigqueue_raw(other_user, SIGTERM), EPERM, "rt_sigqueueinfo: EPERM");
	is_errno(tgsigqueue_raw(other_user, SIGTERM), EPERM, "rt_tgsigqueueinfo: EPERM");
	int pfd = (int)syscall(SYS_pidfd_open, other_user, 0);
	ok(pfd >= 0, "pidfd_open of another user's process works");
	is_errno(syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0), EPERM,
		 "pidfd_send_signal: EPERM");
	is_errno(syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0), EPERM,
		 "pidfd_send_signal's probe (0): EPERM");
	close(pfd);
	is_errno(kill(-other_user, SIGTERM), EPERM, "kill(-its process group): EPERM");
	is_errno(kill(0x3ffffff, 0), ESRCH, "no such process: ESRCH before anything");
	ok(kill(other_user, SIGCONT) == 0, "SIGCONT within the session is allowed");
	is_errno(kill(other_sess, SIGCONT), EPERM, "SIGCONT to another session: EPERM");
	is_int(kill(-1, 0), 0, "kill(-1, 0): 0 though it may signal few (Linux)");
	ok(kill(real_u1, 0) == 0, "the target's real uid is the sender's: allowed");
	ok(kill(saved_u1, 0) == 0, "the target's saved uid is the sender's: allowed");
	is_errno(kill(euid_u1, 0), EPERM, "only the target's effective uid: EPERM");
	unsigned int uid = 0;
	ok(kill(real_u1, SIGUSR1) == 0 && read(info_pipe[0], &uid, sizeof uid) == sizeof uid &&
	       uid == U1,
	   "the receiver's si_uid is the sender's real uid");
}

/* Real uid U3 and saved U1: the sender's real uid counts too. */
static void real_uid_counts(void)
{
	ok(setresuid(U3, U1, U3) == 0, "the sender: real U3, effective U1");
	ok(kill(real_u1, 0) == 0, "effective U1 reaches a real U1");
	ok(setresuid(U1, U3, U3) == 0 && kill(real_u1, 0) == 0, "real U1 reaches it too");
	is_errno(kill(other_user, 0), EPERM, "neither reaches U2");
}

/* Root without CAP_KILL in its effective set: only uid matches remain. */
static void root_without_cap_kill(void)
{
	struct caps c = caps_of(0);

	ok(caps_set(c.eff & ~CAP_KILL_BIT, c.prm, c.inh) == 0, "drop CAP_KILL from effective");
	ok(kill(root_target, 0) == 0, "a root process: its uid matches");
	is_errno(kill(other_user, 0), EPERM, "U2's: EPERM without CAP_KILL");
}

static void exit_as_u1(void)
{
	setuid(U1);
}

int main(void)
{
	plan(28);
	require(getuid() == 0, "the test runs as root");
	require(pipe(info_pipe) == 0, "pipe");
	other_user = spawn(U2, U2, U2, false);
	other_sess = spawn(U2, U2, U2, true);
	real_u1 = spawn(U1, U3, U3, false);
	saved_u1 = spawn(U3, U3, U1, false);
	euid_u1 = spawn(U3, U1, U3, false);
	root_target = spawn(0, 0, 0, false);
	in_child("as U1", as_user);
	in_child("real uid", real_uid_counts);
	in_child("no CAP_KILL", root_without_cap_kill);

	pid_t all[] = {other_user, other_sess, real_u1, saved_u1, euid_u1, root_target};
	int n = 0, st;
	for (int i = 0; i < 6; i++)
		n += kill(all[i], SIGKILL) == 0 && waitpid(all[i], &st, 0) == all[i] &&
		     killed_by(st, SIGKILL);
	is_int(n, 6, "root (CAP_KILL) kills every target");

	pid_t pid = fork();
	if (pid == 0) {
		exit_as_u1();
		_exit(7);
	}
	siginfo_t si = {0};
	ok(waitid(P_PID, pid, &si, WEXITED) == 0 && si.si_uid == U1 && si.si_status == 7,
	   "waitid's si_uid: the child's real uid");
	return done();
}
