/* The console's message level: /proc/sys/kernel/printk's four values
 * (console level, default message level, lowest console level, default
 * console level), syslog's CONSOLE_LEVEL (1..8, raised to the lowest),
 * CONSOLE_OFF (the lowest, the old level kept) and CONSOLE_ON (the kept
 * level back, once), the file's writes (the first values given), and
 * READ's argument checks.  Root only; the levels are put back as they
 * were. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/klog.h>
#include <unistd.h>

#include "testutil.h"

#define PRINTK "/proc/sys/kernel/printk"

static char saved[64];

/* The four values into v: how many were read. */
static int levels(int v[4])
{
	char buf[64];

	if (read_text(PRINTK, buf, sizeof buf) <= 0)
		return 0;
	return sscanf(buf, "%d %d %d %d", &v[0], &v[1], &v[2], &v[3]);
}

static int console_level(void)
{
	int v[4] = {-1};

	levels(v);
	return v[0];
}

/* Writes text to PRINTK: write's result, errno on failure. */
static long write_printk(const char *text)
{
	int fd = open(PRINTK, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n;
}

static void test_syslog(void)
{
	is_int(klogctl(8, NULL, 3), 0, "CONSOLE_LEVEL 3");
	is_int(console_level(), 3, "... the file's first value is 3");
	is_errno(klogctl(8, NULL, 0), EINVAL, "CONSOLE_LEVEL 0: EINVAL");
	is_errno(klogctl(8, NULL, 9), EINVAL, "CONSOLE_LEVEL 9: EINVAL");
	is_int(console_level(), 3, "... and the level stays");
	is_int(write_printk("3 4 2 7"), 7, "write 4 values, the lowest console level 2");
	is_int(klogctl(8, NULL, 1), 0, "CONSOLE_LEVEL 1");
	is_int(console_level(), 2, "... raised to the lowest, 2");
	klogctl(8, NULL, 6);
	is_int(klogctl(6, NULL, 0), 0, "CONSOLE_OFF");
	is_int(console_level(), 2, "... the lowest level");
	is_int(klogctl(7, NULL, 0), 0, "CONSOLE_ON");
	is_int(console_level(), 6, "... the level before it back");
	klogctl(8, NULL, 5);
	klogctl(7, NULL, 0);
	is_int(console_level(), 5, "CONSOLE_ON with nothing kept changes nothing");
	klogctl(6, NULL, 0);
	klogctl(8, NULL, 4);
	klogctl(7, NULL, 0);
	is_int(console_level(), 4, "CONSOLE_LEVEL after OFF forgets the kept level");
}

/* READ (2), which blocks for new messages: Linux's argument checks first. */
static void test_read(void)
{
	char buf[8];

	is_errno(klogctl(2, NULL, 8), EINVAL, "READ with a NULL buffer: EINVAL");
	is_errno(klogctl(2, buf, -1), EINVAL, "READ with a negative length: EINVAL");
	is_int(klogctl(2, buf, 0), 0, "READ of 0 bytes: 0, without waiting");
}

static void test_file(void)
{
	int v[4];

	is_int(levels(v), 4, "the file reads four numbers");
	is_int(write_printk("6\n"), 2, "writing one number");
	ok(levels(v) == 4 && v[0] == 6 && v[1] == 4 && v[2] == 2 && v[3] == 7,
	   "... sets the first only");
	is_errno(write_printk("x"), EINVAL, "a write of no number: EINVAL");
	is_int(console_level(), 6, "... changes nothing");
	is_errno(write_printk("5 y"), EINVAL, "a number, then garbage: EINVAL");
	is_int(console_level(), 5, "... the number before it is set all the same");
}

int main(void)
{
	if (geteuid() != 0)
		skip_all("not root");
	if (read_text(PRINTK, saved, sizeof saved) <= 0)
		skip_all("no " PRINTK);
	plan(25);
	test_syslog();
	test_file();
	test_read();
	ok(write_printk(saved) > 0, "the levels put back");
	return done();
}
