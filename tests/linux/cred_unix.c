/* The file permissions of AF_UNIX path sockets, as Linux: bind makes the
 * socket file 0777 less the umask, in a directory the caller may write
 * (EACCES; an existing name is EADDRINUSE first); connect and sendto
 * need write permission on the socket file (EACCES, before the file's
 * type: a non-socket is ECONNREFUSED only when writable) and search
 * permission on the directories on the way. */
#include "cred_util.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

static char dir[64];

static struct sockaddr_un addr_of(const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", dir, name);
	return a;
}

static int connect_to(const char *name, int type)
{
	struct sockaddr_un a = addr_of(name);
	int s = socket(AF_UNIX, type, 0), r = connect(s, (struct sockaddr *)&a, sizeof a);
	int e = errno;

	close(s);
	errno = e;
	return r;
}

static int send_to(const char *name)
{
	struct sockaddr_un a = addr_of(name);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	long r = sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof a);
	int e = errno;

	close(s);
	errno = e;
	return (int)r;
}

static int listener, receiver;

static void as_user(void)
{
	struct sockaddr_un a = addr_of("sub/mine");

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(connect_to("stream", SOCK_STREAM), EACCES, "connect to root's 0755 socket: EACCES");
	is_errno(send_to("dgram"), EACCES, "sendto root's 0755 datagram socket: EACCES");
	is_errno(connect_to("dgram", SOCK_DGRAM), EACCES, "connect a datagram socket to it: EACCES");
	is_errno(connect_to("ro_file", SOCK_STREAM), EACCES,
		 "a file it may not write: EACCES before ECONNREFUSED");
	is_errno(connect_to("rw_file", SOCK_STREAM), ECONNREFUSED, "one it may: ECONNREFUSED");
	ok(connect_to("open_stream", SOCK_STREAM) == 0, "a 0777 socket: connects");
	ok(send_to("open_dgram") == 1, "a 0777 datagram socket: sendto");
	is_errno(connect_to("closed/stream", SOCK_STREAM), EACCES,
		 "through a directory it may not search: EACCES");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EACCES,
		 "bind in a directory it may not write: EACCES");
	a = addr_of("stream");
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EADDRINUSE,
		 "bind on an existing name there: EADDRINUSE first");
	close(s);
}

static int bound(const char *name, int type, mode_t mode)
{
	struct sockaddr_un a = addr_of(name);
	int s = socket(AF_UNIX, type, 0);

	require(bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
		    (type == SOCK_DGRAM || listen(s, 8) == 0) && chmod(a.sun_path, mode) == 0,
		"a bound socket");
	return s;
}

int main(void)
{
	struct stat st;
	char path[128];

	plan(13);
	require(getuid() == 0, "the test runs as root");
	snprintf(dir, sizeof dir, "/tmp/cred_unix.%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "a scratch directory");
	umask(027);
	listener = bound("stream", SOCK_STREAM, 0755);
	snprintf(path, sizeof path, "%s/stream", dir);
	ok(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "bind made a socket file");
	umask(022);
	int probe = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un pa = addr_of("probe");
	ok(bind(probe, (struct sockaddr *)&pa, sizeof pa) == 0 && stat(pa.sun_path, &st) == 0 &&
	       (st.st_mode & 07777) == 0755,
	   "its mode: 0777 less the umask");
	close(probe);
	unlink(pa.sun_path);
	receiver = bound("dgram", SOCK_DGRAM, 0755);
	int os = bound("open_stream", SOCK_STREAM, 0777), od = bound("open_dgram", SOCK_DGRAM, 0777);
	snprintf(path, sizeof path, "%s/ro_file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	snprintf(path, sizeof path, "%s/rw_file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0666));
	chmod(path, 0666);
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/closed", dir);
	mkdir(path, 0700);
	int cs = bound("closed/stream", SOCK_STREAM, 0777);
	in_child("as a user", as_user);
	const char *names[] = {"stream", "dgram", "open_stream", "open_dgram", "ro_file",
			       "rw_file", "closed/stream", "sub", "closed"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (unlink(path) != 0)
			rmdir(path);
	}
	rmdir(dir);
	close(listener), close(receiver), close(os), close(od), close(cs);
	return done();
}
