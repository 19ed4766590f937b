/* System V message queues across processes: a receiver that waits and the
 * send that wakes it (handed over directly, others left queued), a waiting
 * receiver whose message is too long (E2BIG), a sender waiting for room,
 * removal under waiting senders and receivers (EIDRM), signals (EINTR with
 * a handler, restarted after a stop without one).  Each wait is for a
 * condition: /proc/<pid>/syscall shows the call a child sleeps in. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

struct msg {
	long mtype;
	char mtext[64];
};

static int send(int id, long type, const char *text, int flags)
{
	struct msg m = {type, ""};

	snprintf(m.mtext, sizeof m.mtext, "%s", text);
	return msgsnd(id, &m, strlen(text), flags);
}

static struct msqid_ds stat_of(int id)
{
	struct msqid_ds ds;

	memset(&ds, 0, sizeof(ds));
	msgctl(id, IPC_STAT, &ds);
	return ds;
}

static int wait_child(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Until pid sleeps in system call nr (/proc/<pid>/syscall), at most 20 s. */
static bool wait_blocked(pid_t pid, long nr)
{
	char path[64], buf[64];

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 20000; i++) {
		FILE *f = fopen(path, "r");
		long got = -1;
		if (f) {
			if (fgets(buf, sizeof buf, f))
				sscanf(buf, "%ld", &got);
			fclose(f);
		}
		if (got == nr)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* A child receiving type (with a buffer of size) that exits with 0 if it got
 * text, else 10 + its errno. */
static pid_t receiver(int id, long type, size_t size, const char *text)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct msg m = {0, ""};
		if (msgrcv(id, &m, size, type, 0) < 0)
			_exit(10 + errno);
		_exit(strcmp(m.mtext, text) ? 1 : 0);
	}
	return pid;
}

static pid_t sender(int id, const char *text)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(send(id, 1, text, 0) ? 10 + errno : 0);
	return pid;
}

static void test_handover(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid = receiver(id, 5, 63, "five");

	ok(wait_blocked(pid, SYS_msgrcv), "a receiver of type 5 waits");
	ok(send(id, 3, "three", 0) == 0 && wait_blocked(pid, SYS_msgrcv) &&
	       stat_of(id).msg_qnum == 1,
	   "a message of type 3 is queued; it still waits");
	ok(send(id, 5, "five", 0) == 0 && wait_child(pid) == 0, "type 5 goes to it");
	struct msqid_ds ds = stat_of(id);
	ok(ds.msg_qnum == 1 && ds.msg_lrpid == pid,
	   "the type 3 one stays; the receiver is the last");
	msgctl(id, IPC_RMID, NULL);
}

static void test_too_long(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid = receiver(id, 0, 4, "");

	ok(wait_blocked(pid, SYS_msgrcv), "a receiver with a 4-byte buffer waits");
	ok(send(id, 1, "too long", 0) == 0 && wait_child(pid) == 10 + E2BIG,
	   "a longer message fails it with E2BIG");
	is_int(stat_of(id).msg_qnum, 1, "and is queued");
	msgctl(id, IPC_RMID, NULL);
}

static void test_room(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct msqid_ds ds = stat_of(id);
	struct msg m;
	pid_t pid;

	ds.msg_qbytes = 10;
	msgctl(id, IPC_SET, &ds);
	send(id, 1, "12345678", 0);
	pid = sender(id, "abcdefgh");
	ok(wait_blocked(pid, SYS_msgsnd), "a sender waits for room");
	ok(msgrcv(id, &m, sizeof m.mtext, 0, 0) == 8 && wait_child(pid) == 0,
	   "a receive makes room: it sends");
	ds = stat_of(id);
	ok(ds.msg_qnum == 1 && ds.msg_cbytes == 8 && ds.msg_lspid == pid, "its message is queued");
	msgctl(id, IPC_RMID, NULL);
}

static void test_rmid(void)
{
	int id = msgget(IPC_PRIVATE, 0600), full = msgget(IPC_PRIVATE, 0600);
	struct msqid_ds ds = stat_of(full);
	pid_t r1 = receiver(id, 0, 63, ""), r2 = receiver(id, 7, 63, ""), s;

	ds.msg_qbytes = 4;
	msgctl(full, IPC_SET, &ds);
	send(full, 1, "full", 0);
	s = sender(full, "more");
	ok(wait_blocked(r1, SYS_msgrcv) && wait_blocked(r2, SYS_msgrcv), "two receivers wait");
	ok(msgctl(id, IPC_RMID, NULL) == 0 && wait_child(r1) == 10 + EIDRM &&
	       wait_child(r2) == 10 + EIDRM,
	   "removing the queue fails both with EIDRM");
	ok(wait_blocked(s, SYS_msgsnd) && msgctl(full, IPC_RMID, NULL) == 0 &&
	       wait_child(s) == 10 + EIDRM,
	   "and a waiting sender too");
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A handler ends the wait with EINTR, SA_RESTART or not (never restarted). */
static void test_signal(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_RESTART};
		struct msg m;
		sigaction(SIGUSR1, &sa, NULL);
		_exit(msgrcv(id, &m, sizeof m.mtext, 0, 0) < 0 ? 10 + errno : 0);
	}
	ok(wait_blocked(pid, SYS_msgrcv) && kill(pid, SIGUSR1) == 0 &&
	       wait_child(pid) == 10 + EINTR,
	   "a signal with an SA_RESTART handler: msgrcv fails with EINTR");
	msgctl(id, IPC_RMID, NULL);
}

/* Without a handler (a stop and continue), the wait goes on. */
static void test_stop(void)
{
	int id = msgget(IPC_PRIVATE, 0600), status;
	pid_t pid = receiver(id, 0, 63, "after");

	ok(wait_blocked(pid, SYS_msgrcv) && kill(pid, SIGSTOP) == 0 &&
	       waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status),
	   "a waiting receiver stopped");
	ok(kill(pid, SIGCONT) == 0 && waitpid(pid, &status, WCONTINUED) == pid &&
	       WIFCONTINUED(status),
	   "and continued");
	ok(wait_blocked(pid, SYS_msgrcv) && send(id, 1, "after", 0) == 0 && wait_child(pid) == 0,
	   "its msgrcv was restarted and gets the message");
	msgctl(id, IPC_RMID, NULL);
}

int main(void)
{
	plan(17);
	test_handover();
	test_too_long();
	test_room();
	test_rmid();
	test_signal();
	test_stop();
	return done();
}
