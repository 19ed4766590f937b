/* Reading inotify events in tests: what is queued as a short string,
 * compared with what Linux queues. */
#ifndef LINUX_INOTIFY_EVENTS_H
#define LINUX_INOTIFY_EVENTS_H

#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "testutil.h"

/* The events waiting on fd, as "MASK:name" (or "MASK" for no name; the
 * wd as "@wd" when not 1, cookies as "#" when nonzero) joined by spaces:
 * a non-blocking read of everything. */
static inline const char *events(int fd)
{
	static char out[4096];
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n = read(fd, buf, sizeof buf);

	out[0] = '\0';
	for (ssize_t i = 0; n > 0 && i < n;) {
		struct inotify_event *e = (struct inotify_event *)(buf + i);
		size_t l = strlen(out);
		snprintf(out + l, sizeof out - l, "%s%x%s%s%s%s", l ? " " : "", e->mask,
			 e->wd != 1 ? "@" : "", e->wd != 1 ? (e->wd == 2 ? "2" : "?") : "",
			 e->len ? ":" : "", e->len ? e->name : "");
		if (e->cookie)
			strncat(out, "#", sizeof out - strlen(out) - 1);
		i += sizeof *e + e->len;
	}
	return out;
}

/* The events read are as expected (the got ones are shown if not). */
static inline void is(const char *got, const char *want, const char *what)
{
	if (!ok(!strcmp(got, want), "%s", what))
		diag("events \"%s\", expected \"%s\"", got, want);
}

#endif
