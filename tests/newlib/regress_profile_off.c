/* Regression (found while fuzzing): reading /dev/profile on a kernel booted
 * without `profile` dereferenced the missing counter array: a kernel panic. */
#include <fcntl.h>

#include "robust.h"

int main(void)
{
	static char report[8192];
	if (!on_fdkernel())
		skip_all("/dev/profile is fdkernel's");
	plan(3);
	int fd = open("/dev/profile", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, report, sizeof report - 1);
	ok(n > 0, "reading /dev/profile returns a report (%zd bytes)", n);
	report[n > 0 ? n : 0] = '\0';
	ok(strstr(report, "samples") != NULL, "it starts with the sample count");
	ok(close(fd) == 0, "and closes");
	return done();
}
