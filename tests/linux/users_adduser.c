/* The image's account tools (iso/rootfs/usr/sbin/adduser: adduser,
 * deluser, addgroup, delgroup; docs/security.md, "Users"), run by root in
 * a chroot holding copies of /etc/passwd, /etc/group, /etc/shadow, busybox
 * and the tools, so the image's own files stay as they were: a new user
 * gets the next free uid, a group of its own, a locked shadow entry and a
 * home it owns, and su reaches it; groups gain and lose members; a name
 * in use, a primary group and an unknown user are refused; deluser takes
 * the user and its group away; every file keeps its owner and mode.
 * fdkernel only (the image's files). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "owner_util.h"
#include "testutil.h"

#define ROOT "/tmp/acct"

static char out[4096];

/* busybox sh -c CMD in the chroot (root), output in out; the exit status. */
static int in_root(const char *cmd)
{
	char *argv[] = {"chroot", ROOT, "/bin/busybox", "sh", "-c", (char *)cmd, NULL};
	char *envp[] = {"PATH=/usr/sbin:/bin", "HOME=/", NULL};
	int status = run_capture("/bin/busybox", argv, envp, out, sizeof out);

	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool is(const char *want)
{
	return !strcmp(out, want);
}

static void make_root(void)
{
	char *argv[] = {"sh", "-c",
			"mkdir -p " ROOT "/etc " ROOT "/bin " ROOT "/usr/sbin " ROOT "/home && "
			"cp -p /etc/passwd /etc/group /etc/shadow " ROOT "/etc/ && "
			"cp /bin/busybox " ROOT
			"/bin/ && cp -P /usr/sbin/adduser /usr/sbin/deluser "
			"/usr/sbin/addgroup /usr/sbin/delgroup " ROOT "/usr/sbin/ && "
			"chroot " ROOT " /bin/busybox --install -s /bin",
			NULL};
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	int status = run_capture("/bin/busybox", argv, envp, out, sizeof out);

	require(status == 0, "a chroot with copies of the account files and the tools");
}

static void add_user(void)
{
	ok(in_root("adduser -D bob") == 0, "adduser -D bob: %s", out);
	ok(in_root("grep ^bob: /etc/passwd") == 0 && is("bob:x:1001:1001::/home/bob:/bin/sh\n"),
	   "the next free uid, a home, /bin/sh: %s", out);
	ok(in_root("grep ^bob: /etc/group") == 0 && is("bob:x:1001:\n"), "a group of its own: %s",
	   out);
	ok(in_root("grep ^bob: /etc/shadow | cut -d: -f1,2") == 0 && is("bob:!\n"),
	   "a locked password (-D): %s", out);
	owned(ROOT "/home/bob", 0755, 1001, 1001);
	owned(ROOT "/etc/passwd", 0644, 0, 0);
	owned(ROOT "/etc/shadow", 0640, 0, 42);
	ok(in_root("su bob -c id") == 0 && is("uid=1001(bob) gid=1001(bob) groups=1001(bob)\n"),
	   "su bob -c id: %s", out);
	ok(in_root("adduser -D bob") != 0 && strstr(out, "in use"), "a second bob: %s", out);
	ok(in_root("adduser -D -u 1000 carol") != 0 && strstr(out, "in use"), "a uid in use: %s",
	   out);
	ok(in_root("adduser -D 'x:y'") != 0 && strstr(out, "illegal"), "a name with ':': %s", out);
}

static void groups(void)
{
	ok(in_root("addgroup -g 3000 team && adduser bob team && addgroup user team") == 0,
	   "addgroup -g 3000 team, two members: %s", out);
	ok(in_root("grep ^team: /etc/group") == 0 && is("team:x:3000:bob,user\n"),
	   "team's line: %s", out);
	ok(in_root("su bob -c id") == 0 &&
	       is("uid=1001(bob) gid=1001(bob) groups=1001(bob),3000(team)\n"),
	   "bob is in it: %s", out);
	ok(in_root("deluser user team && grep ^team: /etc/group") == 0 && is("team:x:3000:bob\n"),
	   "deluser user team: %s", out);
	ok(in_root("delgroup user") != 0 && strstr(out, "primary group"),
	   "delgroup of a primary group: refused: %s", out);
	ok(in_root("adduser nobody-such team") != 0 && strstr(out, "unknown user"),
	   "an unknown user: %s", out);
}

static void remove_user(void)
{
	ok(in_root("deluser bob") == 0, "deluser bob: %s", out);
	ok(in_root("grep -c bob /etc/passwd /etc/shadow /etc/group") != 0 &&
	       is("/etc/passwd:0\n/etc/shadow:0\n/etc/group:0\n"),
	   "gone from every file, its group and team's members too: %s", out);
	ok(in_root("delgroup team && grep -c team /etc/group") != 0 && is("0\n"),
	   "delgroup team: %s", out);
	owned(ROOT "/etc/group", 0644, 0, 0);
	ok(in_root("ls /etc") == 0 && is("group\npasswd\nshadow\n"), "no file left behind: %s",
	   out);
}

int main(void)
{
	if (!on_fdkernel())
		skip_all("the image's accounts and tools: fdkernel only");
	plan(23);
	make_root();
	add_user();
	groups();
	remove_user();
	char *argv[] = {"rm", "-rf", ROOT, NULL};
	ok(run_capture("/bin/busybox", argv, NULL, out, sizeof out) == 0, "remove the chroot");
	return done();
}
