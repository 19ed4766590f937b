/* The interface requests of ioctl on sockets (Linux's dev_ioctl,
 * dev_ifconf, devinet_ioctl), on the loopback lo as any Linux has it:
 * index 1 both ways (SIOCGIFINDEX, SIOCGIFNAME, if_nametoindex,
 * if_indextoname), up, loopback and running, 127.0.0.1/8 with no
 * broadcast, an all-zero ARPHRD_LOOPBACK hardware address; the address
 * requests only on AF_INET sockets (ENOTTY elsewhere, after the ifreq is
 * read: EFAULT first), an alias's address EADDRNOTAVAIL; SIOCGIFCONF
 * (the length needed with no buffer, as many entries as fit, no EINVAL
 * for any length, EFAULT); ENODEV for names and indexes that are no
 * interface; the setters EPERM for a user before the name is looked at,
 * EINVAL for a bad MTU or queue length, EOPNOTSUPP for the metric.  In
 * fdkernel only (the host's lo is left alone): lo is the only interface,
 * MTU 65536, queue length 1000, and what the setters change reads back
 * (the MTU also sets when TCP sends what MSG_MORE held back); it cannot
 * go down (EOPNOTSUPP) nor take an MTU below 1280 (EINVAL). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

#define BAD ((void *)8)

static int ifreq_on(int family, unsigned long cmd, struct ifreq *r)
{
	int fd = socket(family, SOCK_DGRAM, 0), ret = ioctl(fd, cmd, r);
	int err = errno;

	close(fd);
	errno = err;
	return ret;
}

static int ifreq_call(unsigned long cmd, struct ifreq *r)
{
	return ifreq_on(AF_INET, cmd, r);
}

static struct ifreq lo_req(void)
{
	return (struct ifreq){.ifr_name = "lo"};
}

static in_addr_t addr_of(const struct ifreq *r)
{
	return ((const struct sockaddr_in *)&r->ifr_addr)->sin_addr.s_addr;
}

static void test_names(void)
{
	struct ifreq r = lo_req();
	char name[IF_NAMESIZE] = "";

	is_int(ifreq_on(AF_UNIX, SIOCGIFINDEX, &r), 0, "SIOCGIFINDEX lo (on an AF_UNIX socket)");
	is_int(r.ifr_ifindex, 1, "... index 1");
	r = (struct ifreq){.ifr_ifindex = 1};
	ok(ifreq_on(AF_INET6, SIOCGIFNAME, &r) == 0 && !strcmp(r.ifr_name, "lo"),
	   "SIOCGIFNAME 1: lo (on an AF_INET6 socket)");
	is_int(if_nametoindex("lo"), 1, "if_nametoindex(lo): 1");
	ok(if_indextoname(1, name) == name && !strcmp(name, "lo"), "if_indextoname(1): lo");
	errno = 0;
	ok(if_nametoindex("nosuch0") == 0 && errno == ENODEV, "if_nametoindex(nosuch0): 0, ENODEV");
	r.ifr_ifindex = 9999;
	is_errno(ifreq_call(SIOCGIFNAME, &r), ENODEV, "SIOCGIFNAME 9999: ENODEV");
	r = (struct ifreq){.ifr_name = "nosuch0"};
	is_errno(ifreq_call(SIOCGIFINDEX, &r), ENODEV, "SIOCGIFINDEX nosuch0: ENODEV");
	is_errno(ifreq_call(SIOCGIFFLAGS, &r), ENODEV, "SIOCGIFFLAGS nosuch0: ENODEV");
	is_errno(ifreq_call(SIOCGIFHWADDR, &r), ENODEV, "SIOCGIFHWADDR nosuch0: ENODEV");
	is_errno(ifreq_call(SIOCGIFADDR, &r), ENODEV, "SIOCGIFADDR nosuch0: ENODEV");
}

static void test_values(void)
{
	struct ifreq r = lo_req();
	static const char zero[6];

	is_int(ifreq_call(SIOCGIFFLAGS, &r), 0, "SIOCGIFFLAGS lo");
	is_int(r.ifr_flags & (IFF_UP | IFF_LOOPBACK | IFF_RUNNING),
	       IFF_UP | IFF_LOOPBACK | IFF_RUNNING, "... up, loopback, running");
	r = (struct ifreq){.ifr_name = "lo:7"};
	is_int(ifreq_call(SIOCGIFFLAGS, &r), 0, "SIOCGIFFLAGS lo:7 (an alias's interface)");
	is_int(ifreq_call(SIOCGIFMTU, &r), 0, "SIOCGIFMTU lo");
	ok(r.ifr_mtu >= 1280, "... at least 1280");
	r = lo_req();
	is_int(ifreq_on(AF_UNIX, SIOCGIFHWADDR, &r), 0, "SIOCGIFHWADDR lo");
	ok(r.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK && !memcmp(r.ifr_hwaddr.sa_data, zero, 6),
	   "... ARPHRD_LOOPBACK, all zero");
	r = lo_req();
	r.ifr_metric = 5;
	ok(ifreq_call(SIOCGIFMETRIC, &r) == 0 && r.ifr_metric == 0, "SIOCGIFMETRIC lo: 0");
	memset(&r.ifr_map, 0xff, sizeof r.ifr_map);
	ok(ifreq_call(SIOCGIFMAP, &r) == 0 && !r.ifr_map.mem_start && !r.ifr_map.irq &&
	       !r.ifr_map.base_addr,
	   "SIOCGIFMAP lo: no memory, irq or port");
	r.ifr_qlen = -1;
	ok(ifreq_call(SIOCGIFTXQLEN, &r) == 0 && r.ifr_qlen >= 0, "SIOCGIFTXQLEN lo");
	is_errno(ifreq_call(SIOCGIFSLAVE, &r), EINVAL, "SIOCGIFSLAVE lo: EINVAL (no bonding)");
	if (on_fdkernel()) {
		ifreq_call(SIOCGIFFLAGS, &r);
		is_int(r.ifr_flags, IFF_UP | IFF_LOOPBACK | IFF_RUNNING,
		       "fdkernel: just those flags");
		ifreq_call(SIOCGIFMTU, &r);
		is_int(r.ifr_mtu, 65536, "fdkernel: MTU 65536");
		ifreq_call(SIOCGIFTXQLEN, &r);
		is_int(r.ifr_qlen, 1000, "fdkernel: queue length 1000");
	} else {
		for (int i = 0; i < 3; i++)
			skip("the host's lo may differ", "fdkernel's flags, MTU, queue length");
	}
}

static void test_addrs(void)
{
	struct ifreq r = lo_req();

	is_int(ifreq_call(SIOCGIFADDR, &r), 0, "SIOCGIFADDR lo");
	ok(r.ifr_addr.sa_family == AF_INET && addr_of(&r) == htonl(INADDR_LOOPBACK),
	   "... AF_INET 127.0.0.1");
	r = lo_req();
	ok(ifreq_call(SIOCGIFNETMASK, &r) == 0 && addr_of(&r) == htonl(0xff000000),
	   "SIOCGIFNETMASK lo: 255.0.0.0");
	r = lo_req();
	ok(ifreq_call(SIOCGIFDSTADDR, &r) == 0 && addr_of(&r) == htonl(INADDR_LOOPBACK),
	   "SIOCGIFDSTADDR lo: 127.0.0.1");
	r = lo_req();
	r.ifr_addr.sa_family = AF_INET;
	((struct sockaddr_in *)&r.ifr_addr)->sin_addr.s_addr = 0x01020304;
	ok(ifreq_call(SIOCGIFBRDADDR, &r) == 0 && addr_of(&r) == 0,
	   "SIOCGIFBRDADDR lo: 0.0.0.0 (none)");
	r = (struct ifreq){.ifr_name = "lo:7"};
	is_errno(ifreq_call(SIOCGIFADDR, &r), EADDRNOTAVAIL, "SIOCGIFADDR lo:7: EADDRNOTAVAIL");
	r = lo_req();
	is_errno(ifreq_call(SIOCGIFPFLAGS, &r), EINVAL, "SIOCGIFPFLAGS on AF_INET: EINVAL");
	is_errno(ifreq_on(AF_INET6, SIOCGIFADDR, &r), ENOTTY, "SIOCGIFADDR on AF_INET6: ENOTTY");
	is_errno(ifreq_on(AF_UNIX, SIOCGIFNETMASK, &r), ENOTTY,
		 "SIOCGIFNETMASK on AF_UNIX: ENOTTY");
	is_errno(ifreq_on(AF_UNIX, SIOCGIFADDR, NULL), EFAULT, "... NULL: EFAULT first");
}

/* SIOCGIFCONF lists lo's 127.0.0.1 among its IPv4 addresses. */
static void test_ifconf(void)
{
	struct ifreq buf[16];
	struct ifconf c = {.ifc_len = 0, .ifc_buf = NULL};
	int n, i;

	is_int(ifreq_on(AF_UNIX, SIOCGIFCONF, (struct ifreq *)&c), 0,
	       "SIOCGIFCONF with no buffer (AF_UNIX socket)");
	n = c.ifc_len / (int)sizeof(struct ifreq);
	ok(n >= 1 && n <= 16 && c.ifc_len % sizeof(struct ifreq) == 0,
	   "... the length of whole entries (%d)", c.ifc_len);
	c = (struct ifconf){.ifc_len = sizeof buf, .ifc_req = buf};
	is_int(ifreq_call(SIOCGIFCONF, (struct ifreq *)&c), 0, "SIOCGIFCONF");
	is_int(c.ifc_len, n * (int)sizeof(struct ifreq), "... as many as it said");
	for (i = 0; i < n && strcmp(buf[i].ifr_name, "lo"); i++)
		;
	ok(i < n && buf[i].ifr_addr.sa_family == AF_INET &&
	       addr_of(&buf[i]) == htonl(INADDR_LOOPBACK),
	   "... lo: AF_INET 127.0.0.1");
	c.ifc_len = sizeof(struct ifreq) + 10;
	ok(ifreq_call(SIOCGIFCONF, (struct ifreq *)&c) == 0 && c.ifc_len == sizeof(struct ifreq),
	   "room for one and a bit: one");
	c.ifc_len = -5;
	ok(ifreq_call(SIOCGIFCONF, (struct ifreq *)&c) == 0 && c.ifc_len == 0,
	   "a negative length: none, no error");
	c = (struct ifconf){.ifc_len = 0, .ifc_buf = BAD};
	ok(ifreq_call(SIOCGIFCONF, (struct ifreq *)&c) == 0 && c.ifc_len == 0,
	   "length 0, a bad buffer: none, no error");
	c.ifc_len = sizeof buf;
	is_errno(ifreq_call(SIOCGIFCONF, (struct ifreq *)&c), EFAULT, "a bad buffer: EFAULT");
	is_errno(ifreq_call(SIOCGIFCONF, BAD), EFAULT, "a bad ifconf: EFAULT");
	if (on_fdkernel())
		is_int(n, 1, "fdkernel: lo is the only interface");
	else
		skip("the host has others", "fdkernel: lo is the only interface");
}

static void test_faults(void)
{
	int p[2], fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifconf c = {0};

	is_errno(ioctl(fd, SIOCGIFFLAGS, NULL), EFAULT, "SIOCGIFFLAGS NULL: EFAULT");
	is_errno(ioctl(fd, SIOCSIFFLAGS, NULL), EFAULT, "SIOCSIFFLAGS NULL: EFAULT");
	is_errno(ioctl(fd, SIOCGIFHWADDR, BAD), EFAULT, "SIOCGIFHWADDR bad: EFAULT");
	is_errno(ioctl(fd, SIOCGIFNAME, BAD), EFAULT, "SIOCGIFNAME bad: EFAULT");
	require(pipe(p) == 0, "a pipe");
	is_errno(ioctl(p[0], SIOCGIFCONF, &c), ENOTTY, "SIOCGIFCONF on a pipe: ENOTTY");
	close(p[1]);
	is_errno(ioctl(p[1], SIOCGIFCONF, &c), EBADF, "on a closed fd: EBADF");
	close(p[0]), close(fd);
}

/* Setting what lo has changes nothing, on any Linux. */
static void test_set_same(void)
{
	struct ifreq r = lo_req(), bad = {.ifr_name = "nosuch0"};

	ifreq_call(SIOCGIFFLAGS, &r);
	is_int(ifreq_call(SIOCSIFFLAGS, &r), 0, "SIOCSIFFLAGS lo, its own flags");
	ifreq_call(SIOCGIFMTU, &r);
	is_int(ifreq_call(SIOCSIFMTU, &r), 0, "SIOCSIFMTU lo, its own MTU");
	ifreq_call(SIOCGIFTXQLEN, &r);
	is_int(ifreq_call(SIOCSIFTXQLEN, &r), 0, "SIOCSIFTXQLEN lo, its own length");
	r.ifr_mtu = -1;
	is_errno(ifreq_call(SIOCSIFMTU, &r), EINVAL, "SIOCSIFMTU -1: EINVAL");
	r.ifr_qlen = -1;
	is_errno(ifreq_call(SIOCSIFTXQLEN, &r), EINVAL, "SIOCSIFTXQLEN -1: EINVAL");
	is_errno(ifreq_call(SIOCSIFMETRIC, &r), EOPNOTSUPP, "SIOCSIFMETRIC: EOPNOTSUPP");
	is_errno(ifreq_call(SIOCSIFMTU, &bad), ENODEV, "SIOCSIFMTU nosuch0: ENODEV");
	is_errno(ifreq_on(AF_UNIX, SIOCSIFFLAGS, &bad), ENODEV, "SIOCSIFFLAGS nosuch0: ENODEV");
}

static int get_int(unsigned long cmd)
{
	struct ifreq r = lo_req();

	return ifreq_call(cmd, &r)   ? -1
	       : cmd == SIOCGIFFLAGS ? (unsigned short)r.ifr_flags
				     : r.ifr_ifindex; /* the int of the union */
}

/* A TCP connection on lo: its two ends in fds[0], fds[1]. */
static void tcp_pair(int fds[2])
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0);

	fds[0] = socket(AF_INET, SOCK_STREAM, 0);
	require(l >= 0 && fds[0] >= 0 && bind(l, (void *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (void *)&a, &len) == 0 &&
		    connect(fds[0], (void *)&a, sizeof a) == 0 &&
		    (fds[1] = accept(l, NULL, NULL)) >= 0,
		"a TCP connection on 127.0.0.1");
	close(l);
}

/* Bytes the receiver may read after 9000 more were sent with MSG_MORE:
 * TCP holds them back until a segment (lo's MTU less the headers) waits. */
static int after_more(int fds[2])
{
	static char data[9000];
	int n = -1;

	require(send(fds[0], data, sizeof data, MSG_MORE) == sizeof data,
		"send 9000 with MSG_MORE");
	ioctl(fds[1], FIONREAD, &n);
	return n;
}

/* fdkernel's lo takes new values and shows them, and its TCP segments
 * follow the MTU; the host's is left alone. */
static void test_set_fdkernel(void)
{
	struct ifreq r = lo_req();
	int flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING, fds[2];

	r.ifr_mtu = 9000;
	ok(ifreq_call(SIOCSIFMTU, &r) == 0 && get_int(SIOCGIFMTU) == 9000, "MTU 9000 reads back");
	tcp_pair(fds);
	is_int(after_more(fds), 9000, "... 9000 bytes with MSG_MORE fill a segment: sent");
	r.ifr_mtu = 1279;
	is_errno(ifreq_call(SIOCSIFMTU, &r), EINVAL, "MTU 1279: EINVAL (Linux drops ::1)");
	r.ifr_mtu = 65536;
	ok(ifreq_call(SIOCSIFMTU, &r) == 0 && get_int(SIOCGIFMTU) == 65536, "back to 65536");
	is_int(after_more(fds), 9000, "... 9000 more are held back");
	close(fds[0]), close(fds[1]);
	r.ifr_qlen = 7;
	ok(ifreq_call(SIOCSIFTXQLEN, &r) == 0 && get_int(SIOCGIFTXQLEN) == 7, "queue length 7");
	r.ifr_qlen = 1000;
	ok(ifreq_call(SIOCSIFTXQLEN, &r) == 0 && get_int(SIOCGIFTXQLEN) == 1000, "back to 1000");
	r.ifr_flags = flags | IFF_PROMISC | IFF_DEBUG;
	ok(ifreq_call(SIOCSIFFLAGS, &r) == 0 &&
	       get_int(SIOCGIFFLAGS) == (flags | IFF_PROMISC | IFF_DEBUG),
	   "PROMISC and DEBUG read back");
	r.ifr_flags = IFF_UP;
	ok(ifreq_on(AF_UNIX, SIOCSIFFLAGS, &r) == 0 && get_int(SIOCGIFFLAGS) == flags,
	   "cleared; LOOPBACK and RUNNING are the device's");
	r.ifr_flags = IFF_LOOPBACK;
	is_errno(ifreq_call(SIOCSIFFLAGS, &r), EOPNOTSUPP, "taking lo down: EOPNOTSUPP");
	is_int(get_int(SIOCGIFFLAGS), flags, "... it stays up");
}

static void as_user(void)
{
	struct ifreq r = lo_req();

	require(setresuid(61001, 61001, 61001) == 0, "become uid 61001");
	r.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
	is_errno(ifreq_call(SIOCSIFFLAGS, &r), EPERM, "SIOCSIFFLAGS as a user: EPERM");
	is_errno(ifreq_on(AF_UNIX, SIOCSIFFLAGS, &r), EPERM, "... on AF_UNIX too");
	r.ifr_mtu = 65536;
	is_errno(ifreq_call(SIOCSIFMTU, &r), EPERM, "SIOCSIFMTU as a user: EPERM");
	r.ifr_qlen = 1000;
	is_errno(ifreq_call(SIOCSIFTXQLEN, &r), EPERM, "SIOCSIFTXQLEN as a user: EPERM");
	r.ifr_name[0] = 'x';
	is_errno(ifreq_call(SIOCSIFMTU, &r), EPERM, "... before the name is looked at");
	r = lo_req();
	ok(ifreq_call(SIOCGIFFLAGS, &r) == 0 && ifreq_call(SIOCGIFADDR, &r) == 0,
	   "the getters work for anyone");
}

/* busybox's ifconfig reads lo through these requests; `ip link set lo
 * up` (as LTP's sendmsg01 runs it) sets its flags. */
static void test_busybox(void)
{
	char *argv[] = {"busybox", "ifconfig", "lo", NULL}, *envp[] = {"PATH=/bin:/usr/bin", NULL};
	char *ip[] = {"busybox", "ip", "link", "set", "lo", "up", NULL};
	char out[2048];
	int st = run_capture("/bin/busybox", argv, envp, out, sizeof out);

	ok(exited_with(st, 0) && strstr(out, "inet addr:127.0.0.1") &&
	       strstr(out, "Mask:255.0.0.0") && strstr(out, "UP LOOPBACK RUNNING"),
	   "busybox ifconfig lo (status %#x: %s)", st, one_line(out));
	st = run_capture("/bin/busybox", ip, envp, out, sizeof out);
	ok(exited_with(st, 0), "busybox ip link set lo up (status %#x: %s)", st, one_line(out));
}

int main(void)
{
	plan(79);
	test_names();
	test_values();
	test_addrs();
	test_ifconf();
	test_faults();
	if (geteuid() == 0) {
		test_set_same();
		if (on_fdkernel())
			test_set_fdkernel();
		else
			for (int i = 0; i < 11; i++)
				skip("the host's lo is left alone",
				     "fdkernel's lo takes new values");
		in_child("a user", as_user);
	} else {
		for (int i = 0; i < 8 + 11 + 6; i++)
			skip("not root", "the setters");
	}
	test_busybox();
	return done();
}
