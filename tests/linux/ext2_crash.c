/* A power cut during heavy writes (docs/ext2.md, "Write ordering"):
 * tests/harness/crash-check boots fdkernel with this program as init on
 * a fresh ext2 disk (/dev/vda) and kills QEMU in the middle of its
 * writes.  As init it mounts the disk and, while a child creates,
 * appends to, renames and removes files without ever syncing, writes
 * files one after the other under /synced, each fsync'd with its
 * directory (what Linux's ext2 needs for a name to last) before the
 * console is told "crash: synced N".  After the kill the host runs
 * `ext2_crash --check IMAGE` with N in CRASH_SYNCED: e2fsck -fy repairs the image (exit 0 or
 * 1: at worst counts and unattached inodes, nothing left for a person),
 * e2fsck -fn finds it clean afterwards, and each of the N files synced
 * reads back byte-exact (debugfs rdump).  e2fsck -p's answer on a copy
 * is reported, not judged: what preen repairs depends on where the cut
 * fell (a freed indirect block reused for data that reached the disk
 * before the inode that freed it is one preen leaves to -y, on Linux's
 * ext2 as here).  Anywhere else (the host's suite, the guest's) it skips. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blk_util.h"
#include "e2fs_util.h"
#include "testutil.h"

int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);

#define DISK	   "/dev/vda"
#define MNT	   "/tmp/crash"
#define CHURN_MAX  24 /* files the churn keeps at once, up to 2 MiB each */
#define SYNCED_MAX 100000

/* The size and bytes of synced file i: different for every file. */
static size_t synced_size(int i)
{
	return 1000 + (size_t)i * 7919 % 16000;
}

static void synced_fill(char *buf, int i)
{
	fill_pattern(buf, synced_size(i), (uint64_t)i * 131);
}

static void say(const char *fmt, int n)
{
	char line[64];
	int len = snprintf(line, sizeof line, fmt, n);

	if (write(1, line, len) != len)
		_exit(1);
}

/* The unsynced writer: files grown, rewritten, renamed and removed, and
 * directories made and removed, for ever. */
static __attribute__((noreturn)) void churn(void)
{
	static char buf[1 << 20];
	char name[64], to[64];

	memset(buf, 'c', sizeof buf);
	for (unsigned int i = 0;; i++) {
		int k = i % CHURN_MAX, fd;
		size_t len = (size_t)(i * 37 % 1024 + 1) * 1024;

		snprintf(name, sizeof name, MNT "/churn/%d", k);
		snprintf(to, sizeof to, MNT "/churn/r%d", k);
		if (i % 3 == 0) {
			rename(name, to);
			unlink(to);
		}
		fd = open(name, O_WRONLY | O_CREAT, 0644);
		if (pwrite(fd, buf, len, (off_t)(i * 53248 % (1 << 20))) < 0 && errno == ENOSPC)
			unlink(name);
		close(fd);
		snprintf(name, sizeof name, MNT "/churn/d%d", k);
		if (mkdir(name, 0755) == 0 && i % 2)
			rmdir(name);
	}
}

static bool sync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	bool good = fd >= 0 && fsync(fd) == 0;

	close(fd);
	return good;
}

/* Synced file i, written whole and fsync'd with its directory. */
static bool write_synced(int i)
{
	static char buf[17000];
	char name[64];
	size_t len = synced_size(i);
	int fd;
	bool good;

	snprintf(name, sizeof name, MNT "/synced/f%05d", i);
	synced_fill(buf, i);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	good = fd >= 0 && write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0;
	close(fd);
	return good && sync_dir(MNT "/synced");
}

/* init's life: never returns (the harness kills the machine). */
static __attribute__((noreturn)) void workload(void)
{
	mkdir(MNT, 0755);
	if (mount(DISK, MNT, "ext2", 0, NULL) || mkdir(MNT "/churn", 0755) ||
	    mkdir(MNT "/synced", 0755) || !sync_dir(MNT)) {
		say("crash: cannot set up (errno %d)\n", errno);
		for (;;)
			pause();
	}
	if (fork() == 0)
		churn();
	for (int i = 0; i < SYNCED_MAX; i++) {
		if (!write_synced(i)) {
			say("crash: write or fsync failed at %d\n", i);
			break;
		}
		say("crash: synced %d\n", i + 1);
	}
	for (;;)
		pause();
}

/* Whether dir/f%05d is synced file i. */
static bool synced_intact(const char *dir, int i)
{
	static char want[17000], got[17001];
	char name[300];
	int fd;
	ssize_t n;

	snprintf(name, sizeof name, "%s/f%05d", dir, i);
	fd = open(name, O_RDONLY);
	n = fd >= 0 ? read(fd, got, sizeof got) : -1;
	close(fd);
	synced_fill(want, i);
	return n == (ssize_t)synced_size(i) && !memcmp(got, want, n);
}

/* The first max lines of text, each a TAP comment. */
static void diag_lines(char *text, int max)
{
	for (char *line = strtok(text, "\n"); line && max--; line = strtok(NULL, "\n"))
		diag("%s", line);
}

static int check_image(const char *img, int nsynced)
{
	static char out[1 << 16];
	char copy[300], top[64], dir[96], cmd[160];
	char *preen[] = {(char *)e2fs_tool("e2fsck"), "-fp", copy, NULL};
	char *repair[] = {(char *)e2fs_tool("e2fsck"), "-fy", (char *)img, NULL};
	char *check[] = {(char *)e2fs_tool("e2fsck"), "-fn", (char *)img, NULL};
	char *rdump[] = {(char *)e2fs_tool("debugfs"), "-R", cmd, (char *)img, NULL};
	char *cp[] = {"/bin/cp", (char *)img, copy, NULL}, *envp[] = {NULL};
	char *rm[] = {"/bin/rm", "-rf", top, NULL};
	int status, bad = 0;

	if (!e2fs_tools_present())
		skip_all("no e2fsck or debugfs");
	plan(5);
	ok(nsynced > 0, "the guest synced files before the kill (%d)", nsynced);
	snprintf(copy, sizeof copy, "%s.preen", img);
	if (run_capture(cp[0], cp, envp, out, sizeof out) == 0) {
		status = e2fs_run(preen, out, sizeof out);
		diag("e2fsck -fp on a copy: exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		unlink(copy);
	}
	status = e2fs_run(repair, out, sizeof out);
	ok(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "e2fsck -fy repairs it (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	diag_lines(out, 40); /* what it repaired */
	status = e2fs_run(check, out, sizeof out);
	if (!is_int(status, 0, "e2fsck -fn: clean after the repair"))
		diag("%s", out);
	snprintf(top, sizeof top, "/tmp/ext2_crash.%d", (int)getpid());
	snprintf(dir, sizeof dir, "%s/synced", top);
	require(mkdir(top, 0755) == 0, "a directory for rdump");
	snprintf(cmd, sizeof cmd, "rdump /synced %s", top);
	ok(e2fs_run(rdump, out, sizeof out) == 0, "debugfs rdump /synced");
	for (int i = 0; i < nsynced; i++)
		if (!synced_intact(dir, i) && bad++ < 5)
			diag("synced file %d is not intact", i);
	is_int(bad, 0, "every file synced before the kill reads back whole (%d)", nsynced);
	run_capture(rm[0], rm, envp, out, sizeof out);
	return done();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check_image(argv[2], atoi(getenv("CRASH_SYNCED") ?: "0"));
	if (getpid() == 1 && on_fdkernel())
		workload();
	skip_all(
	    "the crash workload runs as init in a boot of its own (tests/harness/crash-check)");
}
