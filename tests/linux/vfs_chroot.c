/* chroot(2) and pivot_root(2), as on Linux.  chroot: "/" and ".." stop
 * at the new root, getcwd outside it says "(unreachable)", the working
 * directory is not moved, /proc/<pid>/root shows the root, and root's
 * classic escape (a second chroot below the working directory, then
 * "..") works, as it does on Linux.  pivot_root: a tmpfs becomes "/",
 * the old root appears under it, and a second pivot_root puts everything
 * back; bad arguments get Linux's errno.  A program runs in a chroot
 * through a relative link.  On the host (as root) it runs
 * in a mount namespace of its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mount_ns.h"
#include "testutil.h"

static char dir[64], inner[96], file[96];

static int pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(SYS_pivot_root, new_root, put_old);
}

/* A child's checks, reported by exit status: the failing step's number. */
static int chrooted(void)
{
	char cwd[256];
	struct stat a, b;

	if (chdir("/tmp") || chroot(dir))
		return 1;
	/* The raw call: libc's getcwd refuses an answer that is not absolute. */
	if (syscall(SYS_getcwd, cwd, sizeof cwd) < 0 || strcmp(cwd, "(unreachable)/tmp"))
		return 2; /* the working directory stayed, outside the new root */
	if (chdir("/") || !getcwd(cwd, sizeof cwd) || strcmp(cwd, "/"))
		return 3;
	if (stat("/inner", &a) || !S_ISDIR(a.st_mode))
		return 4;
	if (stat("/..", &a) || stat("/", &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return 5; /* ".." of the root is the root */
	if (stat("/../../../f", &a) || !S_ISREG(a.st_mode))
		return 6; /* however many ".." */
	if (chroot("/inner") || stat("../../../../proc", &a))
		return 7; /* the escape: the working directory was above the new root */
	if (chdir("../../../..") || chroot("."))
		return 8;
	char back[96];
	snprintf(back, sizeof back, "%s/f", dir);
	return stat(back, &a) ? 9 : 0; /* out: the real tree again */
}

static void chroot_tests(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(chrooted());
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "chroot: root, getcwd, \"..\", the escape (step %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	is_errno(chroot("/nonexistent"), ENOENT, "chroot to a missing path: ENOENT");
	is_errno(chroot(file), ENOTDIR, "chroot to a file: ENOTDIR");
	is_errno(chroot((const char *)1), EFAULT, "chroot with a bad pointer: EFAULT");

	int p[2];
	char c, link[128] = {0}, proc[64];
	require(pipe(p) == 0, "pipe");
	if ((pid = fork()) == 0) {
		close(p[0]);
		_exit(chroot(inner) || write(p[1], "r", 1) != 1 || pause());
	}
	close(p[1]);
	ok(read(p[0], &c, 1) == 1, "a child chroots");
	snprintf(proc, sizeof proc, "/proc/%d/root", (int)pid);
	ok(readlink(proc, link, sizeof link - 1) > 0 && !strcmp(link, inner),
	   "/proc/<pid>/root shows its root (%s)", link);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
}

/* dir/d/prog: a copy of this program; whether it was made. */
static int copy_self(const char *to)
{
	char buf[4096];
	ssize_t n = 0;
	int in = open("/proc/self/exe", O_RDONLY), out = open(to, O_CREAT | O_WRONLY, 0755);

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	return close(out) == 0 && n == 0;
}

/* A program run inside the chroot through a relative link (as Debian's
 * /usr/bin/python3 -> python3.11): its target is looked up from the
 * link's directory in the chroot.  fdkernel once took that directory's
 * global path and looked it up from the chroot's root (ENOMEM). */
static void chroot_exec_link(void)
{
	char d[96], prog[128], link[96];
	int status;
	pid_t pid;

	snprintf(d, sizeof d, "%s/d", dir);
	snprintf(prog, sizeof prog, "%s/prog", d);
	snprintf(link, sizeof link, "%s/lnk", dir);
	require(mkdir(d, 0700) == 0 && copy_self(prog) && symlink("d/prog", link) == 0,
		"a copy of this program and a relative link to it");
	if ((pid = fork()) == 0) {
		char *argv[] = {"prog", "--exit-zero", NULL};

		if (chroot(dir) == 0)
			execve("/lnk", argv, (char *[]){NULL});
		_exit(errno);
	}
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "execve through a relative link in a chroot (status 0x%x)",
	   status);
	require(unlink(link) == 0 && unlink(prog) == 0 && rmdir(d) == 0, "remove the copy");
}

static void pivot_tests(void)
{
	char new_root[96], put_old[128], back[128];
	struct stat st;

	snprintf(new_root, sizeof new_root, "%s/new", dir);
	snprintf(put_old, sizeof put_old, "%s/old", new_root);
	require(mkdir(new_root, 0700) == 0, "mkdir new");
	struct stat rs, ns;
	require(stat("/", &rs) == 0 && stat(new_root, &ns) == 0, "stat");
	is_errno(pivot_root(new_root, new_root), rs.st_dev == ns.st_dev ? EBUSY : EINVAL,
		 "pivot_root to a directory that is not a mount: EBUSY on the root's, else EINVAL");
	require(mount("none", new_root, "tmpfs", 0, "size=64k") == 0 && mkdir(put_old, 0700) == 0,
		"a tmpfs with a directory for the old root");
	is_errno(pivot_root(new_root, "/proc"), EINVAL, "put_old outside new_root: EINVAL");
	is_errno(pivot_root("/", "/"), EBUSY, "pivot_root to the root itself: EBUSY");
	is_errno(pivot_root(file, put_old), ENOTDIR, "new_root a file: ENOTDIR");
	is_errno(pivot_root("/nonexistent", put_old), ENOENT, "a missing new_root: ENOENT");
	ok(pivot_root(new_root, put_old) == 0, "pivot_root(new, new/old)");
	snprintf(back, sizeof back, "/old%s", file);
	ok(stat("/old", &st) == 0 && stat(back, &st) == 0 && S_ISREG(st.st_mode),
	   "the old root is under /old, whole");
	ok(stat(file, &st) == -1 && errno == ENOENT, "and \"/\" is the tmpfs");
	snprintf(back, sizeof back, "/old%s", new_root);
	ok(pivot_root("/old", back) == 0, "pivot_root back onto the old root");
	ok(stat(file, &st) == 0 && stat(put_old, &st) == 0,
	   "the old root is \"/\" again, the tmpfs where it was");
	ok(umount2(new_root, 0) == 0 && rmdir(new_root) == 0, "the tmpfs unmounts");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exit-zero"))
		return 0; /* run by chroot_exec_link */
	plan(19);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/chroot-%d", (int)getpid());
	snprintf(inner, sizeof inner, "%s/inner", dir);
	snprintf(file, sizeof file, "%s/f", dir);
	require(mkdir(dir, 0700) == 0 && mkdir(inner, 0700) == 0, "scratch directories");
	close(open(file, O_CREAT | O_WRONLY, 0600));
	chroot_tests();
	chroot_exec_link();
	pivot_tests();
	ok(unlink(file) == 0 && rmdir(inner) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
