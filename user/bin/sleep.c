/* sleep: waits for the given number of seconds, fractions allowed
 * ("sleep 0.25"), with nanosleep. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	char *end;
	double secs = argc == 2 ? strtod(argv[1], &end) : -1;
	struct timespec ts;
	if (secs < 0 || end == argv[1] || *end) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 1;
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			return 1;
	return 0;
}
