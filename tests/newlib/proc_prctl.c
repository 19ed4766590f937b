/* prctl's common options (PR_SET_NAME/PR_GET_NAME, cut to 15 bytes, per
 * thread of a process and inherited by fork; PR_GET/SET_DUMPABLE; EINVAL
 * for unknown options; EFAULT) and getrandom (sizes, flags, errors). */
#include <errno.h>
#include <fdkernel.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_prctl	157
#define NR_getrandom	318
#define PR_GET_DUMPABLE 3
#define PR_SET_DUMPABLE 4
#define PR_SET_NAME	15
#define PR_GET_NAME	16
#define GRND_NONBLOCK	1
#define GRND_RANDOM	2
#define GRND_INSECURE	4

static void test_name(void)
{
	char name[16] = "", child[16] = "";
	int fds[2], status;
	pid_t pid;
	ok(syscall(NR_prctl, PR_SET_NAME, "worker") == 0, "PR_SET_NAME worker");
	ok(syscall(NR_prctl, PR_GET_NAME, name) == 0 && !strcmp(name, "worker"), "PR_GET_NAME: %s",
	   name);
	ok(syscall(NR_prctl, PR_SET_NAME, "a-name-longer-than-fifteen") == 0 &&
	       syscall(NR_prctl, PR_GET_NAME, name) == 0 && !strcmp(name, "a-name-longer-t"),
	   "a long name is cut to 15 bytes: %s", name);
	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(NR_prctl, PR_GET_NAME, child);
		write(fds[1], child, sizeof child);
		_exit(0);
	}
	close(fds[1]);
	ok(read(fds[0], child, sizeof child) == sizeof child && !strcmp(child, name),
	   "a fork child inherits it");
	close(fds[0]);
	waitpid(pid, &status, 0);
	is_errno(syscall(NR_prctl, PR_SET_NAME, (void *)1), EFAULT, "PR_SET_NAME from (void *)1");
	is_errno(syscall(NR_prctl, PR_GET_NAME, (void *)1), EFAULT, "PR_GET_NAME into (void *)1");
	ok(syscall(NR_prctl, PR_GET_DUMPABLE) == 1, "PR_GET_DUMPABLE: 1");
	ok(syscall(NR_prctl, PR_SET_DUMPABLE, 1) == 0, "PR_SET_DUMPABLE 1");
	is_errno(syscall(NR_prctl, PR_SET_DUMPABLE, 7), EINVAL, "PR_SET_DUMPABLE 7: EINVAL");
	is_errno(syscall(NR_prctl, 0x7fff0000), EINVAL, "an unknown option: EINVAL");
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_getrandom(void)
{
	static uint8_t big[100000];
	uint8_t a[64] = {0}, b[64] = {0};
	ok(syscall(NR_getrandom, a, sizeof a, 0) == 64 && !all_zero(a, 64), "64 random bytes");
	ok(syscall(NR_getrandom, b, sizeof b, GRND_NONBLOCK) == 64 && memcmp(a, b, 64),
	   "GRND_NONBLOCK: 64 other bytes");
	ok(syscall(NR_getrandom, a, 13, GRND_RANDOM | GRND_NONBLOCK) == 13,
	   "GRND_RANDOM: 13 bytes");
	ok(syscall(NR_getrandom, a, 0, 0) == 0, "count 0: 0");
	ok(syscall(NR_getrandom, big, sizeof big, 0) == (long)sizeof big &&
	       !all_zero(big + sizeof big - 64, 64),
	   "100000 bytes in one call");
	is_errno(syscall(NR_getrandom, a, 8, 8), EINVAL, "unknown flag: EINVAL");
	is_errno(syscall(NR_getrandom, a, 8, GRND_INSECURE | GRND_RANDOM), EINVAL,
		 "GRND_INSECURE with GRND_RANDOM: EINVAL");
	is_errno(syscall(NR_getrandom, (void *)1, 8, 0), EFAULT, "into (void *)1: EFAULT");
}

int main(void)
{
	plan(18);
	test_name();
	test_getrandom();
	return done();
}
