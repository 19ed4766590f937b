/* Debian's own dynamic programs in both guests: the same rootfs image
 * (make rootfs) attached read-only as a virtio disk, its ext2 partition
 * mounted read-only, a tmpfs on its /tmp for what the programs write,
 * devtmpfs on its /dev, and the rows run chrooted into it, so fdkernel
 * and Linux run the very same binaries and libraries:
 *   deb_true_fork_exec   us per fork + execve + wait of /bin/true (dynamic)
 *   deb_python3_start    us per `python3 -c pass`, fork to wait
 *   deb_bash_subst       us per iteration of a 1,000-iteration bash loop
 *                        running `x=$(/bin/true)` (bash's start included)
 *   deb_sqlite3_1tx      us per row: 10,000 INSERTs in one transaction
 *   deb_sqlite3_10ktx    us per row: 10,000 INSERTs, one transaction each
 *                        (journal created, synced and deleted each time)
 *   deb_tar_xzf          us per `tar xzf` of a tree of the image (gzip as
 *                        tar's child) into an empty directory of /tmp
 * Setup (mounts, the SQL scripts, the tarball, removing the results) is not
 * counted; every row's first run (bench_row's warm-up) reads the disk, so
 * the counted runs find every file in the page cache.  Skipped where no
 * virtio disk holds the image. */
#include <fcntl.h>
#include <fdkernel.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define ROOT	  "/tmp/debian"
#define MS_RDONLY 1L
#define EXECS	  20
#define ROWS	  10000
#define REPS	  3
/* The tarball's tree: perl-base's modules (about 700 files and directories,
 * 5 MiB). */
#define TREE_DIR "/usr/lib/x86_64-linux-gnu"
#define TREE	 "perl-base"

static const char rows[] = "deb_true_fork_exec,deb_python3_start,deb_bash_subst,"
			   "deb_sqlite3_1tx,deb_sqlite3_10ktx,deb_tar_xzf";
static char *env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp", "LC_ALL=C", NULL};

/* Runs ARGV (a path in the chroot) with stdin from IN (NULL: inherited) and
 * stdout to /dev/null, and waits; whether it exited with 0. */
static bool run(char *const argv[], const char *in)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int fd = in ? open(in, O_RDONLY) : 0;

		if (null < 0 || fd < 0 || dup2(null, 1) < 0 || dup2(fd, 0) < 0)
			_exit(126);
		execve(argv[0], argv, env);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

struct prog {
	char *const *argv;
	const char *in;	  /* stdin, or NULL */
	char *const *pre; /* run before each run, not counted (or NULL) */
	int runs;	  /* runs per repetition */
	int ops;	  /* operations per run */
};

static double prog_rep(const char *name, void *arg)
{
	const struct prog *p = arg;
	uint64_t start, ns = 0;

	for (int i = 0; i < p->runs; i++) {
		if (p->pre && !run(p->pre, NULL))
			return bench_fail(name, "%s failed", p->pre[0]), -1;
		start = bench_now_ns();
		if (!run(p->argv, p->in))
			return bench_fail(name, "%s failed", p->argv[0]), -1;
		ns += bench_now_ns() - start;
	}
	return (double)ns / 1000.0 / p->runs / p->ops;
}

/* /tmp/insert-N.sql: a table, then ROWS INSERTs; in one transaction if
 * ONE_TX. */
static bool write_sql(const char *path, bool one_tx)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fprintf(f, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n INTEGER);\n%s",
		one_tx ? "BEGIN;\n" : "");
	for (int i = 0; i < ROWS; i++)
		fprintf(f, "INSERT INTO t(name, n) VALUES('row %d', %d);\n", i, i * 7);
	fprintf(f, "%s", one_tx ? "COMMIT;\n" : "");
	return fclose(f) == 0;
}

static void run_rows(void)
{
	char *true_argv[] = {"/bin/true", NULL};
	char *python[] = {"/usr/bin/python3", "-c", "pass", NULL};
	char *bash[] = {"/bin/bash", "-c", "for ((i = 0; i < 1000; i++)); do x=$(/bin/true); done",
			NULL};
	char *sqlite[] = {"/usr/bin/sqlite3", "/tmp/bench.db", NULL};
	char *rm_db[] = {"/bin/rm", "-f", "/tmp/bench.db", NULL};
	char *tar_make[] = {"/bin/tar", "czf", "/tmp/tree.tgz", "-C", TREE_DIR, TREE, NULL};
	char *tar[] = {"/bin/tar", "xzf", "/tmp/tree.tgz", "-C", "/tmp/x", NULL};
	char *fresh_x[] = {"/bin/sh", "-c", "rm -rf /tmp/x && mkdir /tmp/x", NULL};
	struct prog progs[] = {
	    {true_argv, NULL, NULL, EXECS, 1},
	    {python, NULL, NULL, 1, 1},
	    {bash, NULL, NULL, 1, 1000},
	    {sqlite, "/tmp/insert-1.sql", rm_db, 1, ROWS},
	    {sqlite, "/tmp/insert-n.sql", rm_db, 1, ROWS},
	    {tar, NULL, fresh_x, 1, 1},
	};

	bench_row("deb_true_fork_exec", "us", REPS, prog_rep, &progs[0]);
	bench_row("deb_python3_start", "us", REPS, prog_rep, &progs[1]);
	bench_row("deb_bash_subst", "us", REPS, prog_rep, &progs[2]);
	if (bench_wanted("deb_sqlite3_1tx") || bench_wanted("deb_sqlite3_10ktx")) {
		if (!write_sql("/tmp/insert-1.sql", true) ||
		    !write_sql("/tmp/insert-n.sql", false)) {
			bench_fail("deb_sqlite3_1tx", "writing the SQL: %s", strerror(errno));
			bench_fail("deb_sqlite3_10ktx", "writing the SQL: %s", strerror(errno));
		} else {
			bench_row("deb_sqlite3_1tx", "us", REPS, prog_rep, &progs[3]);
			bench_row("deb_sqlite3_10ktx", "us", REPS, prog_rep, &progs[4]);
		}
	}
	if (bench_wanted("deb_tar_xzf") && !run(tar_make, NULL))
		bench_fail("deb_tar_xzf", "tar czf of the tree failed");
	else
		bench_row("deb_tar_xzf", "us", REPS, prog_rep, &progs[5]);
}

/* Mounts the image's partition on ROOT: the first /dev/vdX1 that mounts as
 * ext2 and holds python3 (bench_blk's disk, under the wall clock, is
 * /dev/vda and has no partition). */
static bool mount_root(void)
{
	char dev[16];

	mkdir(ROOT, 0755);
	for (char c = 'a'; c <= 'd'; c++) {
		snprintf(dev, sizeof dev, "/dev/vd%c1", c);
		if (syscall(__NR_mount, dev, ROOT, "ext2", MS_RDONLY, NULL) < 0)
			continue;
		if (access(ROOT "/usr/bin/python3", X_OK) == 0)
			return true;
		syscall(__NR_umount2, ROOT, 0L);
	}
	return false;
}

static const char *const mounts[][2] = {{"tmpfs", ROOT "/tmp"}, {"devtmpfs", ROOT "/dev"}};
#define NMOUNTS (int)(sizeof mounts / sizeof mounts[0])

/* Runs the rows in a child chrooted into ROOT; its exit status. */
static int run_chrooted(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (syscall(__NR_chroot, ROOT) < 0 || chdir("/") < 0)
			bench_skip_rows(rows, "chroot failed");
		else
			run_rows();
		_exit(bench_end());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		bench_skip_rows(rows, "the chrooted child could not be started or waited for");
		return bench_end();
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	int n = 0, status;

	bench_begin("bench_debian", rows);
	if (!bench_any_wanted(rows)) /* nothing to mount */
		return bench_end();
	if (!mount_root()) {
		bench_skip_rows(rows, "no virtio disk with the rootfs image (make rootfs)");
		return bench_end();
	}
	while (n < NMOUNTS &&
	       syscall(__NR_mount, mounts[n][0], mounts[n][1], mounts[n][0], 0L, NULL) == 0)
		n++;
	if (n == NMOUNTS)
		status = run_chrooted();
	else {
		bench_skip_rows(rows, "mounting tmpfs and devtmpfs in the image failed");
		status = bench_end();
	}
	while (n-- > 0)
		syscall(__NR_umount2, mounts[n][1], 0L);
	syscall(__NR_umount2, ROOT, 0L);
	rmdir(ROOT);
	return status;
}
