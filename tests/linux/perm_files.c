/* File permissions as Linux checks them, seen by an ordinary user (uid
 * and gid 1000, in a child that dropped root's ids) and by root: search
 * permission on every directory of a path, open by mode bits (owner,
 * group, other), creating and removing names (write and search on the
 * directory; the sticky bit's rule), chmod/chown/utimensat (the owner,
 * CAP_CHOWN, CAP_FOWNER), access with the real ids (AT_EACCESS with the
 * effective ones), new files owned by the creator (a set-group-ID
 * directory's group), execve needing an execute bit even for root,
 * chdir/chroot/truncate.  The test runs as root (the host leg too) and
 * makes every ordinary-user check in a child.  runtests runs it a second
 * time as uid 1000 (every perm_* program: docs/testing.md): then only the
 * identity checks run, on files it makes itself and the system's own
 * (/etc, /proc/sys), each expecting root's override or the user's
 * refusal by who the test is. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

#define USER 1000

static char dir[64], priv[96], open_dir[96], sticky[96], secret[128], shared[128], prog[128];

static void make_file(const char *path, mode_t mode, const char *text)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	require(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
		    close(fd) == 0 && chmod(path, mode) == 0,
		"make a scratch file");
}

/* This process becomes the ordinary user (no groups, no capabilities). */
static void become_user(void)
{
	require(setgroups(0, NULL) == 0 && setgid(USER) == 0 && setuid(USER) == 0,
		"drop to uid/gid 1000");
}

static void user_opens(void)
{
	become_user();
	is_errno(open(secret, O_RDONLY), EACCES, "a root 0600 file: reading EACCES");
	int fd = open(shared, O_RDONLY);
	ok(fd >= 0 && close(fd) == 0, "a root 0644 file: reading allowed");
	is_errno(open(shared, O_WRONLY), EACCES, "... writing EACCES");
	is_errno(open(shared, O_RDONLY | O_NOATIME), EPERM, "... O_NOATIME, not the owner: EPERM");
	is_errno(open(shared, O_RDONLY | O_TRUNC), EACCES, "... O_TRUNC EACCES");
	is_errno(truncate(shared, 0), EACCES, "... truncate EACCES");
	struct stat st;
	is_errno(stat(path_at(priv, "inside"), &st), EACCES,
		 "a path through a 0700 root directory: EACCES");
	is_errno(open(priv, O_RDONLY | O_DIRECTORY), EACCES, "listing that directory: EACCES");
	is_errno(chdir(priv), EACCES, "chdir into it: EACCES");
	is_errno(chroot(priv), EACCES, "chroot into it: EACCES before EPERM");
	is_errno(chroot(open_dir), EPERM, "chroot elsewhere: EPERM");
	is_errno(open("/proc/sys/kernel/hostname", O_WRONLY), EACCES,
		 "writing a /proc/sys file (0644, root's): EACCES");
	is_errno(execl(prog, prog, (char *)NULL), EACCES, "exec of a root 0700 program: EACCES");
}

static void user_names(void)
{
	struct stat st;

	become_user();
	is_errno(open(path_at(open_dir, "new"), O_CREAT | O_WRONLY, 0644), EACCES,
		 "creating in a root 0755 directory: EACCES");
	is_errno(mkdir(path_at(open_dir, "d"), 0755), EACCES, "mkdir there: EACCES");
	is_errno(mkdir(path_at(open_dir, "kept"), 0755), EEXIST,
		 "mkdir of an existing name: EEXIST first");
	is_errno(unlink(path_at(open_dir, "kept")), EACCES, "unlink there: EACCES");
	is_errno(rename(path_at(open_dir, "kept"), path_at(sticky, "kept")), EACCES,
		 "rename out of it: EACCES");
	int fd = open(path_at(sticky, "mine"), O_CREAT | O_WRONLY, 0640);
	ok(fd >= 0 && close(fd) == 0, "creating in a 1777 directory");
	ok(stat(path_at(sticky, "mine"), &st) == 0 && st.st_uid == USER && st.st_gid == USER,
	   "the new file is the creator's (%d:%d)", (int)st.st_uid, (int)st.st_gid);
	is_errno(unlink(path_at(sticky, "roots")), EPERM,
		 "unlink of root's file in a sticky directory: EPERM");
	is_errno(rename(path_at(sticky, "roots"), path_at(sticky, "moved")), EPERM,
		 "rename of root's file there: EPERM");
	ok(rename(path_at(sticky, "mine"), path_at(sticky, "mine2")) == 0 && unlink(path_at(sticky, "mine2")) == 0,
	   "the user's own file there renames and unlinks");
	ok(mkdir(path_at(sticky, "sg"), 0755) == 0 && stat(path_at(sticky, "sg"), &st) == 0 &&
	       st.st_uid == USER,
	   "a new directory is the creator's");
	ok(rmdir(path_at(sticky, "sg")) == 0, "and goes");
}

static void user_attrs(void)
{
	struct timespec two[2] = {{1, 0}, {2, 0}};
	char own[160];

	become_user();
	is_errno(chmod(shared, 0666), EPERM, "chmod of root's file: EPERM");
	is_errno(chown(shared, USER, USER), EPERM, "chown of root's file: EPERM");
	snprintf(own, sizeof own, "%s/own", sticky);
	int fd = open(own, O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && close(fd) == 0 && chmod(own, 0640) == 0, "chmod of one's own file");
	is_errno(chown(own, 0, -1), EPERM, "giving it away: EPERM");
	is_errno(chown(own, -1, 0), EPERM, "to a group one is not in: EPERM");
	ok(chown(own, USER, USER) == 0 && chown(own, -1, -1) == 0,
	   "to one's own ids, or -1: allowed");
	ok(utimensat(AT_FDCWD, path_at(sticky, "open"), NULL, 0) == 0,
	   "utimensat(now) of root's 0666 file: allowed (write permission)");
	is_errno(utimensat(AT_FDCWD, path_at(sticky, "open"), two, 0), EPERM,
		 "explicit times on it: EPERM (not the owner)");
	is_errno(utimensat(AT_FDCWD, shared, NULL, 0), EACCES,
		 "utimensat(now) of a 0644 one: EACCES");
	ok(unlink(own) == 0, "remove it");
}

static void user_access(void)
{
	become_user();
	is_errno(access(secret, R_OK), EACCES, "access(R_OK) of a root 0600 file: EACCES");
	ok(access(shared, R_OK) == 0, "access(R_OK) of a 0644 one");
	is_errno(access(shared, W_OK), EACCES, "access(W_OK) of it: EACCES");
	ok(access(secret, F_OK) == 0, "F_OK: it exists");
}

/* Real uid the user's, effective root's: access asks with the real one. */
static void setuid_like_access(void)
{
	require(setresuid(USER, 0, 0) == 0, "real uid 1000, effective 0");
	is_errno(access(secret, R_OK), EACCES, "access checks the real uid: EACCES");
	ok(faccessat(AT_FDCWD, secret, R_OK, AT_EACCESS) == 0,
	   "AT_EACCESS the effective one: allowed");
	int fd = open(secret, O_RDONLY);
	ok(fd >= 0 && close(fd) == 0, "and open uses the effective one");
}

static void setgid_dir(void)
{
	struct stat st;
	char sg[128];

	snprintf(sg, sizeof sg, "%s/sgid", dir);
	require(mkdir(sg, 0777) == 0 && chown(sg, 0, 2000) == 0 && chmod(sg, 02777) == 0,
		"a set-group-ID directory of group 2000");
	int fd = open(path_at(sg, "f"), O_CREAT | O_WRONLY, 0644);
	ok(fd >= 0 && close(fd) == 0 && stat(path_at(sg, "f"), &st) == 0 && st.st_gid == 2000,
	   "a file made in it takes its group (%d)", (int)st.st_gid);
	ok(mkdir(path_at(sg, "d"), 0755) == 0 && stat(path_at(sg, "d"), &st) == 0 && st.st_gid == 2000 &&
	       (st.st_mode & S_ISGID),
	   "a directory made in it takes its group and the bit");
	ok(rmdir(path_at(sg, "d")) == 0 && unlink(path_at(sg, "f")) == 0 && rmdir(sg) == 0, "clean up");
}

static void root_checks(void)
{
	int fd = open(secret, O_RDWR);

	ok(fd >= 0 && close(fd) == 0, "root opens another's 0600 file (CAP_DAC_OVERRIDE)");
	chmod(secret, 0);
	fd = open(secret, O_RDONLY);
	ok(fd >= 0 && close(fd) == 0, "and a 0000 one");
	chmod(secret, 0600);
	is_errno(execl(shared, shared, (char *)NULL), EACCES,
		 "root cannot exec a file without an execute bit: EACCES");
	is_errno(access(shared, X_OK), EACCES, "access(X_OK) of it: EACCES for root too");
}

/* As root the call succeeds (an fd it gives is closed); as anyone else it
 * fails with ERR. */
static void unless_root(long ret, int err, bool fd, const char *what)
{
	if (geteuid() != 0) {
		is_errno(ret, err, "uid %d: %s", (int)geteuid(), what);
		return;
	}
	ok(ret >= 0, "root: %s: allowed", what);
	if (fd && ret >= 0)
		close((int)ret);
}

#define IDENTITY_CHECKS 12

/* What the caller's identity decides, on its own files and the system's:
 * root's overrides, or an ordinary user's refusals. */
static void identity_checks(void)
{
	char own[96], locked[128], ro_dir[128], other[128];
	bool root = geteuid() == 0;

	snprintf(own, sizeof own, "/tmp/perm-id-%d", (int)getpid());
	snprintf(locked, sizeof locked, "%s/locked", own);
	snprintf(ro_dir, sizeof ro_dir, "%s/ro", own);
	snprintf(other, sizeof other, "%s/other", own);
	require(mkdir(own, 0700) == 0 && mkdir(ro_dir, 0500) == 0, "scratch directories");
	make_file(locked, 0, "locked");
	unless_root(open(locked, O_RDONLY), EACCES, true, "open one's own 0000 file");
	unless_root(access(locked, R_OK), EACCES, false, "access(R_OK) of it");
	unless_root(mkdir(path_at(ro_dir, "d"), 0755), EACCES, false,
		    "mkdir in one's own 0500 directory");
	unless_root(open("/etc/shadow", O_RDONLY), EACCES, true, "open /etc/shadow (root's 0640)");
	unless_root(open("/etc/passwd", O_WRONLY | O_APPEND), EACCES, true,
		    "open /etc/passwd to write");
	unless_root(open("/proc/sys/kernel/hostname", O_WRONLY), EACCES, true,
		    "open /proc/sys/kernel/hostname to write");
	/* Another's file: /etc/passwd for the user; for root one it gave away. */
	if (root)
		make_file(other, 0644, "other");
	unless_root(root ? (chown(other, USER, USER) ? -1 : chmod(other, 0600))
			 : chmod("/etc/passwd", 0666),
		    EPERM, false, "chmod of another's file");
	unless_root(chown(locked, 0, 0), EPERM, false, "chown of one's own file to root");
	unless_root(setuid(0), EPERM, false, "setuid(0)");
	unless_root(kill(1, 0), EPERM, false, "kill(1, 0): init is root's");
	is_errno(execl(locked, locked, (char *)NULL), EACCES,
		 "exec of a 0000 file: EACCES for all");
	ok(unlink(locked) == 0 && (!root || unlink(other) == 0) &&
	       rmdir(path_at(ro_dir, "d")) == (root ? 0 : -1) && rmdir(ro_dir) == 0 && rmdir(own) == 0,
	   "clean up");
}

int main(void)
{
	if (geteuid() != 0) {
		plan(IDENTITY_CHECKS);
		identity_checks();
		return done();
	}
	plan(50 + IDENTITY_CHECKS);
	identity_checks();
	snprintf(dir, sizeof dir, "/tmp/perm-%d", (int)getpid());
	snprintf(priv, sizeof priv, "%s/priv", dir);
	snprintf(open_dir, sizeof open_dir, "%s/open", dir);
	snprintf(sticky, sizeof sticky, "%s/sticky", dir);
	snprintf(secret, sizeof secret, "%s/secret", dir);
	snprintf(shared, sizeof shared, "%s/shared", dir);
	snprintf(prog, sizeof prog, "%s/prog", dir);
	require(mkdir(dir, 0755) == 0 && mkdir(priv, 0700) == 0 && mkdir(open_dir, 0755) == 0 &&
		    mkdir(path_at(open_dir, "kept"), 0755) == 0 && mkdir(sticky, 0777) == 0 &&
		    chmod(sticky, 01777) == 0,
		"scratch directories");
	make_file(secret, 0600, "secret");
	make_file(shared, 0644, "shared");
	make_file(path_at(priv, "inside"), 0644, "x");
	make_file(path_at(sticky, "roots"), 0666, "root's");
	make_file(path_at(sticky, "open"), 0666, "open");
	make_file(prog, 0700, "#!/bin/sh\n");
	in_child("ordinary user: opening", user_opens);
	in_child("ordinary user: names", user_names);
	in_child("ordinary user: attributes", user_attrs);
	in_child("ordinary user: access", user_access);
	in_child("real uid apart from effective", setuid_like_access);
	setgid_dir();
	root_checks();
	ok(unlink(path_at(sticky, "roots")) == 0 && unlink(path_at(sticky, "open")) == 0 &&
	       unlink(path_at(priv, "inside")) == 0 && unlink(secret) == 0 && unlink(shared) == 0 &&
	       unlink(prog) == 0 && rmdir(path_at(open_dir, "kept")) == 0 && rmdir(open_dir) == 0 &&
	       rmdir(priv) == 0 && rmdir(sticky) == 0 && rmdir(dir) == 0,
	   "clean up");
	return done();
}
