/* /proc/sys: the files programs and test libraries read are there and
 * tell the truth (ostype, osrelease and hostname are uname's, a new pid is
 * below pid_max, setrlimit stops at nr_open, and fork and unshare at a
 * table past it); root's writes take effect
 * where Linux lets root write (pid_max changes the pids handed out,
 * hostname is uname's nodename, pipe-max-size is rounded as Linux's),
 * with Linux's errors and file-position rules; read-only files refuse to
 * open for writing; net/ipv4/conf's tags are stored as Linux's.  Writes change the whole system, so
 * they run in fdkernel only and put every value back. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "testutil.h"

#define SYS "/proc/sys/"

static const char *const files[] = {
    "kernel/pid_max",	"kernel/tainted",  "kernel/core_pattern", "kernel/ostype",
    "kernel/osrelease", "kernel/hostname", "kernel/domainname",	  "kernel/threads-max",
    "fs/pipe-max-size", "fs/file-max",	   "fs/nr_open",	  "vm/overcommit_memory",
};

/* The file's text, or "" if it cannot be read. */
static char *sys_read(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof path, SYS "%s", name);
	if (read_text(path, buf, size) < 0)
		buf[0] = '\0';
	return buf;
}

static long sys_long(const char *name)
{
	char buf[64];

	return strtol(sys_read(name, buf, sizeof buf), NULL, 0);
}

/* One write(2) of text to the file: its result, errno kept. */
static long sys_write(const char *name, const char *text)
{
	char path[128];
	int fd, err;
	long n;

	snprintf(path, sizeof path, SYS "%s", name);
	if ((fd = open(path, O_WRONLY)) < 0)
		return -1;
	n = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	errno = err;
	return n;
}

/* Whether text is the string s and a newline. */
static bool is_line(const char *text, const char *s)
{
	size_t len = strlen(s);

	return !strncmp(text, s, len) && !strcmp(text + len, "\n");
}

static void test_files_read(void)
{
	struct utsname u;
	char buf[256];
	bool good = true;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len = strlen(sys_read(files[i], buf, sizeof buf));
		if (!len || buf[len - 1] != '\n') {
			diag("%s: \"%s\"", files[i], buf);
			good = false;
		}
	}
	ok(good, "the %zu files read a line each", sizeof files / sizeof files[0]);
	require(uname(&u) == 0, "uname");
	ok(is_line(sys_read("kernel/ostype", buf, sizeof buf), u.sysname) &&
	       is_line(sys_read("kernel/osrelease", buf, sizeof buf), u.release),
	   "ostype and osrelease are uname's sysname and release");
	ok(is_line(sys_read("kernel/hostname", buf, sizeof buf), u.nodename) &&
	       is_line(sys_read("kernel/domainname", buf, sizeof buf), u.domainname),
	   "hostname and domainname are uname's");
	long pipe_max = sys_long("fs/pipe-max-size");
	ok(pipe_max >= 4096 && !(pipe_max & (pipe_max - 1)), "pipe-max-size %ld is a power of two",
	   pipe_max);
	long ov = sys_long("vm/overcommit_memory");
	ok(ov >= 0 && ov <= 2 && sys_long("kernel/threads-max") >= 20 &&
	       sys_long("fs/file-max") > 0,
	   "overcommit_memory %ld is a mode, threads-max and file-max positive", ov);
}

/* A number reads whole at position 0, then EOF (Linux's proc_dointvec). */
static void test_int_position(void)
{
	char c, rest[16];
	int fd = open(SYS "kernel/pid_max", O_RDONLY);

	require(fd >= 0, "open pid_max");
	ok(read(fd, &c, 1) == 1 && c >= '1' && c <= '9' && read(fd, rest, sizeof rest) == 0,
	   "pid_max read a byte at a time: one digit, then EOF");
	close(fd);
}

static void test_listing(void)
{
	DIR *d = opendir(SYS "kernel");
	struct dirent *e;
	int pid_max = 0, ostype = 0;

	while (d && (e = readdir(d))) {
		pid_max += !strcmp(e->d_name, "pid_max");
		ostype += !strcmp(e->d_name, "ostype");
	}
	if (d)
		closedir(d);
	ok(pid_max == 1 && ostype == 1, "/proc/sys/kernel lists pid_max and ostype once each");
	d = opendir(SYS);
	int dirs = 0;
	while (d && (e = readdir(d)))
		dirs += (!strcmp(e->d_name, "kernel") || !strcmp(e->d_name, "fs") ||
			 !strcmp(e->d_name, "vm")) &&
			e->d_type == DT_DIR;
	if (d)
		closedir(d);
	ok(dirs == 3, "/proc/sys lists kernel, fs and vm as directories");
}

/* Read-only files: EACCES when opened for writing, root too. */
static void test_read_only(void)
{
	struct stat st;
	bool refused = true;
	const char *ro[] = {"kernel/ostype", "kernel/osrelease", "kernel/tainted",
			    "kernel/threads-max", "fs/file-max"};
	size_t n = on_fdkernel() ? 5 : 2; /* Linux lets root write the last three */

	for (size_t i = 0; i < n; i++) {
		char path[128];
		snprintf(path, sizeof path, SYS "%s", ro[i]);
		int fd = open(path, O_WRONLY);
		refused &= fd < 0 && errno == EACCES;
		if (fd >= 0)
			close(fd);
	}
	ok(refused, "opening a read-only file for writing: EACCES");
	ok(stat(SYS "kernel/ostype", &st) == 0 && (st.st_mode & 0777) == 0444 &&
	       stat(SYS "kernel/pid_max", &st) == 0 && (st.st_mode & 0777) == 0644,
	   "ostype is 0444, pid_max 0644");
}

/* A child's pid. */
static int child_pid(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	return pid;
}

static void test_pid_max(void)
{
	long old = sys_long("kernel/pid_max");
	int first = child_pid(), max = first + 20 > 320 ? first + 20 : 320, prev = first;
	int wrapped_to = 0;
	bool below = true;
	char text[32];

	ok(first > 0 && first < old, "a new pid %d is below pid_max %ld", first, old);
	if (!on_fdkernel()) {
		for (int i = 0; i < 5; i++)
			skip("host: writes change the whole system", "pid_max writes");
		return;
	}
	snprintf(text, sizeof text, "%d\n", max);
	is_int(sys_write("kernel/pid_max", text), strlen(text), "pid_max takes %d", max);
	/* past the limit, and 40 more */
	for (int i = 0; i < max - first + 40; i++) {
		int pid = child_pid();
		below &= pid > 0 && pid < max;
		if (pid < prev && !wrapped_to)
			wrapped_to = pid;
		prev = pid;
	}
	ok(below && wrapped_to >= 300, "%d forks: every pid below %d, wrapped to %d (300 and up)",
	   max - first + 40, max, wrapped_to);
	errno = 0;
	ok(sys_write("kernel/pid_max", "300") < 0 && errno == EINVAL &&
	       sys_write("kernel/pid_max", "4194305") < 0 && errno == EINVAL &&
	       sys_write("kernel/pid_max", "12abc") < 0 && errno == EINVAL &&
	       sys_write("kernel/pid_max", " \n") < 0 && errno == EINVAL &&
	       sys_long("kernel/pid_max") == max,
	   "out of range, garbage, nothing: EINVAL, value kept");
	ok(sys_write("kernel/pid_max", " 0x400 \n") == 8 && sys_long("kernel/pid_max") == 1024,
	   "hex with spaces around: taken");
	/* A second write on one fd is at position 3: taken, ignored. */
	int fd = open(SYS "kernel/pid_max", O_WRONLY);
	ok(fd >= 0 && write(fd, "500", 3) == 3 && write(fd, "600", 3) == 3 &&
	       sys_long("kernel/pid_max") == 500,
	   "a write past position 0 is taken and ignored");
	close(fd);
	snprintf(text, sizeof text, "%ld", old);
	sys_write("kernel/pid_max", text);
}

/* Whether a write of len 'x's to the string file name is taken whole
 * and keeps keep bytes of it. */
static bool long_write_keeps(const char *name, size_t len, size_t keep)
{
	char text[256], buf[256];

	memset(text, 'x', len);
	text[len] = '\0';
	return sys_write(name, text) == (long)len &&
	       strlen(sys_read(name, buf, sizeof buf)) == keep + 1;
}

static void test_hostname(void)
{
	struct utsname u;
	char buf[128], longname[100];

	if (!on_fdkernel()) {
		for (int i = 0; i < 4; i++)
			skip("host: writes change the whole system", "hostname writes");
		return;
	}
	ok(sys_write("kernel/hostname", "testhost\n") == 9 && uname(&u) == 0 &&
	       !strcmp(u.nodename, "testhost"),
	   "hostname written: uname's nodename");
	ok(sethostname("abc", 3) == 0 &&
	       is_line(sys_read("kernel/hostname", buf, sizeof buf), "abc"),
	   "sethostname: the file shows it");
	ok(long_write_keeps("kernel/hostname", 99, 64), "a 99-byte write keeps 64 bytes");
	memset(longname, 'x', sizeof longname);
	longname[sizeof longname - 1] = '\0';
	errno = 0;
	ok(sethostname(longname, 65) < 0 && errno == EINVAL && sethostname("x", -1) < 0 &&
	       errno == EINVAL && setdomainname(longname, 65) < 0 && errno == EINVAL,
	   "sethostname, setdomainname: more than 64 bytes or negative: EINVAL");
	sethostname("fdkernel", 8);
}

/* pipe-max-size as Linux's round_pipe_size; core_pattern stored. */
static void test_pipe_core(void)
{
	char buf[256];

	if (!on_fdkernel()) {
		for (int i = 0; i < 4; i++)
			skip("host: writes change the whole system", "pipe-max-size, core_pattern");
		return;
	}
	ok(sys_write("fs/pipe-max-size", "5000") == 4 && sys_long("fs/pipe-max-size") == 8192 &&
	       sys_write("fs/pipe-max-size", "0") == 1 && sys_long("fs/pipe-max-size") == 4096,
	   "pipe-max-size: 5000 is 8192, 0 a page");
	errno = 0;
	ok(sys_write("fs/pipe-max-size", "2147483649") < 0 && errno == EINVAL &&
	       sys_write("fs/pipe-max-size", "-1") < 0 && errno == EINVAL,
	   "pipe-max-size over 2^31 or negative: EINVAL");
	sys_write("fs/pipe-max-size", "1048576");
	ok(sys_write("kernel/core_pattern", "core.%p\n") == 8 &&
	       is_line(sys_read("kernel/core_pattern", buf, sizeof buf), "core.%p"),
	   "core_pattern stored");
	ok(long_write_keeps("kernel/core_pattern", 199, 127), "a 199-byte core_pattern keeps 127");
	sys_write("kernel/core_pattern", "core");
}

/* The tag checks in a network name space of its own (the host's child
 * unshares one; fdkernel has only one, and this boot's first run owns
 * it): a bit per failed check. */
static int net_tag_checks(void)
{
	const char *lo = "net/ipv4/conf/lo/tag", *dflt = "net/ipv4/conf/default/tag";
	int bad = 0;

	if (unshare(CLONE_NEWNET) != 0 && !on_fdkernel())
		return 0x80; /* no new name space: skipped */
	bad |= sys_long(lo) != 0 || sys_long(dflt) != 0 || sys_long("net/ipv4/conf/all/tag") != 0;
	bad |= (sys_write(dflt, "3") != 1 || sys_long(lo) != 3) << 1;
	bad |= (sys_write(lo, "5\n") != 2 || sys_long(lo) != 5 || sys_long(dflt) != 3) << 2;
	bad |= (sys_write(dflt, "9") != 1 || sys_long(lo) != 5) << 3;
	errno = 0;
	bad |= (sys_write(lo, "x") != -1 || errno != EINVAL || sys_long(lo) != 5) << 4;
	sys_write(dflt, "0");
	sys_write(lo, "0");
	return bad;
}

/* net/ipv4/conf/{all,default,lo}/tag: numbers root stores; default's
 * value goes to lo until lo's own is written (Linux's devinet_conf_proc). */
static void test_net_tag(void)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(net_tag_checks());
	waitpid(pid, &status, 0);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 0x7f;
	if (status == 0x80) {
		for (int i = 0; i < 5; i++)
			skip("host: unshare(CLONE_NEWNET) refused", "net/ipv4/conf tags");
		return;
	}
	ok(!(status & 1), "all, default and lo tags: 0 at first");
	ok(!(status & 2), "a write to default/tag sets lo's too");
	ok(!(status & 4), "a write to lo/tag: lo's alone");
	ok(!(status & 8), "then default's no longer reaches lo");
	ok(!(status & 16), "a tag that is no number: EINVAL, kept");
}

/* unshare(CLONE_FILES) in a process sharing its table: the copy's errno. */
static int unshare_files_in_sharer(void)
{
	long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, NULL, NULL, 0);
	int status;

	if (pid == 0)
		_exit(unshare(CLONE_FILES) == 0 ? 0 : errno);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status)
									       : -1;
}

/* A table with an fd open past nr_open (in words of 64 fds) cannot be
 * copied, as Linux's dup_fd: fork and unshare(CLONE_FILES) give EMFILE. */
static void test_table_past_nr_open(void)
{
	pid_t pid;
	int dup = dup2(2, 70), wrote = sys_write("fs/nr_open", "64"), fork_err, past, after;

	errno = 0;
	if ((pid = fork()) == 0)
		_exit(0);
	fork_err = pid < 0 ? errno : 0;
	past = unshare_files_in_sharer();
	close(70);
	if ((pid = fork()) == 0)
		_exit(0);
	after = pid > 0 && waitpid(pid, NULL, 0) == pid ? unshare_files_in_sharer() : -2;
	if (!ok(dup == 70 && wrote == 2 && fork_err == EMFILE && past == EMFILE && after == 0,
		"fd 70 open, nr_open 64: fork and unshare(CLONE_FILES) EMFILE; closed, both work"))
		diag("dup2 %d, write %d, fork errno %d, unshare errno %d, then %d", dup, wrote,
		     fork_err, past, after);
}

/* setrlimit(RLIMIT_NOFILE) stops at nr_open: EPERM above it. */
static void test_nr_open(void)
{
	struct rlimit old, rl;
	long nr_open = sys_long("fs/nr_open");

	require(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
	rl = (struct rlimit){old.rlim_cur, (rlim_t)nr_open + 1};
	errno = 0;
	ok(setrlimit(RLIMIT_NOFILE, &rl) < 0 && errno == EPERM,
	   "RLIMIT_NOFILE hard limit above nr_open %ld: EPERM", nr_open);
	if (!on_fdkernel()) {
		skip("host: writes change the whole system", "nr_open written");
		skip("host: writes change the whole system", "a table past nr_open: EMFILE");
		return;
	}
	bool good = sys_write("fs/nr_open", "4096") == 4;
	rl = (struct rlimit){64, 4097};
	good &= setrlimit(RLIMIT_NOFILE, &rl) < 0 && errno == EPERM;
	rl.rlim_max = 4096;
	good &= setrlimit(RLIMIT_NOFILE, &rl) == 0;
	good &= sys_write("fs/nr_open", "63") < 0 && errno == EINVAL;
	ok(good, "nr_open 4096: a hard limit of 4097 EPERM, 4096 taken; 63 EINVAL");
	char text[32];
	snprintf(text, sizeof text, "%ld", nr_open);
	sys_write("fs/nr_open", text);
	setrlimit(RLIMIT_NOFILE, &old);
	test_table_past_nr_open();
	sys_write("fs/nr_open", text);
}

int main(void)
{
	plan(32);
	test_files_read();
	test_int_position();
	test_listing();
	test_read_only();
	test_pid_max();
	test_hostname();
	test_pipe_core();
	test_nr_open();
	test_net_tag();
	return done();
}
