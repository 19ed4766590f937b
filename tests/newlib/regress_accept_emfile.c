/*
 * Regression (issue 13, item 8): accept at the fd limit took the connection
 * off the queue before it had an fd; on EMFILE the connection was torn down
 * and the client read ECONNRESET.  Linux reserves the fd first: EMFILE
 * leaves the connection queued, and once an fd is free accept returns it
 * with its data.  For both families, on the host Linux too.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>

#include "robust.h"
#include "sock_util.h"

#define LIMIT 64 /* RLIMIT_NOFILE while the table is full */

/* dup(0) until EMFILE: the last fd made, or -1. */
static int fill_fds(void)
{
	int fd, last = -1;

	while ((fd = dup(0)) >= 0)
		last = fd;
	return errno == EMFILE ? last : -1;
}

static void close_from(int first, int last)
{
	for (int fd = first; fd <= last; fd++)
		close(fd);
}

static void check_family(int family)
{
	const char *fn = fam_name(family);
	struct saddr a;
	struct pollfd p;
	char buf[8] = {0};
	int l = sock_server(family, SOCK_STREAM, "accmfile", &a);
	int c = sock_client(family, SOCK_STREAM, &a), s, first, last;

	require(l >= 0 && c >= 0 && fcntl(l, F_SETFL, O_NONBLOCK) == 0, "listener and client");
	require(write(c, "ping", 4) == 4, "client write");
	first = dup(0);
	close(first);
	last = fill_fds();
	require(last >= first, "filling the fd table");
	is_errno(accept(l, NULL, NULL), EMFILE, "%s: accept with no free fd: EMFILE", fn);
	is_errno(accept(l, NULL, NULL), EMFILE, "%s: and again: EMFILE", fn);
	p = (struct pollfd){.fd = c, .events = POLLIN};
	ok(poll(&p, 1, 0) == 0, "%s: the client sees no reset or hang-up (revents %#x)", fn,
	   p.revents);
	close(last);
	s = accept(l, NULL, NULL);
	ok(s == last, "%s: an fd freed: accept returns the queued connection (fd %d)", fn, s);
	ok(read(s, buf, sizeof buf) == 4 && memcmp(buf, "ping", 4) == 0,
	   "%s: with the data sent before accept", fn);
	ok(write(s, "pong", 4) == 4 && read(c, buf, sizeof buf) == 4 && memcmp(buf, "pong", 4) == 0,
	   "%s: and data flows back", fn);
	close(s);
	close_from(first, last - 1);
	close(c);
	close(l);
	saddr_drop(&a);
}

int main(void)
{
	struct rlimit old, low;
	struct kstat before;
	bool have_before = kstat_read(&before);

	plan(13);
	require(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
	low = (struct rlimit){LIMIT, old.rlim_max};
	require(setrlimit(RLIMIT_NOFILE, &low) == 0, "setrlimit");
	check_family(AF_UNIX);
	check_family(AF_INET);
	require(setrlimit(RLIMIT_NOFILE, &old) == 0, "restoring RLIMIT_NOFILE");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
