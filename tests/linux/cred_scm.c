/* SO_PASSCRED and SCM_CREDENTIALS on AF_UNIX sockets, as Linux: a
 * receiver with SO_PASSCRED gets the sender's process id and real uid
 * and gid with each message, whether the sender sent SCM_CREDENTIALS or
 * not; a sender may claim only its own pid and one of its own uids and
 * gids (EPERM) unless CAP_SYS_ADMIN (pid), CAP_SETUID, CAP_SETGID; a
 * malformed message or an id of -1 is EINVAL, a pid no one has ESRCH;
 * a message sent while neither end asked has no credentials (pid 0,
 * the overflow ids); a stream read never joins writes with different
 * credentials; SO_PASSCRED autobinds a socket that connects or sends. */
#include "cred_util.h"
#include <sys/socket.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/un.h>

#define OVERFLOW_ID 65534

struct creds_msg {
	struct cmsghdr h;
	struct ucred u;
};

/* Sends "x" on s with creds u (NULL: none): the call's result. */
static long send_creds(int s, const struct ucred *u, size_t cmsg_len)
{
	union {
		struct creds_msg m;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} c;
	struct iovec iov = {"x", 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (u) {
		memset(&c, 0, sizeof c);
		c.m.h.cmsg_len = cmsg_len;
		c.m.h.cmsg_level = SOL_SOCKET;
		c.m.h.cmsg_type = SCM_CREDENTIALS;
		memcpy(CMSG_DATA(&c.m.h), u, sizeof *u);
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof c.buf;
	}
	return sendmsg(s, &mh, 0);
}

/* Receives up to n bytes on s: the bytes, and *u the credentials if a
 * SCM_CREDENTIALS came (*got), else untouched. */
static long recv_creds(int s, char *data, size_t n, struct ucred *u, bool *got)
{
	char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {data, n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf};
	long r = recvmsg(s, &mh, MSG_DONTWAIT);

	*got = false;
	for (struct cmsghdr *h = r >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; h; h = CMSG_NXTHDR(&mh, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS &&
		    h->cmsg_len == CMSG_LEN(sizeof *u)) {
			memcpy(u, CMSG_DATA(h), sizeof *u);
			*got = true;
		}
	return r;
}

static bool creds_are(const struct ucred *u, pid_t pid, uid_t uid, gid_t gid)
{
	if (u->pid != pid || u->uid != uid || u->gid != gid)
		diag("creds pid %d uid %u gid %u, expected %d %u %u", u->pid, u->uid, u->gid, pid,
		     uid, gid);
	return u->pid == pid && u->uid == uid && u->gid == gid;
}

static int on(int s)
{
	int one = 1;

	return setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

static void options(void)
{
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), v = -1, zero = 0;
	socklen_t len = sizeof v;

	ok(getsockopt(s, SOL_SOCKET, SO_PASSCRED, &v, &len) == 0 && v == 0 && len == sizeof v,
	   "SO_PASSCRED: 0 at first");
	ok(on(s) == 0 && getsockopt(s, SOL_SOCKET, SO_PASSCRED, &v, &len) == 0 && v == 1,
	   "set: 1");
	ok(setsockopt(s, SOL_SOCKET, SO_PASSCRED, &zero, sizeof zero) == 0 &&
	       getsockopt(s, SOL_SOCKET, SO_PASSCRED, &v, &len) == 0 && v == 0,
	   "cleared: 0");
	close(s);
	s = socket(AF_INET, SOCK_STREAM, 0);
	is_errno(setsockopt(s, SOL_SOCKET, SO_PASSCRED, &zero, sizeof zero), EOPNOTSUPP,
		 "on an inet socket: EOPNOTSUPP");
	is_errno(getsockopt(s, SOL_SOCKET, SO_PASSCRED, &v, &len), EOPNOTSUPP, "to read too");
	close(s);
}

/* An unprivileged sender with differing real, effective and saved ids. */
static void user_sender(void)
{
	int sv[2];
	struct ucred u;
	bool got;
	char c;

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "a datagram pair");
	ok(setresgid(G1, G2, G3) == 0 && setresuid(U1, U2, U3) == 0, "uids U1 U2 U3, gids G1 G2 G3");
	ok(on(sv[1]) == 0, "the receiver asks for credentials");
	ok(send_creds(sv[0], NULL, 0) == 1, "a message without credentials");
	ok(recv_creds(sv[1], &c, 1, &u, &got) == 1 && got && creds_are(&u, getpid(), U1, G1),
	   "the receiver gets the sender's pid, real uid and real gid");
	u = (struct ucred){getpid(), U2, G3};
	ok(send_creds(sv[0], &u, CMSG_LEN(sizeof u)) == 1, "claiming its effective uid, saved gid");
	ok(recv_creds(sv[1], &c, 1, &u, &got) == 1 && got && creds_are(&u, getpid(), U2, G3),
	   "they come as sent");
	u = (struct ucred){getpid(), 0, G1};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u)), EPERM, "claiming uid 0: EPERM");
	u = (struct ucred){getpid(), U1, 0};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u)), EPERM, "gid 0: EPERM");
	u = (struct ucred){getppid(), U1, G1};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u)), EPERM, "another pid: EPERM");
	u = (struct ucred){getpid(), (uid_t)-1, G1};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u)), EINVAL, "uid -1: EINVAL");
	u = (struct ucred){getpid(), U1, G1};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u) - 1), EINVAL, "a short cmsg: EINVAL");
}

static void root_sender(void)
{
	int sv[2];
	struct ucred u;
	bool got;
	char c;

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "a datagram pair");
	ok(on(sv[1]) == 0, "the receiver asks");
	u = (struct ucred){getppid(), U3, G2};
	ok(send_creds(sv[0], &u, CMSG_LEN(sizeof u)) == 1, "root claims another pid and ids");
	ok(recv_creds(sv[1], &c, 1, &u, &got) == 1 && got && creds_are(&u, getppid(), U3, G2),
	   "they come as sent");
	u = (struct ucred){0x7ffffff0, 0, 0};
	is_errno(send_creds(sv[0], &u, CMSG_LEN(sizeof u)), ESRCH, "a pid no one has: ESRCH");
}

static void passcred_rules(void)
{
	int sv[2], st[2];
	struct ucred u;
	bool got;
	char buf[8];

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "a datagram pair");
	ok(send_creds(sv[0], NULL, 0) == 1, "sent while no end asks");
	ok(on(sv[1]) == 0 && send_creds(sv[0], NULL, 0) == 1, "then the receiver asks, another");
	ok(recv_creds(sv[1], buf, 1, &u, &got) == 1 && got && creds_are(&u, 0, OVERFLOW_ID, OVERFLOW_ID),
	   "the first has none: pid 0, the overflow ids");
	ok(recv_creds(sv[1], buf, 1, &u, &got) == 1 && got && creds_are(&u, getpid(), 0, 0),
	   "the second has the sender's");
	u = (struct ucred){getpid(), 0, 0};
	ok(send_creds(sv[1], &u, CMSG_LEN(sizeof u)) == 1 &&
	       recv_creds(sv[0], buf, 1, &u, &got) == 1 && !got,
	   "a receiver that did not ask gets none, even when sent");
	require(socketpair(AF_UNIX, SOCK_STREAM, 0, st) == 0, "a stream pair");
	ok(on(st[1]) == 0, "its reader asks");
	ok(write(st[0], "ab", 2) == 2 && write(st[0], "cd", 2) == 2, "two writes of one process");
	ok(recv_creds(st[1], buf, sizeof buf, &u, &got) == 4 && got &&
	       creds_are(&u, getpid(), 0, 0),
	   "one read takes both, with their credentials");
	u = (struct ucred){getppid(), 0, 0};
	ok(write(st[0], "ef", 2) == 2 && send_creds(st[0], &u, CMSG_LEN(sizeof u)) == 1,
	   "a write, then one claiming another pid");
	ok(recv_creds(st[1], buf, sizeof buf, &u, &got) == 2 && got &&
	       creds_are(&u, getpid(), 0, 0),
	   "a read stops where the credentials change");
	ok(recv_creds(st[1], buf, sizeof buf, &u, &got) == 1 && got &&
	       creds_are(&u, getppid(), 0, 0),
	   "the next read has the other's");
}

/* One-byte writes alternating their credentials cannot queue without
 * bound: the writer is told to wait (EAGAIN) long before the bytes fill
 * the buffer; what was queued reads back piece by piece. */
static void alternating(void)
{
	int st[2], n = 0;
	struct ucred u;
	bool got;
	char buf[8];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, st) == 0, "a stream pair");
	ok(on(st[1]) == 0 && fcntl(st[0], F_SETFL, O_NONBLOCK) == 0, "its reader asks");
	for (; n < 100000; n++) {
		u = (struct ucred){n % 2 ? getppid() : getpid(), 0, 0};
		if (send_creds(st[0], &u, CMSG_LEN(sizeof u)) != 1)
			break;
	}
	ok(n > 2 && n < 100000 && errno == EAGAIN, "writes stop with EAGAIN (after %d)", n);
	ok(recv_creds(st[1], buf, sizeof buf, &u, &got) == 1 && got &&
	       creds_are(&u, getpid(), 0, 0) &&
	       recv_creds(st[1], buf, sizeof buf, &u, &got) == 1 && got &&
	       creds_are(&u, getppid(), 0, 0),
	   "they read back one by one");
	u = (struct ucred){getpid(), 0, 0};
	ok(send_creds(st[0], &u, CMSG_LEN(sizeof u)) == 1, "then the writer may go on");
}

static void autobind(void)
{
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX}, got;
	socklen_t len = sizeof got;

	snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "cred_scm.%d", (int)getpid());
	socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1);
	require(bind(l, (struct sockaddr *)&a, alen) == 0 && listen(l, 1) == 0, "a listener");
	ok(on(c) == 0 && connect(c, (struct sockaddr *)&a, alen) == 0, "SO_PASSCRED, connect");
	ok(getsockname(c, (struct sockaddr *)&got, &len) == 0 &&
	       len == offsetof(struct sockaddr_un, sun_path) + 6 && got.sun_path[0] == 0,
	   "the connecting socket got an autobind name");
	close(c);
	close(l);
}

int main(void)
{
	plan(37);
	require(getuid() == 0, "the test runs as root");
	in_child("options", options);
	in_child("an ordinary user sends", user_sender);
	in_child("root sends", root_sender);
	in_child("SO_PASSCRED's rules", passcred_rules);
	in_child("alternating credentials", alternating);
	in_child("autobind", autobind);
	return done();
}
