/* Mount namespaces as on Linux: unshare(CLONE_NEWNS) gives a process a
 * copy of the mount tree, so what it mounts or unmounts afterwards is
 * its own and what the parent mounts afterwards is not seen, while the
 * copies still show the same file systems (a file made through either
 * is seen through both); /proc/<pid>/mounts tells each process's table;
 * a directory mounted on in another namespace only can be removed (the
 * mount goes with it, Linux 3.18's rule); clone with CLONE_NEWNS and
 * CLONE_FS is EINVAL, an unprivileged
 * unshare EPERM.  On the host (as root) it runs in a mount namespace of
 * its own first. */
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

static char dir[64], shared[96], mine[96], later[96];

/* Whether the mounts text of pid ("self" for 0) has a line for path. */
static bool lists(int pid, const char *path)
{
	static char text[65536];
	char file[64], want[128];

	snprintf(file, sizeof file, pid ? "/proc/%d/mounts" : "/proc/self/mounts", pid);
	snprintf(want, sizeof want, " %s ", path);
	return read_text(file, text, sizeof text) > 0 && strstr(text, want);
}

static bool exists(const char *base, const char *name)
{
	char path[160];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", base, name);
	return stat(path, &st) == 0;
}

static void touch(const char *base, const char *name)
{
	char path[160];
	int fd;

	snprintf(path, sizeof path, "%s/%s", base, name);
	if ((fd = open(path, O_CREAT | O_WRONLY, 0600)) >= 0)
		close(fd);
}

/* The child: its own namespace, where it mounts MINE, unmounts its copy
 * of SHARED's mount and makes a file through it first.  Each step's
 * result is a bit of its exit status; then it waits for the parent. */
static int child(int ready, int go)
{
	char c;
	int bits = 0;

	if (unshare(CLONE_NEWNS))
		return 0x80;
	bits |= lists(0, shared) ? 1 : 0;
	touch(shared, "from-child");
	bits |= mount("none", mine, "tmpfs", 0, "size=64k") == 0 ? 2 : 0;
	touch(mine, "private");
	bits |= umount2(shared, 0) == 0 && !exists(shared, "from-parent") ? 4 : 0;
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 0x80;
	bits |= !lists(0, later) && !exists(later, "late") ? 8 : 0;
	bits |= !lists(0, mine) ? 16 : 0;
	return bits;
}

static void two_namespaces(void)
{
	int to_parent[2], to_child[2], status;
	char c;

	require(mount("none", shared, "tmpfs", 0, "size=64k") == 0, "a tmpfs before the unshare");
	touch(shared, "from-parent");
	require(pipe(to_parent) == 0 && pipe(to_child) == 0, "pipes");
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(to_parent[1], to_child[0]));
	ok(read(to_parent[0], &c, 1) == 1, "the child unshared and mounted");
	ok(exists(shared, "from-child"), "a file the child made through its copy is here too");
	ok(lists(0, shared) && exists(shared, "from-parent"),
	   "the child's umount of its copy left ours");
	ok(!lists(0, mine) && !exists(mine, "private"), "the child's own mount is not seen here");
	ok(lists(pid, mine) && !lists(pid, shared), "/proc/<child>/mounts shows the child's table");
	require(mount("none", later, "tmpfs", 0, "size=64k") == 0, "a tmpfs after the unshare");
	touch(later, "late");
	ok(rmdir(mine) == 0 && mkdir(mine, 0700) == 0,
	   "rmdir of a directory mounted on in another namespace only");
	ok(write(to_child[1], "g", 1) == 1 && waitpid(pid, &status, 0) == pid, "the child goes on");
	int bits = WIFEXITED(status) ? WEXITSTATUS(status) : 0x80;
	ok(bits & 1, "the child's copy has the mounts made before");
	ok(bits & 2, "the child mounts in its own namespace");
	ok(bits & 4, "and unmounts its copy");
	ok(bits & 8, "a mount made here afterwards is not in the child's namespace");
	ok(bits & 16, "and the removed directory's mount left the child's namespace");
	ok(umount2(later, 0) == 0 && umount2(shared, 0) == 0, "ours unmount");
	close(to_parent[0]), close(to_parent[1]), close(to_child[0]), close(to_child[1]);
}

static void bad_args(void)
{
	int status;

	is_errno(syscall(SYS_clone, CLONE_NEWNS | CLONE_FS | SIGCHLD, 0, 0, 0, 0), EINVAL,
		 "clone(CLONE_NEWNS | CLONE_FS): EINVAL");
	pid_t pid = fork();
	if (pid == 0)
		_exit(setuid(1000) == 0 && unshare(CLONE_NEWNS) == -1 && errno == EPERM ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "unshare(CLONE_NEWNS) by an ordinary user: EPERM");
	pid = fork();
	if (pid == 0) { /* its working directory stays where it was */
		int cwd = open(".", O_RDONLY);
		_exit(unshare(CLONE_NEWNS) == 0 && fchdir(cwd) == 0 && lists(0, "/proc") ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "unshare keeps the working directory and /proc");
}

int main(void)
{
	plan(17);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/mntns-%d", (int)getpid());
	snprintf(shared, sizeof shared, "%s/shared", dir);
	snprintf(mine, sizeof mine, "%s/mine", dir);
	snprintf(later, sizeof later, "%s/later", dir);
	require(mkdir(dir, 0700) == 0 && mkdir(shared, 0700) == 0 && mkdir(mine, 0700) == 0 &&
		    mkdir(later, 0700) == 0,
		"scratch directories");
	two_namespaces();
	bad_args();
	ok(rmdir(shared) == 0 && rmdir(mine) == 0 && rmdir(later) == 0 && rmdir(dir) == 0,
	   "clean up: nothing is left mounted here");
	return done();
}
