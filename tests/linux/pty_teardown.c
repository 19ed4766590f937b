/*
 * Pseudo-terminals torn down in hostile orders from several processes:
 * the master closed while another process sleeps reading the slave (EIO,
 * then 0), or writing to it with the output full; the last slave closed
 * while another sleeps reading the master (EIO once the output is read);
 * copies of the master in two processes (the pty lives until the last);
 * a slave kept open through /dev/tty.  Then many ptys opened and closed
 * by several processes in both orders; the guest's leak check sees them
 * all freed.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "testutil.h"

static int master_fd;

static int new_pty(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	require(m >= 0 && unlockpt(m) == 0, "a pty");
	*slave = open(ptsname(m), O_RDWR | O_NOCTTY);
	require(*slave >= 0, "its slave");
	return master_fd = m;
}

/* Waits until pid sleeps in syscall nr (/proc/<pid>/syscall's first field). */
static void wait_asleep_in(pid_t pid, int nr)
{
	char path[64], buf[128], want[16];

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof want, "%d ", nr);
	while (read_text(path, buf, sizeof buf) > 0 && strncmp(buf, want, strlen(want)) != 0)
		sleep_ms(1);
}

static int exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A child running fn(fd), with the other end closed in it. */
static pid_t spawn(int fd, int other, int (*fn)(int fd))
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(other);
		_exit(fn(fd));
	}
	return pid;
}

static int read_hung_up(int s)
{
	char c;

	if (read(s, &c, 1) >= 0 || errno != EIO)
		return 2;
	return read(s, &c, 1) == 0 ? 0 : 3;
}

static int write_until_hung_up(int s)
{
	static char big[65536];
	long n = write(s, big, sizeof big); /* fills the output; the master closes */

	if (n < 0 && errno != EIO)
		return 2;
	return write(s, "x", 1) < 0 && errno == EIO ? 0 : 3;
}

static int read_master_eio(int m)
{
	char buf[16];

	if (read(m, buf, sizeof buf) != 2 || memcmp(buf, "hi", 2) != 0)
		return 2;
	return read(m, buf, sizeof buf) < 0 && errno == EIO ? 0 : 3;
}

static void test_master_first(void)
{
	int s, m = new_pty(&s);
	struct termios t;
	pid_t pid = spawn(s, m, read_hung_up);

	wait_asleep_in(pid, 0);
	close(m);
	is_int(exit_code(pid), 0, "master closed under a reader of the slave: EIO, then reads 0");
	close(s);

	m = new_pty(&s);
	tcgetattr(s, &t);
	cfmakeraw(&t);
	tcsetattr(s, TCSANOW, &t);
	pid = spawn(s, m, write_until_hung_up);
	wait_asleep_in(pid, 1);
	close(m);
	is_int(exit_code(pid), 0,
	       "master closed under a writer with the output full: it returns, then EIO");
	close(s);
}

static void test_slave_first(void)
{
	int s, m = new_pty(&s);
	pid_t pid;

	write(s, "hi", 2);
	pid = spawn(m, s, read_master_eio);
	close(s);
	is_int(exit_code(pid), 0,
	       "the last slave closed: the master reads what it wrote, then EIO");
	ok(write(m, "x", 1) == 1, "the master may still write");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	ok(s >= 0, "the slave opens again");
	ok(write(s, "y", 1) == 1 && poll(&(struct pollfd){m, POLLIN, 0}, 1, -1) == 1,
	   "... and talks to the master again");
	close(s);
	close(m);
}

static int hold_master(int m)
{
	char c;

	/* Keeps its copy until the parent has closed its own. */
	return read(m, &c, 1) == 1 ? 0 : 2;
}

static void test_shared_master(void)
{
	int s, m = new_pty(&s);
	pid_t pid = spawn(m, s, hold_master);
	char c;

	close(m);
	ok(write(s, "z", 1) == 1, "the parent closed its master; the child's copy keeps the pty");
	is_int(exit_code(pid), 0, "... which reads the slave's byte");
	ok(read(s, &c, 1) == 0, "its exit hangs the slave up (a read: 0)");
	close(s);
}

/* A session leader with the slave as terminal keeps it only through
 * /dev/tty, then waits in a read on that. */
static int dev_tty_only(int s)
{
	int t;
	char c;

	if (setsid() < 0 || ioctl(s, TIOCSCTTY, 0) < 0 || (t = open("/dev/tty", O_RDWR)) < 0)
		return 2;
	close(s);
	signal(SIGHUP, SIG_IGN);
	write(t, "R", 1);
	return read(t, &c, 1) < 0 && errno == EIO ? 0 : 3;
}

static void test_dev_tty(void)
{
	int s, m = new_pty(&s);
	pid_t pid = spawn(s, m, dev_tty_only);
	char c;

	close(s);
	ok(read(m, &c, 1) == 1 && c == 'R', "a slave held only through /dev/tty talks");
	wait_asleep_in(pid, 0);
	close(m);
	is_int(exit_code(pid), 0, "... and hangs up when the master closes");
}

/* Opens and closes ptys in both orders, some left for exit to close. */
static int churn(int seed)
{
	for (int i = 0; i < 40; i++) {
		int s, m = posix_openpt(O_RDWR | O_NOCTTY);
		if (m < 0 || unlockpt(m) < 0 || (s = open(ptsname(m), O_RDWR | O_NOCTTY)) < 0)
			return 2;
		write(m, "data\n", 5);
		write(s, "back\n", 5);
		if ((i + seed) % 3 == 0) {
			close(m);
			close(s);
		} else if ((i + seed) % 3 == 1) {
			close(s);
			close(m);
		} /* else both stay for exit */
	}
	return 0;
}

static void test_churn(void)
{
	pid_t pids[4];
	int bad = 0;

	fflush(stdout);
	for (int i = 0; i < 4; i++)
		if ((pids[i] = fork()) == 0)
			_exit(churn(i));
	for (int i = 0; i < 4; i++)
		bad += exit_code(pids[i]) != 0;
	is_int(bad, 0, "4 processes opened 160 ptys, closed in both orders or by exit");
}

int main(void)
{
	plan(12);
	test_master_first();
	test_slave_first();
	test_shared_master();
	test_dev_tty();
	test_churn();
	return done();
}
