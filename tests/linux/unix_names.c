/* AF_UNIX names (bind05): abstract names (sun_path[0] == 0) for datagram
 * and stream sockets, one namespace per type, gone with their socket;
 * autobind (bind with only the family); path names of every length up to
 * the whole sun_path and the errors of bad ones. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

#define OFF offsetof(struct sockaddr_un, sun_path)

/* An abstract name: "\0" then text, length exact. */
static socklen_t abstract(struct sockaddr_un *a, const char *text)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, text, strlen(text));
	return OFF + 1 + strlen(text);
}

static void test_abstract(void)
{
	struct sockaddr_un a, got;
	char name[32], buf[8];
	socklen_t len, alen;
	int r, s, r2, l, c;

	snprintf(name, sizeof name, "fdk-names-%d", getpid());
	alen = abstract(&a, name);
	r = socket(AF_UNIX, SOCK_DGRAM, 0);
	is_int(bind(r, (struct sockaddr *)&a, alen), 0,
	       "bind a datagram socket to an abstract name");
	len = sizeof got;
	ok(getsockname(r, (struct sockaddr *)&got, &len) == 0 && len == alen &&
	       memcmp(&got, &a, alen) == 0,
	   "getsockname: the abstract name, exact length");
	r2 = socket(AF_UNIX, SOCK_DGRAM, 0);
	is_errno(bind(r2, (struct sockaddr *)&a, alen), EADDRINUSE,
		 "the same name again: EADDRINUSE");
	is_int(bind(r2, (struct sockaddr *)&a, alen - 1), 0, "a prefix of it is another name");
	close(r2);
	is_errno(bind(r, (struct sockaddr *)&a, alen), EINVAL, "binding a bound socket: EINVAL");

	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	ok(sendto(s, "hi", 2, 0, (struct sockaddr *)&a, alen) == 2 &&
	       recv(r, buf, sizeof buf, 0) == 2,
	   "sendto the abstract name reaches its socket");
	ok(connect(s, (struct sockaddr *)&a, alen) == 0 && send(s, "yo", 2, 0) == 2 &&
	       recv(r, buf, sizeof buf, 0) == 2,
	   "connect to it, send");
	close(s);

	l = socket(AF_UNIX, SOCK_STREAM, 0);
	is_int(bind(l, (struct sockaddr *)&a, alen), 0,
	       "a stream socket may take the datagram one's name");
	require(listen(l, 1) == 0, "listen");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(connect(c, (struct sockaddr *)&a, alen) == 0,
	   "a stream connect finds the listener by the name");
	close(c);
	close(l);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	is_errno(connect(c, (struct sockaddr *)&a, alen), ECONNREFUSED,
		 "closed, the stream name is gone: ECONNREFUSED");
	close(c);

	close(r);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	is_errno(sendto(s, "x", 1, 0, (struct sockaddr *)&a, alen), ECONNREFUSED,
		 "the datagram name went with its socket: ECONNREFUSED");
	r = socket(AF_UNIX, SOCK_DGRAM, 0);
	is_int(bind(r, (struct sockaddr *)&a, alen), 0, "and may be bound again at once");
	close(r);
	close(s);
}

static void test_autobind(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX}, got, again;
	socklen_t len = sizeof got;
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), t;
	bool hex = true;
	char buf[4];

	is_int(bind(s, (struct sockaddr *)&a, OFF), 0, "bind with only the family: autobind");
	ok(getsockname(s, (struct sockaddr *)&got, &len) == 0 && len == OFF + 6 &&
	       got.sun_path[0] == 0,
	   "an abstract name of five characters");
	for (int i = 1; i <= 5; i++)
		hex = hex && strchr("0123456789abcdef", got.sun_path[i]);
	ok(hex, "... lower-case hex digits");
	is_int(bind(s, (struct sockaddr *)&a, OFF), 0, "autobind of a bound socket: 0");
	len = sizeof again;
	ok(getsockname(s, (struct sockaddr *)&again, &len) == 0 &&
	       memcmp(&again, &got, OFF + 6) == 0,
	   "... and its name stays");
	t = socket(AF_UNIX, SOCK_DGRAM, 0);
	ok(sendto(t, "a", 1, 0, (struct sockaddr *)&got, OFF + 6) == 1 && recv(s, buf, 1, 0) == 1,
	   "the autobound name can be sent to");
	close(t);
	close(s);
}

static void test_paths(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX}, got;
	char big[sizeof(struct sockaddr_un) + 8];
	socklen_t len = sizeof got;
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	char dir[64];

	snprintf(dir, sizeof dir, "/tmp/unix_names.%d", getpid());
	mkdir(dir, 0700);
	snprintf(a.sun_path, sizeof a.sun_path, "%s/s", dir);
	is_int(bind(s, (struct sockaddr *)&a, sizeof a), 0,
	       "a path with sizeof(sockaddr_un) as length");
	ok(getsockname(s, (struct sockaddr *)&got, &len) == 0 &&
	       len == OFF + strlen(a.sun_path) + 1,
	   "its name: the path and one NUL");
	close(s);
	unlink(a.sun_path);

	/* All 108 bytes, no NUL. */
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	memset(a.sun_path, 'n', sizeof a.sun_path);
	memcpy(a.sun_path, dir, strlen(dir));
	a.sun_path[strlen(dir)] = '/';
	is_int(bind(s, (struct sockaddr *)&a, sizeof a), 0, "a 108-byte path without NUL");
	len = sizeof big;
	ok(getsockname(s, (struct sockaddr *)big, &len) == 0 &&
	       len == OFF + sizeof a.sun_path + 1 &&
	       memcmp(big + OFF, a.sun_path, sizeof a.sun_path) == 0,
	   "its name: all 108 bytes and a NUL, longer than sockaddr_un");
	close(s);
	memcpy(big, a.sun_path, sizeof a.sun_path);
	big[sizeof a.sun_path] = 0;
	unlink(big);

	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	memset(big, 0, sizeof big);
	memcpy(big, &a, sizeof a);
	is_errno(bind(s, (struct sockaddr *)big, sizeof a + 1), EINVAL,
		 "a length past sockaddr_un: EINVAL");
	snprintf(a.sun_path, sizeof a.sun_path, "%s/no/such/dir", dir);
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), ENOENT,
		 "a path in a missing directory: ENOENT");
	a.sun_family = AF_INET;
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EINVAL, "another family: EINVAL");
	a.sun_family = AF_UNIX;
	is_errno(bind(s, (struct sockaddr *)&a, OFF - 1), EINVAL,
		 "a length shorter than the family: EINVAL");
	close(s);
	rmdir(dir);
}

int main(void)
{
	plan(26);
	test_abstract();
	test_autobind();
	test_paths();
	return done();
}
