/*
 * Regression (issue 13, item 13): a connection still queued on a listener
 * (never accepted) read EOF when the listener closed, as if the server had
 * hung up after serving it.  Linux resets it: the client reads ECONNRESET
 * once, then EOF, and a send fails with EPIPE.  Both families, with and
 * without data sent before the close, on the host Linux too.
 */
#include "sock_util.h"

static void check(int family, bool sent)
{
	const char *fn = fam_name(family), *what = sent ? "data sent" : "nothing sent";
	struct saddr a;
	char c;
	int l = sock_server(family, SOCK_STREAM, "lclose", &a);
	int fd = sock_client(family, SOCK_STREAM, &a);

	require(l >= 0 && fd >= 0, "listener and client");
	if (sent)
		require(write(fd, "x", 1) == 1, "write");
	close(l);
	is_errno(read(fd, &c, 1), ECONNRESET,
		 "%s, %s: the listener closed: the client reads ECONNRESET", fn, what);
	is_int(read(fd, &c, 1), 0, "%s, %s: then EOF", fn, what);
	is_errno(send(fd, "y", 1, MSG_NOSIGNAL), EPIPE, "%s, %s: a send fails with EPIPE", fn,
		 what);
	close(fd);
	saddr_drop(&a);
}

int main(void)
{
	plan(2 * 2 * 3);
	for (int i = 0; i < 2; i++) {
		check(families[i], false);
		check(families[i], true);
	}
	return done();
}
