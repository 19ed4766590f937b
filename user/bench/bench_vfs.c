/* Path walks: stat of a four-component path, open+close of the file it
 * names, the same stat with one component a tmpfs mount's root, and stat
 * of one name of a 10,000-entry directory.  The program
 * makes its tree first, in a directory of the root (not /tmp, which may be a
 * mount of its own in one guest and not in the other), and removes it at the
 * end.  Median of repetitions, ns per call. */
#include <fcntl.h>
#include <fdkernel.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define CALLS	 2000
#define REPS	 11
#define BIG_DIR	 10000 /* entries of the directory of stat_1of10000 */
#define BIG_NAME (BIG_DIR / 2)

/* The tree: ROOT/b/c/d is the four-component path (a file), ROOT/big holds
 * BIG_DIR empty files f0 ... f9999.  The host (context only) has no
 * writable root: it gets the tree under /tmp, one component deeper. */
static char root[64] = "/vfsbench";
static char path4[96], big[96], big_name[112];
static char mnt[80], mnt_c[88], path_mnt[96]; /* ROOT/m, a tmpfs; ROOT/m/c/d */
static bool mounted;

/* The path whose creation failed (errno says why). */
static const char *failed_path;

static bool make(const char *path, bool dir)
{
	int fd;

	failed_path = path;
	if (dir)
		return mkdir(path, 0755) == 0;
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool make_root(void)
{
	if (make(root, true))
		return true;
	if (errno != EACCES && errno != EROFS)
		return false;
	snprintf(root, sizeof root, "/tmp/vfsbench.%d", (int)getpid());
	return make(root, true);
}

/* ROOT/b/c/d for stat_path4 and open_close. */
static bool make_path4(void)
{
	static char b[80], c[88];

	snprintf(b, sizeof b, "%s/b", root);
	snprintf(c, sizeof c, "%s/b/c", root);
	snprintf(path4, sizeof path4, "%s/b/c/d", root);
	return make(b, true) && make(c, true) && make(path4, false);
}

/* ROOT/m, a tmpfs, holding c/d: stat_mount's path is stat_path4's with
 * its second component a mount's root. */
static bool make_mount(void)
{
	snprintf(mnt, sizeof mnt, "%s/m", root);
	snprintf(mnt_c, sizeof mnt_c, "%s/m/c", root);
	snprintf(path_mnt, sizeof path_mnt, "%s/m/c/d", root);
	if (!make(mnt, true))
		return false;
	if (syscall(__NR_mount, "none", mnt, "tmpfs", 0L, "size=64k") < 0)
		return false;
	mounted = true;
	return make(mnt_c, true) && make(path_mnt, false);
}

static void big_entry(char *buf, size_t size, int i)
{
	snprintf(buf, size, "%s/f%d", big, i);
}

/* ROOT/big with BIG_DIR files. */
static bool make_big(void)
{
	static char path[112];

	snprintf(big, sizeof big, "%s/big", root);
	if (!make(big, true))
		return false;
	for (int i = 0; i < BIG_DIR; i++) {
		big_entry(path, sizeof path, i);
		if (!make(path, false))
			return false;
	}
	big_entry(big_name, sizeof big_name, BIG_NAME);
	return true;
}

/* Reports the rows of the comma-separated list ROWS as not measured:
 * making failed_path failed. */
static void fail_rows(const char *rows)
{
	char name[64];

	for (const char *r = rows; *r; r += *r == ',') {
		size_t len = strcspn(r, ",");
		snprintf(name, sizeof name, "%.*s", (int)len, r);
		bench_fail(name, "%s: %s", failed_path, strerror(errno));
		r += len;
	}
}

static double stat_rep(const char *name, void *arg)
{
	const char *path = arg;
	struct stat st;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < CALLS; i++)
		if (stat(path, &st) < 0) {
			bench_fail(name, "%s: %s", path, strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

static double open_close_rep(const char *name, void *arg)
{
	const char *path = arg;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < CALLS; i++) {
		int fd = open(path, O_RDONLY);
		if (fd < 0) {
			bench_fail(name, "%s: %s", path, strerror(errno));
			return -1;
		}
		close(fd);
	}
	return bench_ns_per_op(start, CALLS);
}

/* Removes what make_path4, make_mount and make_big made (whatever part
 * exists). */
static void remove_tree(void)
{
	char path[112];

	if (mounted) {
		unlink(path_mnt);
		rmdir(mnt_c);
		syscall(__NR_umount2, mnt, 0L);
	}
	if (mnt[0])
		rmdir(mnt);
	unlink(path4);
	snprintf(path, sizeof path, "%s/b/c", root);
	rmdir(path);
	snprintf(path, sizeof path, "%s/b", root);
	rmdir(path);
	if (big[0]) {
		for (int i = 0; i < BIG_DIR; i++) {
			big_entry(path, sizeof path, i);
			unlink(path);
		}
		rmdir(big);
	}
	rmdir(root);
}

int main(void)
{
	bench_begin("bench_vfs", "stat_path4,open_close,stat_mount,stat_1of10000");
	if (!make_root()) {
		fail_rows("stat_path4,open_close,stat_mount,stat_1of10000");
		return bench_end();
	}
	if (!make_path4()) {
		fail_rows("stat_path4,open_close");
	} else {
		bench_row("stat_path4", "ns", REPS, stat_rep, path4);
		bench_row("open_close", "ns", REPS, open_close_rep, path4);
	}
	if (bench_wanted("stat_mount")) {
		if (make_mount())
			bench_row("stat_mount", "ns", REPS, stat_rep, path_mnt);
		else
			fail_rows("stat_mount");
	}
	if (bench_wanted("stat_1of10000")) {
		if (make_big())
			bench_row("stat_1of10000", "ns", REPS, stat_rep, big_name);
		else
			fail_rows("stat_1of10000");
	}
	remove_tree();
	return bench_end();
}
