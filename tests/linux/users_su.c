/* The image's users (docs/security.md, "Users"): /etc/passwd, /etc/group,
 * /etc/shadow and the homes with their owners and modes as the initrd
 * gives them (iso/owners), and busybox's su, id, whoami, groups and
 * passwd working with them: root becomes `user` (uid 1000) without a
 * password, and `user` may not read /etc/shadow nor change anything in
 * /etc; `user` becomes root with root's password (busybox is set-user-ID
 * root), not with a wrong one.  The image's facts: fdkernel only (SKIP on
 * the host). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "owner_util.h"
#include "testutil.h"

#define BUSYBOX "/bin/busybox"
#define USER_ID "uid=1000(user) gid=1000(user) groups=1000(user)\n"

static char out[4096];

/* busybox sh -c CMD as root, output in out; the exit status, or -1. */
static int sh(const char *cmd)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/", NULL};
	int status = run_capture(BUSYBOX, argv, envp, out, sizeof out);

	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void image(void)
{
	struct stat st = {0};
	int err;

	owned("/etc/passwd", 0644, 0, 0);
	owned("/etc/group", 0644, 0, 0);
	owned("/etc/shadow", 0640, 0, 42); /* group shadow, as Debian */
	owned("/root", 0700, 0, 0);
	owned("/home/user", 0755, 1000, 1000);
	owned("/bin/busybox", 04755, 0, 0); /* as distributions install it, for su */
	err = stat("/tmp", &st);
	ok(err == 0 && (st.st_mode & 07777) == 01777 && st.st_uid == 0,
	   "/tmp: 1777 root's (is %04o)", (unsigned)(st.st_mode & 07777));
}

static void root_to_user(void)
{
	ok(sh("su user -c id") == 0 && !strcmp(out, USER_ID), "su user -c id: %s", out);
	ok(sh("id user") == 0 && !strcmp(out, USER_ID), "id user (as root): %s", out);
	ok(sh("su user -c whoami") == 0 && !strcmp(out, "user\n"), "whoami: %s", out);
	ok(sh("su user -c groups") == 0 && !strcmp(out, "user\n"), "groups: %s", out);
	ok(sh("su -l user -c pwd") == 0 && !strcmp(out, "/home/user\n"),
	   "su -l starts in the home: %s", out);
	ok(sh("id") == 0 && !strncmp(out, "uid=0(root) gid=0(root)", 23), "root stays root: %s",
	   out);
}

/* What the user may not do; each command must fail and leave /etc as it was. */
static void user_refusals(void)
{
	struct stat st;

	ok(sh("su user -c 'cat /etc/shadow'") != 0 && strstr(out, "Permission denied"),
	   "user reads /etc/shadow: refused (%s)", out);
	ok(sh("su user -c 'cat /etc/passwd'") == 0 && !strncmp(out, "root:x:0:0:", 11),
	   "user reads /etc/passwd");
	ok(sh("su user -c 'echo x > /etc/new'") != 0 && stat("/etc/new", &st) < 0,
	   "user creates a file in /etc: refused");
	ok(sh("su user -c 'echo x >> /etc/passwd'") != 0 && sh("tail -n 1 /etc/passwd") == 0 &&
	       strncmp(out, "x\n", 2),
	   "user appends to /etc/passwd: refused");
	ok(sh("su user -c 'rm -f /etc/motd'") != 0 && stat("/etc/motd", &st) == 0,
	   "user removes /etc/motd: refused");
	ok(sh("su user -c 'mkdir /etc/d'") != 0 && stat("/etc/d", &st) < 0,
	   "user makes a directory in /etc: refused");
	ok(sh("su user -c 'chmod 666 /etc/shadow'") != 0 && stat("/etc/shadow", &st) == 0 &&
	       (st.st_mode & 0777) == 0640,
	   "user chmods /etc/shadow: refused");
	ok(sh("su user -c 'ls /root'") != 0, "user lists /root (0700): refused");
	ok(sh("su user -c 'echo mine > /home/user/f'") == 0 && stat("/home/user/f", &st) == 0 &&
	       st.st_uid == 1000 && st.st_gid == 1000 && unlink("/home/user/f") == 0,
	   "user writes in its home; the file is its own");
}

/* su from the user back to root, by password: busybox's set-user-ID bit. */
static void user_to_root(void)
{
	ok(sh("su user -c 'echo root | su root -c id'") == 0 &&
	       strstr(out, "uid=0(root) gid=0(root)") != NULL,
	   "user: su root, right password: %s", out);
	ok(sh("su user -c 'echo wrong | su root -c id'") != 0 && !strstr(out, "uid=0"),
	   "a wrong password: refused (%s)", out);
}

/* passwd as root rewrites the user's line of /etc/shadow (and /etc/passwd's
 * "x"), keeping each file's owner and mode, the old ones kept as NAME-
 * (links).  It runs in a chroot holding copies: the image's own files stay
 * as they were. */
static void change_password(void)
{
	ok(sh("mkdir -p /tmp/pw/etc /tmp/pw/bin && cp -p /etc/passwd /etc/shadow /etc/group "
	      "/tmp/pw/etc/ && cp /bin/busybox /tmp/pw/bin/") == 0,
	   "a chroot with copies of the account files");
	owned("/tmp/pw/etc/shadow", 0640, 0, 42);
	ok(sh("printf 'pw2\\npw2\\n' | chroot /tmp/pw /bin/busybox passwd user") == 0 &&
	       strstr(out, "password for user changed"),
	   "passwd user (as root): %s", out);
	ok(sh("grep ^user: /tmp/pw/etc/shadow") == 0 && !strncmp(out, "user:$", 6) &&
	       strncmp(out, "user:$6$fdkerneluser0000", 24),
	   "the user's hash changed: %s", out);
	owned("/tmp/pw/etc/shadow", 0640, 0, 42);
	owned("/tmp/pw/etc/passwd", 0644, 0, 0);
	ok(sh("cmp /etc/shadow /tmp/pw/etc/shadow-") == 0, "the old file kept as /etc/shadow-");
	ok(sh("rm -r /tmp/pw") == 0, "remove the chroot");
}

int main(void)
{
	if (!on_fdkernel())
		skip_all("the image's accounts: fdkernel only");
	plan(32);
	image();
	root_to_user();
	user_refusals();
	user_to_root();
	change_password();
	return done();
}
