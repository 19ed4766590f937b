/* Regression (fdkernel issue 19): the first read of a kernel-generated
 * /proc file (/proc/meminfo, /proc/interrupts, ...) makes its text and
 * keeps it in the open file; two threads reading one fd at once on two
 * CPUs both made one, and the second overwrote the first, which leaked (a
 * 512-byte slab object for /proc/meminfo, the two-CPU fuzzer's rare
 * one-object leak; a whole frame for /proc/interrupts).  Each round opens
 * /proc/interrupts, lets two threads read it at the same moment (both at
 * position 0 when they overlap), and closes it: nothing may leak. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "robust.h"
#include "thread.h"

#define ROUNDS 1000

static int fd, go, ready;
static long got[2];

/* Waits for the round to start, then reads the file. */
static int reader(void *arg)
{
	static char buf[2][4096];
	long me = (long)arg;

	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0); /* one CPU: let the others run */
	got[me] = read(fd, buf[me], sizeof buf[me]);
	return 0;
}

int main(void)
{
	struct kstat before;
	int both = 0, bad = 0;

	if ((fd = open("/proc/interrupts", O_RDONLY)) < 0)
		skip_all("no /proc/interrupts");
	close(fd);
	plan(2);
	bool have_before = kstat_read(&before);
	for (int r = 0; r < ROUNDS; r++) {
		struct thread t[2];

		require((fd = open("/proc/interrupts", O_RDONLY)) >= 0, "open /proc/interrupts");
		go = ready = 0;
		for (long i = 0; i < 2; i++)
			require(thread_start(&t[i], reader, (void *)i) > 0, "thread_start");
		while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < 2)
			thread_sys(__NR_sched_yield, 0, 0, 0);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		thread_join(&t[0]);
		thread_join(&t[1]);
		close(fd);
		both += got[0] > 0 && got[1] > 0; /* both read from position 0 */
		bad += got[0] < 0 || got[1] < 0 || got[0] + got[1] == 0;
	}
	ok(!bad,
	   "%d rounds: every read returned the table or, after the other, its end (%d "
	   "rounds read it twice at once)",
	   ROUNDS, both);
	kstat_unchanged(&before, have_before, "nothing leaked (a frame per lost text before)");
	return done();
}
