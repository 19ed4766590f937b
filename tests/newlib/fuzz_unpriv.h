/* The fuzzer as an ordinary user (docs/robustness.md, "Unprivileged"):
 * with the mode on, each worker drops to uid and gid 1000 after its set-up,
 * and the class `escalate` tries, each time it plays, all of what
 * such a user must never manage: read or write a root-owned 0600 file,
 * signal a root process, change anything under /etc, raise its ids,
 * groups or capabilities, mount, chroot, bind a port below 1024.  Each
 * attempt is counted; one that succeeds, or is refused with another errno
 * than Linux's, is a finding.  Played as root (the default mode, and on
 * Linux), the scenario process drops to the user itself first.
 * Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_UNPRIV_H
#define FUZZ_UNPRIV_H

#include <sys/stat.h>

#define UNPRIV_ID   1000
#define SECRET_TEXT "root's secret\n"
#define NOT_TRIED   LONG_MIN /* an attempt that could not be made */
/* Linux's open flags for the raw calls (newlib's O_* differ). */
#define LINUX_O_CREAT  0100
#define LINUX_O_TRUNC  01000
#define LINUX_O_APPEND 02000

/* Attempts made, and one that was not refused as Linux refuses it
 * (WHICH: its index in escalations[], -1 for ids found raised after). */
static void send_attempts(int n)
{
	struct report r = {REPORT_MAGIC, fz.worker, 0, F_NONE, fz.playing, 0, n, -1, 0};
	raw_call(__NR_write, REPORT_FD, (long)&r, sizeof r);
}

static void send_escalation(int which, enum finding f, long result)
{
	struct report r = {REPORT_MAGIC, fz.worker, 0, f, fz.playing, 0, 0, which, (int)result};
	raw_call(__NR_write, REPORT_FD, (long)&r, sizeof r);
}

/* Set by the root parent before any worker starts; inherited by all. */
static struct {
	bool on;	 /* workers drop to UNPRIV_ID after their set-up */
	char secret[48]; /* a root 0600 file in /tmp; "" if there is none */
	pid_t sentinel;	 /* a root process that only waits to be killed; 0: none */
} unpriv;

struct cap_header_u {
	uint32_t version;
	int pid;
};
struct cap_data_u {
	uint32_t effective, permitted, inheritable;
};
#define CAP_V3 0x20080522

/* Whether every id is UNPRIV_ID, no supplementary group, no capability. */
static bool still_user(void)
{
	uint32_t r = 0, e = 0, s = 0, g[2] = {0, 0}, n;
	struct cap_header_u h = {CAP_V3, 0};
	struct cap_data_u d[2];
	bool ids = raw_call(__NR_getresuid, (long)&r, (long)&e, (long)&s) == 0 && r == UNPRIV_ID &&
		   e == UNPRIV_ID && s == UNPRIV_ID &&
		   raw_call(__NR_getresgid, (long)&r, (long)&e, (long)&s) == 0 && r == UNPRIV_ID &&
		   e == UNPRIV_ID && s == UNPRIV_ID;
	bool fs = raw_call(__NR_setfsuid, -1, 0, 0) == UNPRIV_ID &&
		  raw_call(__NR_setfsgid, -1, 0, 0) == UNPRIV_ID;

	n = (uint32_t)raw_call(__NR_getgroups, 2, (long)g, 0);
	return ids && fs && n == 0 && raw_call(__NR_capget, (long)&h, (long)d, 0) == 0 &&
	       !(d[0].effective | d[1].effective | d[0].permitted | d[1].permitted);
}

/* setgroups to none, setresgid, setresuid: Linux's order, the groups and
 * gids while the caller still may change them. */
static bool drop_to_user(void)
{
	return raw_call(__NR_setgroups, 0, 0, 0) == 0 &&
	       raw_call(__NR_setresgid, UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) == 0 &&
	       raw_call(__NR_setresuid, UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) == 0 && still_user();
}

/* --- The root side: made by the parent before the workers, checked after. --- */

static _Noreturn void sentinel_life(void)
{
	for (;;)
		raw_call(__NR_pause, 0, 0, 0);
}

/* The root file and the root process the attempts aim at (as root only). */
static void unpriv_setup(void)
{
	if (raw_call(__NR_geteuid, 0, 0, 0) != 0)
		return;
	snprintf(unpriv.secret, sizeof unpriv.secret, "/tmp/fuzz-secret-%d", (int)getpid());
	int fd = open(unpriv.secret, O_CREAT | O_EXCL | O_WRONLY, 0600);
	if (fd < 0 || write(fd, SECRET_TEXT, strlen(SECRET_TEXT)) < 0 || close(fd) < 0)
		unpriv.secret[0] = '\0';
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		sentinel_life();
	unpriv.sentinel = pid > 0 ? pid : 0;
}

/* True if the root file and the sentinel came through untouched; both go. */
static bool unpriv_teardown(void)
{
	char buf[64] = "";
	struct stat st;
	bool intact = true;

	if (unpriv.secret[0]) {
		int fd = open(unpriv.secret, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		intact = stat(unpriv.secret, &st) == 0 && st.st_uid == 0 &&
			 (st.st_mode & 07777) == 0600 && !strcmp(buf, SECRET_TEXT);
		unlink(unpriv.secret);
	}
	if (unpriv.sentinel) {
		int status = 0;
		intact &= kill(unpriv.sentinel, SIGKILL) == 0 &&
			  waitpid(unpriv.sentinel, &status, 0) == unpriv.sentinel &&
			  WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	}
	return intact;
}

/* --- The attempts: each returns the raw result, -errno when refused. --- */

static long try_read_secret(void)
{
	return raw_call(__NR_open, (long)unpriv.secret, O_RDONLY, 0);
}
static long try_write_secret(void)
{
	return raw_call(__NR_open, (long)unpriv.secret, O_WRONLY, 0);
}
static long try_truncate_open_secret(void)
{
	return raw_call(__NR_open, (long)unpriv.secret, O_RDWR | LINUX_O_TRUNC, 0);
}
static long try_truncate_secret(void)
{
	return raw_call(__NR_truncate, (long)unpriv.secret, 0, 0);
}
static long try_chmod_secret(void)
{
	return raw_call(__NR_chmod, (long)unpriv.secret, 0666, 0);
}
static long try_chown_secret(void)
{
	return raw_call(__NR_chown, (long)unpriv.secret, UNPRIV_ID, UNPRIV_ID);
}
static long try_unlink_secret(void) /* /tmp is sticky */
{
	return raw_call(__NR_unlink, (long)unpriv.secret, 0, 0);
}
static long try_null_signal(void)
{
	return raw_call(__NR_kill, unpriv.sentinel, 0, 0);
}
static long try_kill(void)
{
	return raw_call(__NR_kill, unpriv.sentinel, SIGKILL, 0);
}
static long try_tgkill(void)
{
	const long a[6] = {unpriv.sentinel, unpriv.sentinel, SIGTERM};
	return raw_syscall(__NR_tgkill, a);
}
static long try_sigqueue(void)
{
	int info[32] = {SIGUSR1, 0, -1 /* SI_QUEUE */};
	return raw_call(__NR_rt_sigqueueinfo, unpriv.sentinel, SIGUSR1, (long)info);
}
static long try_create_in_etc(void)
{
	return raw_call(__NR_open, (long)"/etc/fuzz-escalate", LINUX_O_CREAT | O_WRONLY, 0644);
}
static long try_write_passwd(void)
{
	return raw_call(__NR_open, (long)"/etc/passwd", O_WRONLY | LINUX_O_APPEND, 0);
}
static long try_mkdir_in_etc(void)
{
	return raw_call(__NR_mkdir, (long)"/etc/fuzz-escalate", 0755, 0);
}
static long try_unlink_passwd(void)
{
	return raw_call(__NR_unlink, (long)"/etc/passwd", 0, 0);
}
static long try_rename_passwd(void)
{
	return raw_call(__NR_rename, (long)"/etc/passwd", (long)"/etc/passwd.fuzz", 0);
}
static long try_symlink_in_etc(void)
{
	return raw_call(__NR_symlink, (long)"/tmp", (long)"/etc/fuzz-escalate", 0);
}
static long try_chmod_etc(void)
{
	return raw_call(__NR_chmod, (long)"/etc", 0777, 0);
}
static long try_setuid(void)
{
	return raw_call(__NR_setuid, 0, 0, 0);
}
static long try_setreuid(void)
{
	return raw_call(__NR_setreuid, -1, 0, 0);
}
static long try_setresuid_real(void)
{
	return raw_call(__NR_setresuid, 0, -1, -1);
}
static long try_setresuid_effective(void)
{
	return raw_call(__NR_setresuid, -1, 0, -1);
}
static long try_setresuid_saved(void)
{
	return raw_call(__NR_setresuid, -1, -1, 0);
}
static long try_setgid(void)
{
	return raw_call(__NR_setgid, 0, 0, 0);
}
static long try_setresgid(void)
{
	return raw_call(__NR_setresgid, -1, 0, -1);
}
static long try_setgroups(void)
{
	uint32_t root_group = 0;
	return raw_call(__NR_setgroups, 1, (long)&root_group, 0);
}
/* setfsuid never fails: it returns the old fs uid; refused means unchanged. */
static long try_setfsuid(void)
{
	raw_call(__NR_setfsuid, 0, 0, 0);
	return raw_call(__NR_setfsuid, -1, 0, 0) == UNPRIV_ID ? -EPERM : 0;
}
static long try_capset(void)
{
	struct cap_header_u h = {CAP_V3, 0};
	struct cap_data_u d[2] = {{~0U, ~0U, 0}, {0xff, 0xff, 0}};
	return raw_call(__NR_capset, (long)&h, (long)d, 0);
}
static long try_mount(void)
{
	const long a[6] = {(long)"none", (long)"/tmp", (long)"tmpfs", 0, 0};
	return raw_syscall(__NR_mount, a);
}
static long try_umount(void)
{
	return raw_call(__NR_umount2, (long)"/proc", 2 /* MNT_DETACH */, 0);
}
static long try_chroot(void)
{
	return raw_call(__NR_chroot, (long)"/", 0, 0);
}
static long try_sethostname(void)
{
	return raw_call(__NR_sethostname, (long)"owned", 5, 0);
}
static long try_bind_low_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(80),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	long fd = raw_call(__NR_socket, AF_INET, SOCK_STREAM, 0), r;

	if (fd < 0)
		return NOT_TRIED;
	r = raw_call(__NR_bind, fd, (long)&a, sizeof a);
	raw_call(__NR_close, fd, 0, 0);
	return r;
}

struct escalation {
	const char *what;
	long (*attempt)(void);
	int err;       /* Linux's errno */
	int target;    /* needs the root file or the sentinel */
	bool gives_fd; /* an open: a success is an fd to close */
};

#define ON_SECRET   1
#define ON_SENTINEL 2
static const struct escalation escalations[] = {
    {"open a root 0600 file for reading", try_read_secret, EACCES, ON_SECRET, true},
    {"open it for writing", try_write_secret, EACCES, ON_SECRET, true},
    {"open it with O_TRUNC", try_truncate_open_secret, EACCES, ON_SECRET, true},
    {"truncate it", try_truncate_secret, EACCES, ON_SECRET, false},
    {"chmod it", try_chmod_secret, EPERM, ON_SECRET, false},
    {"chown it", try_chown_secret, EPERM, ON_SECRET, false},
    {"unlink it from sticky /tmp", try_unlink_secret, EPERM, ON_SECRET, false},
    {"kill(root, 0)", try_null_signal, EPERM, ON_SENTINEL, false},
    {"kill(root, SIGKILL)", try_kill, EPERM, ON_SENTINEL, false},
    {"tgkill(root, SIGTERM)", try_tgkill, EPERM, ON_SENTINEL, false},
    {"rt_sigqueueinfo(root, SIGUSR1)", try_sigqueue, EPERM, ON_SENTINEL, false},
    {"create a file in /etc", try_create_in_etc, EACCES, 0, true},
    {"open /etc/passwd for writing", try_write_passwd, EACCES, 0, true},
    {"mkdir in /etc", try_mkdir_in_etc, EACCES, 0, false},
    {"unlink /etc/passwd", try_unlink_passwd, EACCES, 0, false},
    {"rename /etc/passwd", try_rename_passwd, EACCES, 0, false},
    {"symlink in /etc", try_symlink_in_etc, EACCES, 0, false},
    {"chmod /etc", try_chmod_etc, EPERM, 0, false},
    {"setuid(0)", try_setuid, EPERM, 0, false},
    {"setreuid(-1, 0)", try_setreuid, EPERM, 0, false},
    {"setresuid(0, -1, -1)", try_setresuid_real, EPERM, 0, false},
    {"setresuid(-1, 0, -1)", try_setresuid_effective, EPERM, 0, false},
    {"setresuid(-1, -1, 0)", try_setresuid_saved, EPERM, 0, false},
    {"setgid(0)", try_setgid, EPERM, 0, false},
    {"setresgid(-1, 0, -1)", try_setresgid, EPERM, 0, false},
    {"setgroups({0})", try_setgroups, EPERM, 0, false},
    {"setfsuid(0)", try_setfsuid, EPERM, 0, false},
    {"capset(everything)", try_capset, EPERM, 0, false},
    {"mount a tmpfs on /tmp", try_mount, EPERM, 0, false},
    {"umount /proc", try_umount, EPERM, 0, false},
    {"chroot(/)", try_chroot, EPERM, 0, false},
    {"sethostname", try_sethostname, EPERM, 0, false},
    {"bind port 80", try_bind_low_port, EACCES, 0, false},
};
#define NESCALATIONS (sizeof escalations / sizeof escalations[0])

/* One attempt: refused with Linux's errno, or a finding naming it.
 * False if it could not be made. */
static bool attempt_one(const struct escalation *x)
{
	long r = x->attempt();

	/* An open takes its fd first, as Linux's: at the fd limit the
	 * permission is never asked. */
	if (r == NOT_TRIED || (x->gives_fd && (r == -EMFILE || r == -ENFILE)))
		return false;
	if (r == -x->err)
		return true;
	if (r >= 0 && x->gives_fd)
		raw_call(__NR_close, r, 0, 0);
	send_escalation((int)(x - escalations), r >= 0 ? F_ESCALATED : F_ESCALATION_ERRNO, r);
	return true;
}

/* The soft fd limit up to the hard one (anyone may), for the opens. */
static void open_fds_allowed(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Every attempt once, from a random one on (the order varies), then the
 * ids must still be the user's. */
static void scenario_escalate(void)
{
	size_t first = below(NESCALATIONS);
	int made = 0;

	if (raw_call(__NR_geteuid, 0, 0, 0) == 0 && !drop_to_user())
		return;
	open_fds_allowed(); /* the args fuzzing may have lowered it */
	for (size_t i = 0; i < NESCALATIONS; i++) {
		const struct escalation *x = &escalations[(first + i) % NESCALATIONS];
		if ((x->target == ON_SECRET && !unpriv.secret[0]) ||
		    (x->target == ON_SENTINEL && !unpriv.sentinel))
			continue;
		made += attempt_one(x);
	}
	if (!still_user())
		send_escalation(-1, F_ESCALATED, 0);
	send_attempts(made);
}

#endif
