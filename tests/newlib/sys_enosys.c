/* Unimplemented system calls: ENOSYS (also for numbers past the table and
 * through syscall_indirect's raw form); on fdkernel each is counted in
 * /proc/kstat (enosys_calls), and with the boot word enosys=log (the test
 * ISO has it) the first call of each number is logged once, with the
 * program's name: seen here through syslog. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_syslog	103
#define ACTION_READ_ALL 3
#define UNUSED_BASE	500 /* no Linux call has 500 ... 531 */

static long kstat_value(const char *name)
{
	char buf[1024], *p;
	long n = -1;
	int fd = open("/proc/kstat", O_RDONLY);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	if ((p = strstr(buf, name)))
		sscanf(p + strlen(name), " %ld", &n);
	return n;
}

/* How many times the log holds S. */
static int log_count(const char *s)
{
	static char buf[16384 + 1];
	long n = syscall(NR_syslog, ACTION_READ_ALL, buf, sizeof buf - 1);
	int count = 0;
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf; (p = strstr(p, s)); p += strlen(s))
		count++;
	return count;
}

/* A number no Linux call has and no earlier program of this boot called
 * (the fuzzer calls random ones, and each is logged only the first time). */
static int unused_nr(void)
{
	char line[64];

	for (int nr = UNUSED_BASE; nr < UNUSED_BASE + 31; nr++) {
		snprintf(line, sizeof line, "] called system call %d,", nr);
		if (log_count(line) == 0)
			return nr;
	}
	return UNUSED_BASE + 31;
}

int main(void)
{
	long before = kstat_value("enosys_calls"), after;
	const int UNUSED_NR = on_fdkernel() ? unused_nr() : UNUSED_BASE;
	char line[96];
	plan(5);
	is_errno(syscall(UNUSED_NR), ENOSYS, "system call %d: ENOSYS", UNUSED_NR);
	is_errno(syscall(UNUSED_NR, 1, 2, 3), ENOSYS, "again: ENOSYS");
	is_errno(syscall(999999), ENOSYS, "system call 999999: ENOSYS");
	if (!on_fdkernel()) {
		skip("fdkernel's counter", "counted in /proc/kstat");
		skip("fdkernel's log", "logged once per number");
		return done();
	}
	after = kstat_value("enosys_calls");
	ok(before >= 0 && after - before == 3, "counted in /proc/kstat (%ld -> %ld)", before,
	   after);
	snprintf(line, sizeof line, "enosys: sys_enosys[%d] called system call %d,", (int)getpid(),
		 UNUSED_NR);
	ok(log_count(line) == 1, "logged once with the program's name");
	return done();
}
