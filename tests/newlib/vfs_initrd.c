/* The initrd's symbolic links: the cpio loader recreates a relative one
 * (/etc/motd.link -> motd) and an absolute one (/bin/sh-link -> /bin/sh),
 * and both resolve.  fdkernel only: the host has no such initrd. */
#include "tap.h"
#include "vfs_util.h"

static void check_link(const char *link, const char *target, const char *resolved)
{
	char buf[64];
	struct stat st;
	ssize_t n = readlink(link, buf, sizeof buf - 1);

	buf[n > 0 ? n : 0] = '\0';
	ok(lstat(link, &st) == 0 && S_ISLNK(st.st_mode) && !strcmp(buf, target),
	   "%s is a link to %s", link, target);
	ok(ino_of(link, false) != 0 && ino_of(link, false) == ino_of(resolved, false),
	   "%s resolves to %s", link, resolved);
}

int main(void)
{
	if (!on_fdkernel())
		skip_all("fdkernel's initrd");
	plan(5);
	check_link("/etc/motd.link", "motd", "/etc/motd");
	check_link("/bin/sh-link", "/bin/sh", "/bin/sh");
	ok(access("/bin/sh-link", X_OK) == 0, "the link to the shell is executable");
	return done();
}
