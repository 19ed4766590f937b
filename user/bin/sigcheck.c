/* sigcheck: reports the signal state a program got through execve, for the
 * sig_* tests.  usage: sigcheck blocked=HEX SIG=dfl|ign...  (Linux numbers);
 * prints one "# sigcheck:" line per check and exits with the mismatches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigutil.h"

/* The handler of Linux signal SIG as "dfl", "ign" or "handler". */
static const char *disposition(int sig)
{
	struct uapi_sigaction old;

	if (syscall(__NR_rt_sigaction, sig, NULL, &old, 8) < 0)
		return "error";
	return old.handler == UAPI_SIG_DFL   ? "dfl"
	       : old.handler == UAPI_SIG_IGN ? "ign"
					     : "handler";
}

/* One "blocked=HEX" or "SIG=dfl|ign" check; 0 if it holds. */
static int check(const char *spec)
{
	char *end;

	if (strncmp(spec, "blocked=", 8) == 0) {
		uint64_t want = strtoull(spec + 8, NULL, 16), got = lsig_blocked();
		printf("# sigcheck: blocked %#llx, want %#llx\n", (unsigned long long)got,
		       (unsigned long long)want);
		return got != want;
	}
	int sig = (int)strtol(spec, &end, 10);
	if (*end != '=') {
		printf("# sigcheck: bad argument '%s'\n", spec);
		return 1;
	}
	printf("# sigcheck: signal %d %s, want %s\n", sig, disposition(sig), end + 1);
	return strcmp(disposition(sig), end + 1) != 0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++)
		bad += check(argv[i]);
	return bad;
}
