/* fdcheck: reports which fds a program inherited through execve and their
 * F_GETFD flags, for the fd tests.  usage: fdcheck FD=EXPECT...  where EXPECT
 * is "closed" or the flags wanted; exits with the number of mismatches. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "# fdcheck: fd N flags F" or "... closed"; 0 if that is what spec wants. */
static int check(const char *spec)
{
	char *end;
	int fd = (int)strtol(spec, &end, 10);
	int flags = *end == '=' ? fcntl(fd, F_GETFD) : -2, err = errno;

	if (flags == -2) {
		printf("# fdcheck: bad argument '%s'\n", spec);
		return 1;
	}
	if (flags < 0)
		printf("# fdcheck: fd %d closed (%s)\n", fd, strerror(err));
	else
		printf("# fdcheck: fd %d flags %d\n", fd, flags);
	if (strcmp(end + 1, "closed") == 0)
		return !(flags < 0 && err == EBADF);
	return flags != atoi(end + 1);
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++)
		bad += check(argv[i]);
	fflush(stdout);
	return bad > 125 ? 125 : bad;
}
