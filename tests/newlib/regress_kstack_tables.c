/* Regression (found by exhaust_fork and the leak check): the page tables
 * under kernel stacks stayed when their last stack went, so every new high
 * of live tasks kept frames (1024 tasks: 16). */
#include "robust.h"

#define CHILDREN 300 /* stacks over several 2 MiB page tables */

/* N blocked children, released and reaped: true if all went well. */
static bool fork_round(int n)
{
	int fds[2], err;
	require(pipe(fds) == 0, "a release pipe");
	int forked = fork_blocked(n, fds[0], fds[1], &err);
	close(fds[0]);
	close(fds[1]);
	return forked == n && reap_all() == n;
}

/* /proc/kstat once the heap has given back the empty slab pages it keeps
 * for its next allocations (drop_caches 2, as Linux's slab shrink): which
 * of them it keeps depends on what else ran, not on the stacks. */
static bool frames_read(struct kstat *ks)
{
	write_text("/proc/sys/vm/drop_caches", "2");
	return kstat_read(ks);
}

int main(void)
{
	struct kstat before, after;
	if (!on_fdkernel())
		skip_all("kernel stacks are fdkernel's");
	plan(3);
	/* A first round of as many children warms everything a task needs
	 * (the parent's COW and stack, the heap's slabs for 300 tasks, the
	 * lockdep kernel's tables): only the second may leave nothing. */
	ok(fork_round(CHILDREN), "a first %d children (warm-up)", CHILDREN);
	bool have = frames_read(&before);
	ok(fork_round(CHILDREN), "%d children at once again", CHILDREN);
	/* A reaped task's stack goes back after a grace period, which on a
	 * busy machine may end a moment after wait returns: give it up to
	 * 5 s (the check is that the frames come back, not how fast).  One
	 * reading can also be a frame short that the next is not: its own
	 * open file may need a fresh slab page while the previous reading's
	 * file still waits for its grace period.  So the verdict is on the
	 * last reading taken, never on one more. */
	bool have_after = false;
	for (int tries = 0; have && tries < 250; tries++) {
		have_after = frames_read(&after);
		if (!have_after || after.v[KS_FRAMES_FREE] == before.v[KS_FRAMES_FREE])
			break;
		sleep_ms(20);
	}
	if (have_after) {
		/* On a mismatch, every counter that moved: a task or file of
		 * someone else's between the readings tells a foreign change
		 * from a leak of ours. */
		if (!is_int(after.v[KS_FRAMES_FREE], before.v[KS_FRAMES_FREE],
			    "every frame back, page tables included"))
			kstat_same(&before, &after, "");
	} else
		skip("no " KSTAT_PATH, "every frame back");
	return done();
}
