/* The seed's case for the non-sequential area: a library thread that takes
 * its fds only from that area (socket2 and syscall_indirect with
 * O_NONSEQFD) never disturbs a thread relying on the lowest-fd rule, which
 * closes 0 and expects its next open to return 0.  fdkernel only. */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* first: see there */

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "threads.h"

#define ROUNDS 2000

static volatile int stop;
static long library_fds, below_base;

static void *library(void *arg)
{
	(void)arg;
	for (int i = 0; !stop; i++) {
		int fd = i % 2 ? socket2(AF_UNIX, SOCK_STREAM, 0, O_NONSEQFD | O_CLOEXEC)
			       : INDIRECT(SYSIND_NONSEQFD, SYS_open, (unsigned long)"/dev/null",
					  O_RDONLY);
		if (fd < 0)
			continue;
		library_fds++;
		below_base += fd < NONSEQ_FD_BASE;
		close(fd);
	}
	return NULL;
}

int main(void)
{
	int wrong = 0;

	if (!on_fdkernel())
		skip_all("the non-sequential area is fdkernel's");
	plan(3);
	int saved = fcntl(0, F_DUPFD_CLOEXEC, 3);
	require(saved >= 0, "save stdin");
	pthread_t t = start_thread(library, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		close(0);
		int fd = open("/dev/null", O_RDONLY);
		wrong += fd != 0;
		if (i % 64 == 0)
			sched_yield();
	}
	stop = 1;
	pthread_join(t, NULL);
	is_int(wrong, 0, "close(0); open() returned 0 in all %d rounds", ROUNDS);
	ok(library_fds > 0, "while the library thread opened %ld fds", library_fds);
	is_int(below_base, 0, "all of them in the non-sequential area");
	dup2(saved, 0);
	close(saved);
	return done();
}
