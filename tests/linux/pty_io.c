/*
 * Pseudo-terminals, one process: posix_openpt/grantpt/unlockpt/ptsname
 * and TIOCGPTN round trips, the slave node (136:N, ttyname, /dev/pts
 * listing), a new pty's lock (slave opens EIO), canonical and raw I/O in
 * both directions with echo, erase, kill and end of file, VMIN/VTIME,
 * FIONREAD/TCFLSH, TIOCGPTPEER, bad requests (ENOTTY, EINVAL) and bad
 * pointers (EFAULT).  fdkernel only: /proc/sys/kernel/pty/nr and max.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "testutil.h"

/* A new pty: its master (O_NONBLOCK if asked), unlocked; *slave opened
 * with O_NOCTTY. */
static int new_pty(int *slave, bool nonblock)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | (nonblock ? O_NONBLOCK : 0));

	require(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0, "a pty");
	*slave = open(ptsname(m), O_RDWR | O_NOCTTY | (nonblock ? O_NONBLOCK : 0));
	require(*slave >= 0, "its slave");
	return m;
}

/* Reads what fd has now (O_NONBLOCK) into buf, NUL-terminated. */
static long drain(int fd, char *buf, size_t size)
{
	long n, len = 0;

	while (len < (long)size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	return len;
}

static void test_names(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), n = -1, lck = -1, s;
	char path[64], *name, tty[64];
	struct stat st, fst;
	DIR *d;
	struct dirent *e;
	bool listed = false;

	require(m >= 0, "posix_openpt");
	ok(isatty(m), "the master is a terminal (isatty)");
	ok(ioctl(m, TIOCGPTN, &n) == 0 && n >= 0, "TIOCGPTN gives its number");
	snprintf(path, sizeof path, "/dev/pts/%d", n);
	ok((name = ptsname(m)) && strcmp(name, path) == 0, "ptsname is /dev/pts/N (%s)", path);
	ok(ioctl(m, TIOCGPTLCK, &lck) == 0 && lck == 1, "a new pty starts locked");
	is_errno(open(path, O_RDWR | O_NOCTTY), EIO, "opening a locked slave: EIO");
	is_errno(ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY), EIO, "... TIOCGPTPEER too");
	ok(grantpt(m) == 0 && unlockpt(m) == 0, "grantpt and unlockpt");
	ok(ioctl(m, TIOCGPTLCK, &lck) == 0 && lck == 0, "TIOCGPTLCK: unlocked");
	ok(stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 136 &&
	       minor(st.st_rdev) == (unsigned)n,
	   "the node is character device 136:N");
	require((s = open(path, O_RDWR | O_NOCTTY)) >= 0, "open the slave");
	ok(fstat(s, &fst) == 0 && fst.st_rdev == st.st_rdev && fst.st_ino == st.st_ino &&
	       fst.st_dev == st.st_dev,
	   "fstat of the slave is the node's stat");
	if (!ok(isatty(s) && ttyname_r(s, tty, sizeof tty) == 0 && strcmp(tty, path) == 0,
		"ttyname of the slave is its path")) {
		char l[64], link[64] = "";
		snprintf(l, sizeof l, "/proc/self/fd/%d", s);
		readlink(l, link, sizeof link - 1);
		diag("readlink %s: %s", l, link);
	}
	require((d = opendir("/dev/pts")) != NULL, "opendir /dev/pts");
	while ((e = readdir(d)))
		listed |= atoi(e->d_name) == n && e->d_name[0] != '.';
	closedir(d);
	ok(listed, "/dev/pts lists it");
	is_errno(ioctl(s, TIOCGPTN, &n), ENOTTY, "TIOCGPTN on the slave: ENOTTY");
	is_errno(ioctl(s, TIOCGPTPEER, O_RDWR), EIO, "TIOCGPTPEER on the slave: EIO");
	if (on_fdkernel())
		ok((st.st_mode & 0777) == 0620 && st.st_gid == 5, "mode 0620, group tty (5)");
	else
		skip("the host's devpts mount options decide", "mode 0620, group tty");
	close(s);
	close(m);
	errno = 0;
	ok(stat(path, &st) < 0 && errno == ENOENT, "the node goes with the master");
}

static void test_canonical(void)
{
	int s, m = new_pty(&s, true), avail = -1;
	char buf[128];
	struct termios t;

	ok(tcgetattr(s, &t) == 0 &&
	       (t.c_lflag & (ICANON | ECHO | ISIG)) == (ICANON | ECHO | ISIG) &&
	       (t.c_oflag & (OPOST | ONLCR)) == (OPOST | ONLCR) && (t.c_iflag & ICRNL),
	   "a new slave is canonical, echoing, with ISIG, OPOST|ONLCR, ICRNL");
	ok(write(m, "hel", 3) == 3, "the master writes part of a line");
	errno = 0;
	ok(read(s, buf, sizeof buf) < 0 && errno == EAGAIN, "... which the slave cannot read yet");
	ok(ioctl(s, FIONREAD, &avail) == 0 && avail == 0, "FIONREAD: 0 (no complete line)");
	write(m, "lo\r", 3);
	ok(poll(&(struct pollfd){s, POLLIN, 0}, 1, -1) == 1 && ioctl(s, FIONREAD, &avail) == 0 &&
	       avail == 6,
	   "a CR ends it: readable, FIONREAD 6 (ICRNL)");
	ok(read(s, buf, sizeof buf) == 6 && memcmp(buf, "hello\n", 6) == 0,
	   "the slave reads \"hello\\n\"");
	ok(drain(m, buf, sizeof buf) == 7 && strcmp(buf, "hello\r\n") == 0,
	   "the master reads the echo \"hello\\r\\n\"");
	write(m,
	      "ab\x7f"
	      "c\x15xyz\x17w\n",
	      11);
	ok(read(s, buf, sizeof buf) == 2 && memcmp(buf, "w\n", 2) == 0,
	   "DEL erases, ^U kills, ^W erases a word");
	drain(m, buf, sizeof buf);
	write(m, "one\ntwo\n", 8);
	ok(read(s, buf, 2) == 2 && read(s, buf, sizeof buf) == 2 && read(s, buf, sizeof buf) == 4,
	   "a read takes at most one line, a short read leaves the rest");
	write(m, "\x04", 1);
	is_int(read(s, buf, sizeof buf), 0, "^D at the start of a line reads as end of file");
	write(m, "q\x04", 2);
	ok(read(s, buf, sizeof buf) == 1 && buf[0] == 'q',
	   "^D after text ends the line without NL");
	drain(m, buf, sizeof buf);
	ok(write(s, "out\n", 4) == 4 && drain(m, buf, sizeof buf) == 5 &&
	       strcmp(buf, "out\r\n") == 0,
	   "the slave's \"out\\n\" reaches the master as \"out\\r\\n\" (ONLCR)");
	write(s, "abc", 3);
	ok(poll(&(struct pollfd){m, POLLIN, 0}, 1, -1) == 1 && ioctl(m, FIONREAD, &avail) == 0 &&
	       avail == 3,
	   "FIONREAD on the master: the slave's bytes");
	ok(ioctl(m, TCFLSH, TCIFLUSH) == 0 && ioctl(m, FIONREAD, &avail) == 0 && avail == 0,
	   "TCFLSH(TCIFLUSH) on the master drops them");
	t.c_lflag &= ~ECHO;
	tcsetattr(s, TCSANOW, &t);
	write(m, "quiet\n", 6);
	ok(read(s, buf, sizeof buf) == 6 && drain(m, buf, sizeof buf) == 0,
	   "without ECHO, no echo");
	write(m, "gone\n", 5);
	ok(tcflush(s, TCIFLUSH) == 0 && read(s, buf, sizeof buf) < 0 && errno == EAGAIN,
	   "tcflush(TCIFLUSH) on the slave drops its input");
	close(s);
	close(m);
}

static void test_raw(void)
{
	int s, m = new_pty(&s, false);
	char buf[64];
	struct termios t;
	struct pollfd p = {s, POLLIN, 0};

	tcgetattr(s, &t);
	cfmakeraw(&t);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	ok(tcsetattr(s, TCSANOW, &t) == 0, "cfmakeraw, VMIN 0, VTIME 0");
	is_int(read(s, buf, sizeof buf), 0, "a read with nothing there returns 0 at once");
	ok(write(m, "a\rb\x03", 4) == 4 && poll(&p, 1, -1) == 1 && (p.revents & POLLIN),
	   "raw bytes are readable at once (poll)");
	ok(read(s, buf, sizeof buf) == 4 && memcmp(buf, "a\rb\x03", 4) == 0,
	   "... all of them, CR and ^C as data, without a line end");
	t.c_cc[VMIN] = 3;
	tcsetattr(s, TCSANOW, &t);
	write(m, "xyz", 3);
	ok(read(s, buf, sizeof buf) == 3, "VMIN 3: a read returns with 3 bytes");
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 1;
	tcsetattr(s, TCSANOW, &t);
	is_int(read(s, buf, sizeof buf), 0, "VMIN 0, VTIME 1: 0 after the timeout");
	ok(write(s, "raw\n", 4) == 4 && read(m, buf, sizeof buf) == 4 &&
	       memcmp(buf, "raw\n", 4) == 0,
	   "without OPOST the slave's output is unchanged");
	close(s);
	close(m);
}

static void test_bad(void)
{
	int s, m = new_pty(&s, true), v;
	struct winsize ws = {.ws_row = 30, .ws_col = 100}, got;

	is_errno(ioctl(m, 0x54ff, &v), ENOTTY, "an unknown request on the master: ENOTTY");
	is_errno(ioctl(s, 0x54ff, &v), ENOTTY, "... on the slave: ENOTTY");
	is_errno(ioctl(s, TIOCPKT, &v), ENOTTY, "TIOCPKT on the slave: ENOTTY");
	is_errno(ioctl(m, TCFLSH, 3), EINVAL, "TCFLSH 3: EINVAL");
	is_errno(ioctl(m, TIOCGPTN, (void *)8), EFAULT, "TIOCGPTN to a bad pointer: EFAULT");
	is_errno(ioctl(m, TIOCSPTLCK, (void *)8), EFAULT, "TIOCSPTLCK from a bad pointer: EFAULT");
	is_errno(ioctl(s, TCGETS, (void *)8), EFAULT, "TCGETS to a bad pointer: EFAULT");
	is_errno(ioctl(s, TCSETS, (void *)8), EFAULT, "TCSETS from a bad pointer: EFAULT");
	is_errno(ioctl(s, TIOCSWINSZ, (void *)8), EFAULT, "TIOCSWINSZ from a bad pointer: EFAULT");
	is_errno(read(s, (void *)8, 4), EAGAIN, "a read with nothing there: EAGAIN first");
	write(m, "x\n", 2);
	is_errno(read(s, (void *)8, 4), EFAULT, "a read into a bad buffer: EFAULT");
	is_errno(write(s, (void *)8, 4), EFAULT, "a write from a bad buffer: EFAULT");
	is_errno(write(m, (void *)8, 4), EFAULT, "... to the master too");
	is_errno(ioctl(m, TIOCSCTTY, 0), EPERM, "TIOCSCTTY on the master by a non-leader: EPERM");
	is_errno(ioctl(m, TIOCNOTTY), ENOTTY, "TIOCNOTTY on a master: ENOTTY");
	is_errno(ioctl(s, TIOCGPGRP, &v), ENOTTY, "TIOCGPGRP on a slave that is not ours: ENOTTY");
	ok(ioctl(m, TIOCGPGRP, &v) == 0 && v == 0, "... on its master: 0 (no foreground group)");
	ok(ioctl(m, TIOCSWINSZ, &ws) == 0 && ioctl(s, TIOCGWINSZ, &got) == 0 && got.ws_row == 30 &&
	       got.ws_col == 100,
	   "TIOCSWINSZ on the master sets the slave's size");
	close(s);
	close(m);
}

/* The old System V requests (glibc's <termio.h> struct termio; musl has
 * none) and the line discipline: what LTP's ptem01 and pty05 ask. */
struct termio_sysv {
	unsigned short c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[8];
};

static void test_termio(void)
{
	int s, m = new_pty(&s, true), ld = -1;
	struct termio_sysv old;
	struct termios t;

	ok(ioctl(s, TCGETA, &old) == 0 && tcgetattr(s, &t) == 0 &&
	       old.c_lflag == (unsigned short)t.c_lflag && old.c_cc[VINTR] == t.c_cc[VINTR],
	   "TCGETA: the termios's low 16 bits of each flag and c_cc");
	old.c_lflag &= ~ECHO;
	ok(ioctl(s, TCSETAW, &old) == 0 && tcgetattr(s, &t) == 0 && !(t.c_lflag & ECHO) &&
	       (t.c_lflag & IEXTEN),
	   "TCSETAW clears ECHO, keeps the rest");
	is_errno(ioctl(s, TCSETA, (void *)8), EFAULT, "TCSETA from a bad pointer: EFAULT");
	ok(ioctl(s, TIOCGETD, &ld) == 0 && ld == 0, "TIOCGETD: N_TTY");
	ok(ioctl(m, TCSBRKP, 10) == 0 && ioctl(s, TCSBRKP, 10) == 0,
	   "TCSBRKP (glibc's tcsendbreak) on both sides: 0");
	ld = 0;
	ok(ioctl(m, TIOCSETD, &ld) == 0, "TIOCSETD N_TTY: 0");
	ld = 999;
	is_errno(ioctl(m, TIOCSETD, &ld), EINVAL, "TIOCSETD of no line discipline: EINVAL");
	close(s);
	close(m);
}

static void test_peer(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s, n;
	char path[64], link[64], buf[16];
	struct stat a, b;

	unlockpt(m);
	ioctl(m, TIOCGPTN, &n);
	s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	ok(s >= 0 && (fcntl(s, F_GETFD) & FD_CLOEXEC), "TIOCGPTPEER opens the slave (O_CLOEXEC)");
	snprintf(path, sizeof path, "/dev/pts/%d", n);
	ok(fstat(s, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_rdev == b.st_rdev,
	   "... the node /dev/pts/N");
	snprintf(link, sizeof link, "/proc/self/fd/%d", s);
	ok(readlink(link, buf, sizeof buf) == (ssize_t)strlen(path) &&
	       memcmp(buf, path, strlen(path)) == 0,
	   "/proc/self/fd names it /dev/pts/N");
	close(s);
	close(m);
}

/* fdkernel only: the host's counters are the whole machine's. */
static void test_limits(void)
{
	char buf[32], old[32];
	int before, m, fd, s;

	if (!on_fdkernel()) {
		for (int i = 0; i < 5; i++)
			skip("the host's counters are the whole machine's", "pty/nr and pty/max");
		return;
	}
	ok(read_text("/proc/sys/kernel/pty/max", old, sizeof old) > 0 && atoi(old) == 4096,
	   "/proc/sys/kernel/pty/max: 4096");
	read_text("/proc/sys/kernel/pty/nr", buf, sizeof buf);
	before = atoi(buf);
	m = new_pty(&s, false);
	read_text("/proc/sys/kernel/pty/nr", buf, sizeof buf);
	ok(atoi(buf) == before + 1, "pty/nr counts a new pty (%d then %s)", before, one_line(buf));
	snprintf(buf, sizeof buf, "%d\n", before + 1);
	fd = open("/proc/sys/kernel/pty/max", O_WRONLY);
	ok(fd >= 0 && write(fd, buf, strlen(buf)) > 0, "pty/max lowered to the ptys alive");
	close(fd);
	/* open, not posix_openpt: musl turns ENOSPC into POSIX's EAGAIN */
	is_errno(open("/dev/ptmx", O_RDWR | O_NOCTTY), ENOSPC, "then /dev/ptmx: ENOSPC");
	fd = open("/proc/sys/kernel/pty/max", O_WRONLY);
	write(fd, old, strlen(old));
	close(fd);
	close(s);
	close(m);
	read_text("/proc/sys/kernel/pty/nr", buf, sizeof buf);
	ok(atoi(buf) == before, "closing both sides frees it (pty/nr %s)", one_line(buf));
}

int main(void)
{
	plan(72);
	test_names();
	test_canonical();
	test_raw();
	test_bad();
	test_peer();
	test_termio();
	test_limits();
	return done();
}
