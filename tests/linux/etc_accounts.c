/* The root file system's /etc/passwd and /etc/group hold Debian's base
 * accounts (base-passwd's fixed ids), which programs and test suites look
 * up by name: root, daemon, bin, sys, users, nobody and nogroup, each
 * named once, and the name back from the id. */
#include <grp.h>
#include <pwd.h>
#include <string.h>

#include "testutil.h"

static const struct {
	const char *name;
	uid_t uid;
	gid_t gid;
	const char *home;
} users[] = {
    {"root", 0, 0, "/root"},
    {"daemon", 1, 1, "/usr/sbin"},
    {"bin", 2, 2, "/bin"},
    {"sys", 3, 3, "/dev"},
    {"sync", 4, 65534, "/bin"},
    {"mail", 8, 8, "/var/mail"},
    {"www-data", 33, 33, "/var/www"},
    {"nobody", 65534, 65534, "/nonexistent"},
};

static const struct {
	const char *name;
	gid_t gid;
} groups[] = {
    {"root", 0}, {"daemon", 1}, {"bin", 2},	{"sys", 3},	    {"adm", 4},
    {"tty", 5},	 {"disk", 6},	{"users", 100}, {"nogroup", 65534},
};

/* How many entries of the passwd (or group) file have this name. */
static int times_named(const char *name, int group)
{
	int n = 0;

	if (group) {
		struct group *g;
		setgrent();
		while ((g = getgrent()))
			n += !strcmp(g->gr_name, name);
		endgrent();
	} else {
		struct passwd *p;
		setpwent();
		while ((p = getpwent()))
			n += !strcmp(p->pw_name, name);
		endpwent();
	}
	return n;
}

int main(void)
{
	plan(2 * (sizeof users / sizeof users[0] + sizeof groups / sizeof groups[0]));
	for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
		struct passwd *p = getpwnam(users[i].name);
		ok(p && p->pw_uid == users[i].uid && p->pw_gid == users[i].gid &&
		       !strcmp(p->pw_dir, users[i].home),
		   "user %s: uid %u, gid %u, home %s", users[i].name, (unsigned)users[i].uid,
		   (unsigned)users[i].gid, users[i].home);
		p = getpwuid(users[i].uid);
		ok(p && !strcmp(p->pw_name, users[i].name) && times_named(users[i].name, 0) == 1,
		   "uid %u is %s, named once", (unsigned)users[i].uid, users[i].name);
	}
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
		struct group *g = getgrnam(groups[i].name);
		ok(g && g->gr_gid == groups[i].gid, "group %s: gid %u", groups[i].name,
		   (unsigned)groups[i].gid);
		g = getgrgid(groups[i].gid);
		ok(g && !strcmp(g->gr_name, groups[i].name) && times_named(groups[i].name, 1) == 1,
		   "gid %u is %s, named once", (unsigned)groups[i].gid, groups[i].name);
	}
	return done();
}
