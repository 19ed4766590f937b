/* The fuzzer's scenarios: instead of one call with drawn arguments, a worker
 * now and then forks a scenario process that builds objects, hands them to
 * helper processes and tears them down in a random order (fuzz_graph.h), or
 * plays one adversarial case (fuzz_cases.h).  This file has what they share:
 * the classes, findings, helpers and the scenario process's life.
 * Included by fuzz.c only, after fuzz_values.h. */
#ifndef FUZZ_SCENARIO_H
#define FUZZ_SCENARIO_H

#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>

#include "sigutil.h"

/* A wrong result a scenario can see for itself (the leaks and hangs it
 * provokes show up in the counters and the watchdog instead).  The text is
 * what Linux does and fdkernel must do too. */
#define FINDINGS(X)                                                                                \
	X(F_NONE, "")                                                                              \
	X(F_OVERRUN, "a scenario process overran its time limit (a call blocked or spun)")         \
	X(F_REGS, "registers changed across a signal handler (must be restored exactly)")          \
	X(F_READV_BLOCKED, "readv blocked on a pipe holding data (must return what is there)")     \
	X(F_WRITEV_DGRAM, "writev sent several datagrams (must send one)")                         \
	X(F_READV_DGRAM, "readv read several datagrams (must read one)")                           \
	X(F_WRITEV_TORN, "a writev of at most PIPE_BUF bytes to a pipe was interleaved")           \
	X(F_DGRAM_UNBOUNDED, "empty datagrams queued without limit (must block at the buffer)")    \
	X(F_PORT_SLOW, "binding to port 0 is slow: the range took over 15 s, or one call 1 s")     \
	X(F_ACCEPT_LOST, "accept at EMFILE lost the queued connection")                            \
	X(F_SCM_EMFILE, "recvmsg with fds at the fd limit failed (must set MSG_CTRUNC)")           \
	X(F_WAIT_PGID, "wait4(0) reaped a child of another process group")                         \
	X(F_NOCLDWAIT, "SIGCHLD ignored but a child was left to wait for (must be ECHILD)")        \
	X(F_SHARED_COW, "MAP_SHARED anonymous memory stopped being shared after fork")             \
	X(F_PROT_NONE, "PROT_NONE memory was readable")                                            \
	X(F_RANGE_PAST_USER, "a range past the end of user space was accepted or changed memory")  \
	X(F_NONSEQ_LIMIT, "O_NONSEQFD opened more fds than RLIMIT_NOFILE allows")                  \
	X(F_SLEEP_OVERFLOW, "nanosleep of INT64_MAX seconds returned at once")                     \
	X(F_DGRAM_SHUT_WR, "a datagram send after SHUT_WR succeeded (must be EPIPE)")              \
	X(F_LISTEN_SHUTDOWN, "shutdown of a listener failed or left accept blocked")               \
	X(F_QUEUED_EOF, "a never-accepted connection read EOF after its listener closed")          \
	X(F_SEAL_MAPPED, "F_SEAL_WRITE was added while a writable shared mapping existed")         \
	X(F_SEAL_WRITTEN, "a write to a memfd sealed with F_SEAL_FUTURE_WRITE succeeded")          \
	X(F_SHM_LOST, "a write to a System V segment was not seen through another attach")         \
	X(F_SHM_ALIVE, "a removed segment outlived its last attach (must be freed: EINVAL)")       \
	X(F_LOCK_LEFT, "a record lock outlived its holder and every waiter (must go at exit)")     \
	X(F_PIDFD_EXIT, "a pidfd did not report or reap its process's exit")                       \
	X(F_PIDFD_REAPED, "pidfd_send_signal to a reaped process was not ESRCH")                   \
	X(F_INOTIFY_WATCH_LEFT, "a watch on a removed file outlived it (rm_watch was not EINVAL)") \
	X(F_IPC_RESULT,                                                                            \
	  "a semop, msgsnd or msgrcv ended otherwise than by success, EIDRM or E2BIG")             \
	X(F_IPC_ALIVE, "a removed semaphore set or message queue was still there")                 \
	X(F_MOUNT_LEFT, "a mount point was still one after every mount on it was unmounted")       \
	X(F_FAULT_DEATH, "a scenario's process or helper died of a fault (SIGSEGV, SIGBUS, ...)")  \
	X(F_ESCALATED, "an ordinary user got what only root may have (fuzz_unpriv.h)")             \
	X(F_ESCALATION_ERRNO, "an ordinary user's escalation was refused with another errno")

enum finding {
#define FINDING_ENUM(name, text) name,
	FINDINGS(FINDING_ENUM)
#undef FINDING_ENUM
	    NFINDINGS
};

static const char *const finding_text[] = {
#define FINDING_TEXT(name, text) text,
    FINDINGS(FINDING_TEXT)
#undef FINDING_TEXT
};

/* What goes up the report pipe: calls made, a finding, a scenario played,
 * escalation attempts made and which one was not refused (fuzz_unpriv.h)
 * (one write, so reports from many processes never interleave). */
#define REPORT_MAGIC 0x52505a46 /* "FZPR": where a report starts in the stream */
struct report {
	int magic;
	int worker, calls, finding, playing, played; /* played: a scenario ended */
	int attempts, which, result;		     /* result: the named attempt's, -errno */
};

static void send_report_of(int calls, enum finding f, int played)
{
	struct report r = {REPORT_MAGIC, fz.worker, calls, f, fz.playing, played, 0, -1, 0};
	raw_call(__NR_write, REPORT_FD, (long)&r, sizeof r);
}

static void send_report(int calls, enum finding f)
{
	send_report_of(calls, f, 0);
}

static void finding(enum finding f)
{
	send_report(0, f);
}

/* --- Helpers: processes a scenario forks to block, race and be killed. ---
 * Each lives in the worker's process group (the watchdog's SIGKILL reaches
 * it), and the scenario kills and reaps all of them before it ends. */

#define MAX_HELPERS 8

static struct {
	pid_t pid[MAX_HELPERS];
	int n;
	bool faulting; /* the scenario's helpers fault on purpose (mem's) */
} helpers;

/* Whether a wait status is a death by a fault's signal, which no
 * scenario provokes in its own process or its helpers but for mem's
 * probes: one means the kernel wrote where it must not, or jumped a
 * process somewhere (the kernel's fault report names the process). */
static bool fault_death(int status)
{
	if (!WIFSIGNALED(status))
		return false;
	switch (WTERMSIG(status)) { /* Linux's numbers: newlib's differ */
	case LSIGSEGV:
	case LSIGBUS:
	case LSIGILL:
	case LSIGFPE:
	case LSIGTRAP:
	case LSIGSYS:
		return true;
	default:
		return false;
	}
}

/* Fork a helper; it returns 0 in the helper (which must end with _exit),
 * the pid in the scenario, -1 when out of helpers or processes. */
static pid_t helper(void)
{
	if (helpers.n == MAX_HELPERS)
		return -1;
	pid_t pid = fork();
	if (pid > 0)
		helpers.pid[helpers.n++] = pid;
	if (pid == 0)
		helpers.n = 0; /* a helper's helpers are its own */
	return pid;
}

/* Kill helper I (SIGKILL mid-call, whatever it is doing) and reap it. */
static void kill_helper(int i)
{
	pid_t pid = helpers.pid[i];
	int status;
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) == pid && fault_death(status) && !helpers.faulting)
		finding(F_FAULT_DEATH);
	helpers.pid[i] = helpers.pid[--helpers.n];
}

static void kill_helpers(void)
{
	while (helpers.n)
		kill_helper((int)below(helpers.n));
}

/* Wait up to MS for helper PID to end; its status, or -1 if it did not
 * (it is still running: the caller decides). */
static int helper_wait(pid_t pid, long ms)
{
	int status;
	for (long end = now_ms() + ms;; sleep_ms(1)) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			for (int i = 0; i < helpers.n; i++)
				if (helpers.pid[i] == pid)
					helpers.pid[i] = helpers.pid[--helpers.n];
			return status;
		}
		if (now_ms() > end)
			return -1;
	}
}

/* Let helpers reach their blocking call, or not: 0 to 2 ms. */
static void settle(void)
{
	long ms = (long)below(3);
	if (ms)
		sleep_ms(ms);
	else
		raw_call(__NR_sched_yield, 0, 0, 0);
}

/* Shuffle N ints (random teardown orders). */
static void shuffle(int *v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)below((uint64_t)i + 1), t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* --- SCM_RIGHTS. --- */

#define SCM_MAX 8 /* fds in one message */

/* Send one byte (or none) with N fds over SOCK, never blocking. */
static long send_fds(int sock, const int *fds, int n, bool empty)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(SCM_MAX * sizeof(int))];
	} ctl;
	struct iovec v = {"F", empty ? 0 : 1};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = &ctl};
	n = n < SCM_MAX ? n : SCM_MAX;
	m.msg_controllen = CMSG_SPACE(n * sizeof(int));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(&ctl.h), fds, n * sizeof(int));
	if (n == 0)
		m.msg_control = NULL, m.msg_controllen = 0;
	return sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Receive one message into FDS (up to SCM_MAX); the count of fds received,
 * or -1.  *FLAGS gets msg_flags. */
static int recv_fds(int sock, int *fds, int flags, int *msg_flags)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(SCM_MAX * sizeof(int))];
	} ctl;
	char byte[16];
	struct iovec v = {byte, sizeof byte};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof ctl};
	int n = 0;
	if (recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC) < 0)
		return -1;
	*msg_flags = m.msg_flags;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0;
			     i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && n < SCM_MAX; i++)
				memcpy(&fds[n++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	return n;
}

/* --- Names and resource limits. --- */

/* An AF_UNIX address in the worker's directory (the scenario's cwd). */
static socklen_t unix_name(struct sockaddr_un *u, const char *tag, int n)
{
	memset(u, 0, sizeof *u);
	u->sun_family = AF_UNIX;
	snprintf(u->sun_path, sizeof u->sun_path, "%s-%d-%d", tag, (int)getpid(), n);
	unlink(u->sun_path);
	return sizeof *u;
}

static void loopback(struct sockaddr_in *in)
{
	memset(in, 0, sizeof *in);
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* An inet address to bind, port 0: 127.0.0.1, ::1 or a dual-stack :: (whose
 * IPv4 and IPv6 peers share the port table); its length. */
static socklen_t inet_loopback(struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	if (one_in(2)) {
		loopback((struct sockaddr_in *)ss);
		return sizeof(struct sockaddr_in);
	}
	memset(in6, 0, sizeof *in6);
	in6->sin6_family = AF_INET6;
	in6->sin6_addr.s6_addr[15] = one_in(2); /* ::1 or :: */
	return sizeof *in6;
}

static void set_nofile(long soft)
{
	struct rlimit r;
	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_cur = (rlim_t)soft;
	if (r.rlim_max < r.rlim_cur)
		r.rlim_max = r.rlim_cur;
	setrlimit(RLIMIT_NOFILE, &r);
}

/* The lowest fd not open (so the next open gets it). */
static int next_fd(void)
{
	int fd = dup(0);
	close(fd);
	return fd;
}

/* A scenario starts from a clean process whatever the fuzzing before did:
 * fds 0-2 on /dev/null, no other fd but the report pipe, signals unblocked
 * and default, a normal fd limit, its own random stream. */
static void scenario_reset(void)
{
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	close_range(3, REPORT_FD - 1, 0);
	close_range(REPORT_FD + 1, ~0U, 0);
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
	for (int sig = 1; sig < 64; sig++)
		if (sig != LSIGKILL && sig != LSIGSTOP)
			lsig_action(sig, 0, 0, 0);
	set_nofile(1024);
	fz.rng ^= (uint64_t)getpid() << 32;
	helpers.n = 0;
	helpers.faulting = false;
}

#endif
