/*
 * Grace periods (RCU style): memory that lock-free readers may still hold
 * is freed only after every CPU online when it was retired has passed a
 * quiescent state.  The one mechanism behind fd-map replacement and file
 * freeing; the rules are in docs/smp.md, "Grace periods".
 *
 * Read side: nothing to call.  A lock-free reader (fd lookup) must not
 * sleep, switch tasks or return to user mode while it holds a pointer it
 * found without a lock; interrupt handlers are never readers.  So every
 * context switch, every return to user mode and every idle CPU is a
 * quiescent state: the readers that ran on that CPU before it are done.
 */
#ifndef SCHED_GRACE_H
#define SCHED_GRACE_H

/* Embedded in what waits for a grace period; fn frees its container. */
struct grace_head {
	struct grace_head *next;
	void (*fn)(struct grace_head *head);
};

/*
 * grace_defer - run fn(head) after a grace period
 * @head: [in] embedded in the object to free, unused until fn runs
 * @fn:   [in] the callback; it runs in process or idle context without
 *        locks held, after every CPU online now has passed a quiescent
 *        state.  Callbacks run in the order they were queued.
 *
 * The caller has already unpublished the object (no new reader can find
 * it).  Never sleeps: callable under spinlocks.
 */
void grace_defer(struct grace_head *head, void (*fn)(struct grace_head *head));

#ifdef __KERNEL__
/* This CPU passed a quiescent state (context switch, return to user). */
void grace_quiescent(void);
/* This CPU goes idle (extended quiescent state) and comes back: around hlt. */
void grace_idle_enter(void);
void grace_idle_exit(void);
void grace_selftest(void);
#endif

/* Waits until every callback queued so far has run (leak check, tests):
 * yields the CPU between checks, so may sleep. */
void grace_drain(void);

#endif
