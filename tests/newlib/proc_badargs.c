/* Tests that bad arguments to system calls give the Linux errno and never
 * hurt the caller: bad pointers (EFAULT), bad fds (EBADF), bad times (EINVAL). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* Volatile so the compiler does not object to (or fold) the bad pointers. */
static void *volatile low_address = (void *)1;
static void *volatile unmapped = (void *)0x1000;
static void *volatile kernel_half = (void *)0xffff800000000000;
static struct timespec *volatile null_timespec;

static void test_efault(void)
{
	char file[32];
	int fd;
	snprintf(file, sizeof file, "/tmp/badargs-%d", (int)getpid());
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0 && write(fd, "data", 4) == 4 && lseek(fd, 0, SEEK_SET) == 0,
		"a scratch file");
	is_errno(read(fd, low_address, 4), EFAULT, "read into (void *)1: EFAULT");
	is_errno(write(fd, kernel_half, 4), EFAULT, "write from a kernel-half address: EFAULT");
	is_errno(write(fd, unmapped, 4), EFAULT, "write from an unmapped low address: EFAULT");
	is_errno(clock_gettime(CLOCK_MONOTONIC, null_timespec), EFAULT,
		 "clock_gettime into NULL: EFAULT");
	is_errno(nanosleep(low_address, NULL), EFAULT, "nanosleep from (void *)1: EFAULT");
	close(fd);
	unlink(file);
}

static void test_ebadf(void)
{
	static const int bad[] = {99, -1};
	char c = 'x';
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		is_errno(read(bad[i], &c, 1), EBADF, "read on fd %d: EBADF", bad[i]);
		is_errno(write(bad[i], &c, 1), EBADF, "write on fd %d: EBADF", bad[i]);
		is_errno(close(bad[i]), EBADF, "close on fd %d: EBADF", bad[i]);
	}
}

static void test_einval(void)
{
	struct timespec big_nsec = {0, 1000000000}, negative = {-1, 0};
	is_errno(nanosleep(&big_nsec, NULL), EINVAL, "nanosleep with tv_nsec = 1e9: EINVAL");
	is_errno(nanosleep(&negative, NULL), EINVAL, "nanosleep with tv_sec = -1: EINVAL");
}

int main(void)
{
	plan(13);
	test_efault();
	test_ebadf();
	test_einval();
	return done();
}
