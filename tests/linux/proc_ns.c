/* /proc/<pid>/ns as Linux has it for processes in the initial namespaces:
 * the links (net, uts, ipc, pid, pid_for_children, mnt, user, time,
 * time_for_children) read "<kind>:[<number>]", the file opened through
 * one is a 0444 regular file of nsfs whose st_ino is that number;
 * pid_for_children is pid's namespace; a child shares every one, and a
 * child that unshares CLONE_NEWNS has another mnt and the same uts.  The
 * ioctls: NS_GET_NSTYPE gives the kind's CLONE_NEW*; NS_GET_PARENT is
 * EINVAL for uts, EPERM for the initial pid and user namespaces;
 * NS_GET_USERNS opens the user namespace (close-on-exec) or is EPERM on
 * the initial user namespace itself; NS_GET_OWNER_UID is 0 for it,
 * EINVAL for another kind, EFAULT for a bad pointer; another request is
 * ENOTTY; read is EINVAL.  On the host as root, in its initial
 * namespaces (else SKIP). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define NSFS_MAGIC	 0x6e736673
#define NS_GET_USERNS	 0xb701
#define NS_GET_PARENT	 0xb702
#define NS_GET_NSTYPE	 0xb703
#define NS_GET_OWNER_UID 0xb704
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif

static const struct {
	const char *name;
	long type;
} kinds[] = {
    {"net", CLONE_NEWNET}, {"uts", CLONE_NEWUTS},   {"ipc", CLONE_NEWIPC},   {"pid", CLONE_NEWPID},
    {"mnt", CLONE_NEWNS},  {"user", CLONE_NEWUSER}, {"time", CLONE_NEWTIME},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* The number in /proc/<pid>/ns/<name>'s link text, 0 if it does not read
 * "<kind>:[<number>]". */
static unsigned long link_number(const char *pid, const char *name, const char *kind)
{
	char path[64], text[64], want[24];
	ssize_t n;
	unsigned long inum;

	snprintf(path, sizeof path, "/proc/%s/ns/%s", pid, name);
	n = readlink(path, text, sizeof text - 1);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	snprintf(want, sizeof want, "%s:[", kind);
	if (strncmp(text, want, strlen(want)) || text[n - 1] != ']')
		return 0;
	inum = strtoul(text + strlen(want), NULL, 10);
	return inum;
}

static int open_ns(const char *name)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/ns/%s", name);
	return open(path, O_RDONLY);
}

static void check_links(void)
{
	int good = 0, files = 0;
	struct stat st, lst;
	struct statfs sf;

	for (size_t i = 0; i < NKINDS; i++) {
		char path[64];
		unsigned long inum = link_number("self", kinds[i].name, kinds[i].name);
		int fd = open_ns(kinds[i].name);

		snprintf(path, sizeof path, "/proc/self/ns/%s", kinds[i].name);
		if (inum && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
		    stat(path, &st) == 0 && st.st_ino == inum)
			good++;
		else
			diag("%s: link number %lu", kinds[i].name, inum);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 07777) == 0444 && st.st_ino == inum && st.st_uid == 0 &&
		    fstatfs(fd, &sf) == 0 && sf.f_type == NSFS_MAGIC &&
		    ioctl(fd, NS_GET_NSTYPE) == kinds[i].type)
			files++;
		else
			diag("%s: the open file", kinds[i].name);
		if (fd >= 0)
			close(fd);
	}
	is_int(good, NKINDS, "each link reads <kind>:[<number>], a link to that inode");
	is_int(files, NKINDS, "each opens as a 0444 nsfs file numbered so, NS_GET_NSTYPE its kind");
	ok(link_number("self", "pid_for_children", "pid") == link_number("self", "pid", "pid") &&
	       link_number("self", "time_for_children", "time") ==
		   link_number("self", "time", "time"),
	   "pid_for_children and time_for_children: pid's and time's");
}

static void check_listing(void)
{
	DIR *d = opendir("/proc/self/ns");
	struct dirent *e;
	int seen = 0;

	while (d && (e = readdir(d)))
		for (size_t i = 0; i < NKINDS; i++)
			seen += !strcmp(e->d_name, kinds[i].name) && e->d_type == DT_LNK;
	if (d)
		closedir(d);
	is_int(seen, NKINDS, "/proc/self/ns lists them as links");
}

static void check_ioctls(void)
{
	int uts = open_ns("uts"), pid = open_ns("pid"), user = open_ns("user"), owner;
	struct stat st, ust;
	uint32_t uid = 77;
	char c;

	is_errno(ioctl(uts, NS_GET_PARENT), EINVAL, "NS_GET_PARENT of uts: EINVAL");
	is_errno(ioctl(pid, NS_GET_PARENT), EPERM, "NS_GET_PARENT of the initial pid: EPERM");
	is_errno(ioctl(user, NS_GET_PARENT), EPERM, "NS_GET_PARENT of the initial user: EPERM");
	owner = ioctl(uts, NS_GET_USERNS);
	ok(owner >= 0 && fstat(owner, &st) == 0 && fstat(user, &ust) == 0 &&
	       st.st_ino == ust.st_ino && fcntl(owner, F_GETFD) == FD_CLOEXEC,
	   "NS_GET_USERNS of uts: the user namespace, close-on-exec");
	if (owner >= 0)
		close(owner);
	is_errno(ioctl(user, NS_GET_USERNS), EPERM, "NS_GET_USERNS of the initial user: EPERM");
	ok(ioctl(user, NS_GET_OWNER_UID, &uid) == 0 && uid == 0, "NS_GET_OWNER_UID: 0");
	is_errno(ioctl(uts, NS_GET_OWNER_UID, &uid), EINVAL, "NS_GET_OWNER_UID of uts: EINVAL");
	is_errno(ioctl(user, NS_GET_OWNER_UID, (void *)8), EFAULT,
		 "NS_GET_OWNER_UID to a bad pointer: EFAULT");
	is_errno(ioctl(uts, 0xb7ff), ENOTTY, "another request: ENOTTY");
	is_errno(read(uts, &c, 1), EINVAL, "read: EINVAL");
	close(uts);
	close(pid);
	close(user);
}

/* A child's links: the same namespaces; after unshare(CLONE_NEWNS), its
 * mnt is another, its uts the same. */
static void check_child(void)
{
	int go[2], back[2], status;
	char pid[16], c;
	pid_t child;

	require(pipe(go) == 0 && pipe(back) == 0, "pipes");
	if ((child = fork()) == 0) {
		read(go[0], &c, 1);
		c = unshare(CLONE_NEWNS) ? 'n' : 'y';
		write(back[1], &c, 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	snprintf(pid, sizeof pid, "%d", (int)child);
	ok(link_number(pid, "mnt", "mnt") == link_number("self", "mnt", "mnt") &&
	       link_number(pid, "uts", "uts") == link_number("self", "uts", "uts"),
	   "a child is in the same namespaces");
	write(go[1], "x", 1);
	ok(read(back[0], &c, 1) == 1 && c == 'y' &&
	       link_number(pid, "mnt", "mnt") != link_number("self", "mnt", "mnt") &&
	       link_number(pid, "mnt", "mnt") != 0 &&
	       link_number(pid, "uts", "uts") == link_number("self", "uts", "uts"),
	   "after its unshare(CLONE_NEWNS) another mnt, the same uts");
	write(go[1], "x", 1);
	waitpid(child, &status, 0);
	is_int(status, 0, "the child exited");
	for (int i = 0; i < 2; i++) {
		close(go[i]);
		close(back[i]);
	}
}

int main(void)
{
	if (geteuid() || access("/proc/self/ns/time", F_OK))
		skip_all("not root, or no /proc/self/ns/time");
	if (link_number("self", "user", "user") != 0xEFFFFFFDUL ||
	    link_number("self", "pid", "pid") != 0xEFFFFFFCUL)
		skip_all("not in the initial user and pid namespaces");
	plan(17);
	check_links();
	check_listing();
	check_ioctls();
	check_child();
	return done();
}
