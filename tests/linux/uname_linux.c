/* Identity: uname says what Linux says (sysname "Linux", a release of
 * Linux's form new enough for programs' kernel-version gates), and
 * /proc/version repeats uname's release and version as Linux writes it.
 * In fdkernel the release is "6.1.0-fdkernel" and the version string
 * carries fdkernel's own name and version (docs/linux-abi.md, "Identity"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "testutil.h"

/* Whether release is Linux's "MAJOR.MINOR..." at least 4.11. */
static bool release_at_least_4_11(const char *release)
{
	int major, minor;

	if (sscanf(release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 4 || (major == 4 && minor >= 11);
}

int main(void)
{
	struct utsname u;
	char buf[512], head[160];
	size_t vlen, blen;

	plan(6);
	require(uname(&u) == 0, "uname");
	ok(strcmp(u.sysname, "Linux") == 0, "sysname \"%s\" is Linux", u.sysname);
	ok(release_at_least_4_11(u.release),
	   "release %s has Linux's form, 4.11 or newer (programs' version gates)", u.release);
	if (on_fdkernel()) {
		ok(strcmp(u.release, "6.1.0-fdkernel") == 0, "release \"%s\" is fdkernel's",
		   u.release);
		ok(strstr(u.version, "fdkernel") != NULL, "version names fdkernel: %s", u.version);
	} else {
		skip("host", "release is fdkernel's");
		skip("host", "version names fdkernel");
	}
	blen = read_text("/proc/version", buf, sizeof buf) > 0 ? strlen(buf) : 0;
	snprintf(head, sizeof head, "Linux version %s ", u.release);
	ok(blen && strncmp(buf, head, strlen(head)) == 0, "/proc/version begins \"%s\"", head);
	vlen = strlen(u.version);
	ok(blen > vlen && buf[blen - 1] == '\n' &&
	       strncmp(buf + blen - 1 - vlen, u.version, vlen) == 0,
	   "/proc/version ends with uname's version \"%s\"", u.version);
	return done();
}
