/* socketpair and accept4 with a bad result address fail with EFAULT and
 * leave no fd behind, and no fd is ever visible meanwhile: the fds are
 * reserved, the results copied out, and only then installed (as pipe2).
 * A watcher thread polls the fd numbers the calls would take while the
 * main thread makes them fail over and over; an accept4 that fails drops
 * its connection, as Linux's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "threads.h"

#define ROUNDS 3000

static volatile int watch_stop;
static int watch_lo, watch_hi;	       /* the fds [lo, hi] must never be open */
static volatile long seen;	       /* times the watcher found one open */
static void *volatile bad = (void *)8; /* an address no call may write */

static void *watcher(void *arg)
{
	(void)arg;
	while (!watch_stop)
		for (int fd = watch_lo; fd <= watch_hi; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				seen++;
	return NULL;
}

/* The lowest free fd: the first a call would take. */
static int lowest_free(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static void watch(int lo, int hi)
{
	watch_lo = lo;
	watch_hi = hi;
	seen = 0;
	watch_stop = 0;
}

static void test_socketpair(void)
{
	pthread_t t;
	int lo = lowest_free(), efault = 0;

	watch(lo, lo + 1);
	t = start_thread(watcher, NULL);
	for (int i = 0; i < ROUNDS; i++)
		efault += socketpair(AF_UNIX, SOCK_STREAM, 0, bad) == -1 && errno == EFAULT;
	watch_stop = 1;
	pthread_join(t, NULL);
	is_int(efault, ROUNDS, "socketpair into a bad array: EFAULT every time");
	is_int(seen, 0, "no other thread ever saw its fds");
	is_int(lowest_free(), lo, "no fd is left open");
}

static void test_accept4(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin, badlen = sizeof sin;
	int l = socket(AF_INET, SOCK_STREAM, 0), efault = 0, c, lo;
	char b;
	pthread_t t;

	require(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 8) == 0 &&
		    getsockname(l, (struct sockaddr *)&sin, &len) == 0,
		"listener");
	lo = lowest_free();
	c = socket(AF_INET, SOCK_STREAM, 0);
	require(connect(c, (struct sockaddr *)&sin, sizeof sin) == 0, "connect");
	is_errno(accept4(l, bad, &badlen, 0), EFAULT, "accept4 to a bad address: EFAULT");
	is_int(read(c, &b, 1), 0, "the connection it took is closed (the client reads EOF)");
	close(c);

	lo = lowest_free();
	watch(lo + 1, lo + 1); /* each round's client takes lo, its accept lo + 1 */
	t = start_thread(watcher, NULL);
	for (int i = 0; i < ROUNDS / 10; i++) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&sin, sizeof sin) == 0)
			efault += accept4(l, bad, &badlen, SOCK_CLOEXEC) == -1 && errno == EFAULT;
		close(c);
	}
	watch_stop = 1;
	pthread_join(t, NULL);
	is_int(efault, ROUNDS / 10,
	       "accept4 to a bad address, with a connection each time: EFAULT");
	is_int(seen, 0, "no other thread ever saw the accepted fd");
	is_int(lowest_free(), lo, "no fd is left open");
	close(l);
}

int main(void)
{
	plan(8);
	test_socketpair();
	test_accept4();
	return done();
}
