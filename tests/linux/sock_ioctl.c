/* ioctl on sockets: FIONREAD (a stream's bytes ready, EINVAL while
 * listening; a datagram socket's next message length) on AF_UNIX and
 * loopback TCP and UDP; the loopback interface's requests
 * (SIOCGIFFLAGS, SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFMTU, SIOCSIFFLAGS with
 * CAP_NET_ADMIN only), ENODEV for another interface, EFAULT; busybox's
 * `ip link set lo up`, as LTP's sendmsg01 runs it.  In fdkernel lo cannot
 * be taken down (EOPNOTSUPP); the host's is left alone. */
#define _GNU_SOURCE
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

static int inq(int fd)
{
	int n = -1;

	return ioctl(fd, FIONREAD, &n) ? -1 : n;
}

static void wait_readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	poll(&p, 1, 10000);
}

static void test_unix(void)
{
	int sv[2], dg[2];
	char buf[16];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0,
		"socketpairs");
	is_int(inq(sv[1]), 0, "AF_UNIX stream, nothing sent: 0");
	require(write(sv[0], "hello", 5) == 5 && write(sv[0], "!!", 2) == 2, "write 5 + 2");
	is_int(inq(sv[1]), 7, "... 7 bytes ready");
	require(read(sv[1], buf, 3) == 3, "read 3");
	is_int(inq(sv[1]), 4, "... 4 left");
	require(write(dg[0], "abc", 3) == 3 && write(dg[0], "0123456789", 10) == 10, "send 3, 10");
	is_int(inq(dg[1]), 3, "AF_UNIX datagram: the first message's length");
	require(read(dg[1], buf, sizeof buf) == 3, "read it");
	is_int(inq(dg[1]), 10, "... then the next one's");
	require(read(dg[1], buf, sizeof buf) == 10, "read it");
	is_int(inq(dg[1]), 0, "... none left: 0");
	is_errno(ioctl(sv[1], FIONREAD, (int *)8), EFAULT, "a bad pointer: EFAULT");
	close(sv[0]), close(sv[1]), close(dg[0]), close(dg[1]);
}

static void test_inet(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
	int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);

	require(l >= 0 && c >= 0 && bind(l, (void *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (void *)&a, &len) == 0,
		"a TCP listener on 127.0.0.1");
	is_errno(ioctl(l, FIONREAD, &(int){0}), EINVAL, "FIONREAD on a listener: EINVAL");
	require(connect(c, (void *)&a, sizeof a) == 0 && (s = accept(l, NULL, NULL)) >= 0,
		"connect, accept");
	require(write(c, "1234567", 7) == 7, "write 7");
	wait_readable(s);
	is_int(inq(s), 7, "TCP: the 7 bytes ready");
	a.sin_port = 0;
	len = sizeof a;
	require(u >= 0 && v >= 0 && bind(u, (void *)&a, sizeof a) == 0 &&
		    getsockname(u, (void *)&a, &len) == 0,
		"a UDP socket on 127.0.0.1");
	require(sendto(v, "xy", 2, 0, (void *)&a, sizeof a) == 2 &&
		    sendto(v, "abcdef", 6, 0, (void *)&a, sizeof a) == 6,
		"send 2, 6");
	wait_readable(u);
	is_int(inq(u), 2, "UDP: the first datagram's length");
	close(l), close(c), close(s), close(u), close(v);
}

static int ifreq_call(unsigned long cmd, struct ifreq *r)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret = ioctl(fd, cmd, r);

	close(fd);
	return ret;
}

static void test_lo(void)
{
	struct ifreq r = {.ifr_name = "lo"};
	char out[256];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	is_int(ifreq_call(SIOCGIFFLAGS, &r), 0, "SIOCGIFFLAGS lo");
	is_int(r.ifr_flags, IFF_UP | IFF_LOOPBACK | IFF_RUNNING, "... up, loopback, running");
	is_int(ioctl(fd, SIOCGIFFLAGS, &r), 0, "... on an AF_UNIX socket too");
	is_int(ifreq_call(SIOCGIFINDEX, &r), 0, "SIOCGIFINDEX lo");
	is_int(r.ifr_ifindex, 1, "... index 1");
	is_int(ifreq_call(SIOCGIFMTU, &r), 0, "SIOCGIFMTU lo");
	is_int(r.ifr_mtu, 65536, "... 65536");
	r = (struct ifreq){.ifr_ifindex = 1};
	ok(ifreq_call(SIOCGIFNAME, &r) == 0 && !strcmp(r.ifr_name, "lo"), "SIOCGIFNAME 1: lo");
	r.ifr_ifindex = 9999;
	is_errno(ifreq_call(SIOCGIFNAME, &r), ENODEV, "SIOCGIFNAME 9999: ENODEV");
	r = (struct ifreq){.ifr_name = "nosuch0"};
	is_errno(ifreq_call(SIOCGIFFLAGS, &r), ENODEV, "SIOCGIFFLAGS of no interface: ENODEV");
	is_errno(ioctl(fd, SIOCGIFFLAGS, (void *)8), EFAULT, "a bad pointer: EFAULT");
	r = (struct ifreq){.ifr_name = "lo", .ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING};
	if (geteuid() == 0)
		is_int(ifreq_call(SIOCSIFFLAGS, &r), 0, "SIOCSIFFLAGS lo up, as root");
	else
		skip("not root", "SIOCSIFFLAGS lo up, as root");
	if (on_fdkernel()) {
		r.ifr_flags = IFF_LOOPBACK;
		is_errno(ifreq_call(SIOCSIFFLAGS, &r), EOPNOTSUPP, "taking lo down: EOPNOTSUPP");
	} else {
		skip("the host's lo stays up", "taking lo down: EOPNOTSUPP");
	}
	char *argv[] = {"busybox", "ip", "link", "set", "lo", "up", NULL},
	     *envp[] = {"PATH=/bin:/usr/bin", NULL};
	int st = run_capture("/bin/busybox", argv, envp, out, sizeof out);
	ok(exited_with(st, 0), "busybox ip link set lo up (status %#x: %s)", st, one_line(out));
	close(fd);
}

static void as_user(void)
{
	struct ifreq r = {.ifr_name = "lo", .ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING};

	require(setresuid(61001, 61001, 61001) == 0, "become uid 61001");
	is_errno(ifreq_call(SIOCSIFFLAGS, &r), EPERM, "SIOCSIFFLAGS as a user: EPERM");
	r.ifr_name[0] = 'x';
	is_errno(ifreq_call(SIOCSIFFLAGS, &r), EPERM, "... before the name is looked at");
	r.ifr_name[0] = 'l';
	is_int(ifreq_call(SIOCGIFFLAGS, &r), 0, "SIOCGIFFLAGS works for anyone");
}

int main(void)
{
	plan(27);
	test_unix();
	test_inet();
	test_lo();
	if (geteuid() == 0)
		in_child("a user", as_user);
	else
		skip("not root", "SIOCSIFFLAGS as a user"), skip("not root", "..."),
		    skip("not root", "...");
	return done();
}
