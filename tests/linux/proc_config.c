/* /proc/config.gz: the kernel's configuration as Linux's option names, in
 * gzip (zcat reads it).  An option that stands for system calls is set
 * exactly when the calls exist, a namespace option exactly when
 * unshare accepts its flag, a file system's exactly when
 * /proc/filesystems lists it, and loop devices' when /dev/loop-control
 * is there: on Linux and on fdkernel alike (a module, =m, may be
 * either). */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"

static char text[1 << 20]; /* a distribution's config is ~250 KiB */

/* The value of CONFIG_<name> ("y", "100"), or NULL if it is not set. */
static const char *option(const char *name)
{
	static char value[64];
	char want[80];
	const char *p = text;
	size_t n = snprintf(want, sizeof want, "CONFIG_%s=", name);

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, want, n)) {
			size_t len = strcspn(p + n, "\n");
			snprintf(value, sizeof value, "%.*s", (int)len, p + n);
			return value;
		}
	return NULL;
}

/* Each line a comment, empty, or CONFIG_NAME=value. */
static bool well_formed(void)
{
	for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t name = strspn(p + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (*p == '#' || *p == '\n')
			continue;
		if (strncmp(p, "CONFIG_", 7) || !name || p[7 + name] != '=') {
			diag("bad line: %.60s", p);
			return false;
		}
	}
	return true;
}

#define EXISTS(call) ((call) != -1 || errno != ENOSYS)

/* Options that stand for system calls, with a probe that fails at once
 * (bad arguments) when the call exists and with ENOSYS when it does not. */
static bool probe(const char *opt)
{
	if (!strcmp(opt, "EVENTFD"))
		return EXISTS(syscall(SYS_eventfd2, 0, -1));
	if (!strcmp(opt, "EPOLL"))
		return EXISTS(syscall(SYS_epoll_create1, -1));
	if (!strcmp(opt, "SIGNALFD"))
		return EXISTS(syscall(SYS_signalfd4, -1, NULL, 8, -1));
	if (!strcmp(opt, "TIMERFD"))
		return EXISTS(syscall(SYS_timerfd_create, -1, 0));
	if (!strcmp(opt, "MEMFD_CREATE"))
		return EXISTS(syscall(SYS_memfd_create, NULL, 0));
	if (!strcmp(opt, "INOTIFY_USER"))
		return EXISTS(syscall(SYS_inotify_init1, -1));
	if (!strcmp(opt, "FILE_LOCKING"))
		return EXISTS(syscall(SYS_flock, -1, 0));
	if (!strcmp(opt, "AIO"))
		return EXISTS(syscall(SYS_io_setup, 0, NULL));
	if (!strcmp(opt, "IO_URING"))
		return EXISTS(syscall(SYS_io_uring_setup, 0, NULL));
	if (!strcmp(opt, "KCMP"))
		return EXISTS(syscall(SYS_kcmp, 0, 0, -1, 0, 0));
	if (!strcmp(opt, "MEMBARRIER"))
		return EXISTS(syscall(SYS_membarrier, -1, 0, 0));
	if (!strcmp(opt, "SECCOMP"))
		return EXISTS(syscall(SYS_seccomp, -1, 0, NULL));
	if (!strcmp(opt, "USERFAULTFD"))
		return EXISTS(syscall(SYS_userfaultfd, -1));
	if (!strcmp(opt, "POSIX_TIMERS"))
		return EXISTS(syscall(SYS_timer_create, -1, NULL, NULL));
	if (!strcmp(opt, "SYSVIPC"))
		return EXISTS(syscall(SYS_shmget, 0, 0, 0)) &&
		       EXISTS(syscall(SYS_semget, 0, -1, 0)) &&
		       EXISTS(syscall(SYS_msgget, 0x7ff0c0f1, 0));
	return false;
}

static const char *const by_calls[] = {
    "EVENTFD",	    "EPOLL",	    "SIGNALFD",	   "TIMERFD",	   "MEMFD_CREATE",
    "INOTIFY_USER", "FILE_LOCKING", "AIO",	   "IO_URING",	   "KCMP",
    "MEMBARRIER",   "SECCOMP",	    "USERFAULTFD", "POSIX_TIMERS", "SYSVIPC",
};

static int ns_flag;

static void try_unshare(void)
{
	_exit(unshare(ns_flag) == 0 ? 0 : errno == EINVAL ? 1 : 2);
}

/* Whether unshare(flag) is known to the kernel (in a child: the test's
 * own process stays where it is).  EINVAL is Linux's answer without it. */
static bool ns_supported(int flag)
{
	ns_flag = flag;
	return !exited_with(child_status(try_unshare), 1);
}

static const struct {
	const char *opt;
	int flag;
} namespaces[] = {
    {"UTS_NS", CLONE_NEWUTS},
    {"IPC_NS", CLONE_NEWIPC},
    {"PID_NS", CLONE_NEWPID},
    {"NET_NS", CLONE_NEWNET},
    {"TIME_NS", 0x80 /* CLONE_NEWTIME */},
};

/* Whether /proc/filesystems lists type fs. */
static bool fs_listed(const char *fs)
{
	char line[128], *name;
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	while (f && !found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		name = strchr(line, '\t');
		found = name && !strcmp(name + 1, fs);
	}
	if (f)
		fclose(f);
	return found;
}

/* alt: another option that gives the type (Linux's ext4 driver can
 * serve ext2). */
static const struct {
	const char *opt, *alt, *fs;
} file_systems[] = {
    {"TMPFS", NULL, "tmpfs"},	     {"DEVTMPFS", NULL, "devtmpfs"},
    {"SYSFS", NULL, "sysfs"},	     {"EXT2_FS", "EXT4_USE_FOR_EXT2", "ext2"},
    {"UNIX98_PTYS", NULL, "devpts"},
};

/* An option (or alt) against what the system shows: set (y) when it has
 * it, not set when it has not; a module (m) may be either. */
static void option_matches(const char *opt, const char *alt, bool have, const char *what)
{
	const char *v = option(opt);

	if (!v && alt)
		v = option(alt);
	ok((v && !strcmp(v, "m")) || (v != NULL) == have, "CONFIG_%s %s, and %s %s", opt,
	   v ? v : "not set", what, have ? "is there" : "is not");
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

int main(void)
{
	char *argv[] = {"sh", "-c", "zcat /proc/config.gz", NULL},
	     *envp[] = {"PATH=/bin:/usr/bin", NULL};
	unsigned char magic[2] = {0};
	int fd = open("/proc/config.gz", O_RDONLY), status;

	if (fd < 0 && !on_fdkernel())
		skip_all("this Linux has no /proc/config.gz");
	plan(7 + N(by_calls) + N(namespaces) + N(file_systems));
	ok(fd >= 0 && read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b,
	   "/proc/config.gz opens and starts with gzip's magic");
	close(fd);
	status = run_capture("/bin/sh", argv, envp, text, sizeof text);
	ok(exited_with(status, 0) && strlen(text) > 100, "zcat reads it (status %#x, %zu bytes)",
	   status, strlen(text));
	ok(well_formed(), "every line a comment or CONFIG_NAME=value");
	ok(option("MMU") && option("64BIT") && option("X86_64") && !strcmp(option("MMU"), "y"),
	   "CONFIG_MMU, CONFIG_64BIT and CONFIG_X86_64 are set");
	ok(option("IKCONFIG_PROC") && option("PROC_FS"),
	   "and CONFIG_IKCONFIG_PROC, CONFIG_PROC_FS");
	bool cr = access("/proc/sys/kernel/ns_last_pid", F_OK) == 0 &&
		  access("/proc/sys/kernel/msg_next_id", F_OK) == 0;
	ok((option("CHECKPOINT_RESTORE") != NULL) == cr,
	   "CONFIG_CHECKPOINT_RESTORE set exactly when ns_last_pid and msg_next_id exist (%s)",
	   cr ? "they do" : "they do not");
	for (size_t i = 0; i < N(by_calls); i++) {
		bool set = option(by_calls[i]) != NULL, have = probe(by_calls[i]);
		ok(set == have, "CONFIG_%s %s, and its calls %s", by_calls[i],
		   set ? "set" : "not set", have ? "exist" : "are ENOSYS");
	}
	for (size_t i = 0; i < N(namespaces); i++) {
		bool set = option(namespaces[i].opt) != NULL,
		     have = ns_supported(namespaces[i].flag);
		ok(set == have, "CONFIG_%s %s, and unshare %s its flag", namespaces[i].opt,
		   set ? "set" : "not set", have ? "takes" : "refuses (EINVAL)");
	}
	for (size_t i = 0; i < N(file_systems); i++)
		option_matches(file_systems[i].opt, file_systems[i].alt,
			       fs_listed(file_systems[i].fs), file_systems[i].fs);
	option_matches("BLK_DEV_LOOP", NULL, access("/dev/loop-control", F_OK) == 0,
		       "/dev/loop-control");
	return done();
}
