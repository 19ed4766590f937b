/* Waiting by process group (wait4 with 0 and -pgid) and waitid: P_PID,
 * P_PGID, P_ALL, WEXITED, WNOHANG, WNOWAIT, the siginfo it fills and its
 * errors, as on Linux.  newlib has no waitid: raw system calls. */
#include <fdkernel.h> /* wait4, which newlib does not declare */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigutil.h"

#define NR_waitid    247
#define LP_ALL	     0
#define LP_PID	     1
#define LP_PGID	     2
#define LP_PIDFD     3
#define LWNOHANG     1
#define LWSTOPPED    2
#define LWEXITED     4
#define LWNOWAIT     0x01000000
#define LCLD_EXITED  1
#define LCLD_KILLED  2
#define RUSAGE_BYTES 144

/* Linux's siginfo_t for SIGCHLD: the fields waitid fills. */
struct chld_info {
	int32_t si_signo, si_errno, si_code, pad;
	int32_t si_pid;
	uint32_t si_uid;
	int32_t si_status;
	uint8_t rest[100];
};

static long lwaitid(int idtype, int id, struct chld_info *info, int options, void *ru)
{
	return syscall(NR_waitid, idtype, id, info, options, ru);
}

/* A child that, in a group of its own if OWN_GROUP, reads the pipe FDS (if
 * not NULL) until EOF and exits with CODE. */
static pid_t spawn(bool own_group, const int *fds, int code)
{
	char c;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (own_group)
			syscall(__NR_setpgid, 0, 0);
		if (fds)
			close(fds[1]);
		while (fds && read(fds[0], &c, 1) != 0)
			;
		_exit(code);
	}
	require(pid > 0, "fork");
	if (own_group)
		syscall(__NR_setpgid, pid, pid); /* either call may win; both set the same group */
	return pid;
}

static bool info_is(const struct chld_info *i, pid_t pid, int code, int status)
{
	return i->si_signo == LSIGCHLD && i->si_errno == 0 && i->si_code == code &&
	       i->si_pid == pid && i->si_uid == (uint32_t)syscall(__NR_getuid) &&
	       i->si_status == status;
}

static void test_wnowait(void)
{
	struct chld_info info;
	pid_t pid = spawn(false, NULL, 5);

	memset(&info, 0xff, sizeof info);
	ok(lwaitid(LP_PID, pid, &info, LWEXITED | LWNOWAIT, NULL) == 0 &&
	       info_is(&info, pid, LCLD_EXITED, 5),
	   "waitid(P_PID, WNOWAIT): SIGCHLD, CLD_EXITED, pid, uid and status 5");
	memset(&info, 0xff, sizeof info);
	ok(lwaitid(LP_PID, pid, &info, LWEXITED | LWNOHANG, NULL) == 0 &&
	       info_is(&info, pid, LCLD_EXITED, 5),
	   "the child stays waitable after WNOWAIT; waitid(P_PID) reaps it");
	is_errno(lwaitid(LP_PID, pid, &info, LWEXITED | LWNOHANG, NULL), ECHILD,
		 "and then it is gone: ECHILD");
}

static void test_wnohang_and_killed(void)
{
	int fds[2];
	struct chld_info info;
	pid_t pid;

	require(pipe(fds) == 0, "pipe");
	pid = spawn(false, fds, 0);
	memset(&info, 0xff, sizeof info);
	ok(lwaitid(LP_ALL, 0, &info, LWEXITED | LWNOHANG, NULL) == 0 && info.si_signo == 0 &&
	       info.si_pid == 0,
	   "waitid(P_ALL, WNOHANG) with a live child: 0, si_signo and si_pid zeroed");
	ok(lwaitid(LP_PID, pid, &info, LWSTOPPED | LWNOHANG, NULL) == 0 && info.si_pid == 0,
	   "WSTOPPED alone does not report a child that has not stopped");
	kill(pid, SIGKILL);
	memset(&info, 0xff, sizeof info);
	ok(lwaitid(LP_PID, pid, &info, LWEXITED, NULL) == 0 &&
	       info_is(&info, pid, LCLD_KILLED, LSIGKILL),
	   "a killed child: CLD_KILLED with the signal in si_status");
	close(fds[0]);
	close(fds[1]);
}

/* wait4(0) and wait4(-pgid) see only their group's children. */
static void test_wait4_groups(void)
{
	int fds[2], status = -1;
	struct chld_info info;
	pid_t other, mine;

	require(pipe(fds) == 0, "pipe");
	other = spawn(true, NULL, 5);
	mine = spawn(false, fds, 7);
	close(fds[0]);
	/* other is a zombie before mine may exit. */
	require(lwaitid(LP_PID, other, &info, LWEXITED | LWNOWAIT, NULL) == 0, "waitid");
	close(fds[1]);
	ok(wait4(0, &status, 0, NULL) == mine && exited_with(status, 7),
	   "wait4(0) waits for the child in the caller's group, not the other group's zombie");
	is_errno(wait4(0, &status, WNOHANG, NULL), ECHILD,
		 "wait4(0) with only another group's child left: ECHILD");
	status = -1;
	ok(wait4(-other, &status, WNOHANG, NULL) == other && exited_with(status, 5),
	   "wait4(-pgid) reaps the child of that group");
}

static void test_waitid_groups(void)
{
	uint8_t ru[RUSAGE_BYTES];
	struct chld_info info;
	pid_t other = spawn(true, NULL, 3), mine = spawn(false, NULL, 4);

	memset(&info, 0, sizeof info);
	ok(lwaitid(LP_PGID, other, &info, LWEXITED, ru) == 0 &&
	       info_is(&info, other, LCLD_EXITED, 3),
	   "waitid(P_PGID, pgid) reaps that group's child (with a rusage pointer)");
	memset(&info, 0, sizeof info);
	ok(lwaitid(LP_PGID, 0, &info, LWEXITED, NULL) == 0 && info_is(&info, mine, LCLD_EXITED, 4),
	   "waitid(P_PGID, 0) means the caller's group");
	is_errno(lwaitid(LP_ALL, 0, &info, LWEXITED, NULL), ECHILD,
		 "waitid(P_ALL) without children: ECHILD");
}

static void test_errors(void)
{
	struct chld_info info;
	pid_t pid = spawn(false, NULL, 0);

	is_errno(lwaitid(LP_ALL, 0, &info, 0, NULL), EINVAL,
		 "no WEXITED/WSTOPPED/WCONTINUED: EINVAL");
	is_errno(lwaitid(LP_ALL, 0, &info, LWNOHANG | LWNOWAIT, NULL), EINVAL,
		 "WNOHANG|WNOWAIT alone: EINVAL");
	is_errno(lwaitid(LP_ALL, 0, &info, LWEXITED | 0x10, NULL), EINVAL,
		 "an unknown option bit: EINVAL");
	is_errno(lwaitid(7, 0, &info, LWEXITED, NULL), EINVAL, "an unknown idtype: EINVAL");
	is_errno(lwaitid(LP_PID, 0, &info, LWEXITED, NULL), EINVAL, "P_PID with id 0: EINVAL");
	is_errno(lwaitid(LP_PGID, -1, &info, LWEXITED, NULL), EINVAL,
		 "P_PGID with a negative id: EINVAL");
	is_errno(lwaitid(LP_PID, pid, (struct chld_info *)8, LWEXITED, NULL), EFAULT,
		 "an unwritable siginfo: EFAULT");
	is_errno(wait4(pid, NULL, LWNOWAIT, NULL), EINVAL, "wait4 does not take WNOWAIT: EINVAL");
	waitpid(pid, NULL, 0);
	is_errno(lwaitid(LP_PID, pid, &info, LWEXITED, NULL), ECHILD, "a reaped pid: ECHILD");
}

int main(void)
{
	plan(21);
	test_wnowait();
	test_wnohang_and_killed();
	test_wait4_groups();
	test_waitid_groups();
	test_errors();
	return tap_failed != 0;
}
