/*
 * Spinlocks.  Every shared structure takes a named lock; tasks run on every
 * CPU unless the boot word smp=off (docs/smp.md).  Holding a spinlock disables interrupts on
 * this CPU (irq_push_off/irq_pop_off nest, xv6 style), so a lock also taken by
 * an interrupt handler cannot deadlock against the code it interrupted.
 *
 * The lock and unlock paths are inline: every system call that touches a
 * files table or a socket takes one, and a call costs more than the work.
 * The misuse checks stay on them; only the reports are out of line.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/lockdep.h"

struct spinlock {
	volatile uint32_t locked;
	struct cpu *owner; /* for spin_held() and deadlock reports */
	const char *name;
};

#define SPINLOCK_INIT(n)                                                                           \
	{                                                                                          \
		.locked = 0, .owner = 0, .name = (n)                                               \
	}

void spin_init(struct spinlock *lock, const char *name);

/* Panics with "what" and the lock's name (NULL: none): a lock misused. */
__attribute__((noreturn, cold)) void spin_misuse(const char *what, const struct spinlock *lock);

/* Interrupt disabling that nests; the outermost pop restores the old state. */
static inline void irq_push_off(void)
{
	bool on = read_rflags() & RFLAGS_IF;
	struct cpu *c;

	irq_disable();
	c = this_cpu();
	if (c->irq_off_depth++ == 0)
		c->irq_were_on = on;
}

static inline void irq_pop_off(void)
{
	struct cpu *c = this_cpu();

	if (read_rflags() & RFLAGS_IF)
		spin_misuse("irq_pop_off: interrupts are on", 0);
	if (c->irq_off_depth < 1)
		spin_misuse("irq_pop_off: unbalanced", 0);
	if (--c->irq_off_depth == 0 && c->irq_were_on)
		irq_enable();
}

/* True if this CPU holds the lock.  The owner alone says it: only this
 * CPU stores itself there, after taking the lock, and clears it before
 * letting go; another CPU's store never makes it equal. */
static inline bool spin_held(const struct spinlock *lock)
{
	return lock->owner == this_cpu();
}

/* Takes the lock; the caller chose the interrupt state (below). */
static inline void spin_acquire(struct spinlock *lock)
{
	lockdep_acquire(lock->name, lock, false);
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
		/* Taken: by this CPU is a misuse, looked for only here, off
		 * the uncontended path. */
		if (spin_held(lock))
			spin_misuse("spin_lock: already held by this CPU", lock);
		/* Wait reading, not exchanging (the line stays shared), and
		 * serve this CPU's cross-CPU call: the holder may be waiting
		 * for it (a TLB shootdown under a space's lock). */
		do {
			smp_call_poll(this_cpu());
			cpu_relax();
		} while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED));
	}
	lock->owner = this_cpu();
}

/* Takes the lock if it is free, at once; false if another CPU holds it. */
static inline bool spin_tryacquire(struct spinlock *lock)
{
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	lockdep_acquire(lock->name, lock, false);
	lock->owner = this_cpu();
	return true;
}

static inline void spin_release(struct spinlock *lock)
{
	if (!spin_held(lock))
		spin_misuse("spin_unlock: not held", lock);
	lockdep_release(lock->name, lock, false);
	lock->owner = 0;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

static inline void spin_lock(struct spinlock *lock)
{
	irq_push_off();
	spin_acquire(lock);
}

static inline void spin_unlock(struct spinlock *lock)
{
	spin_release(lock);
	irq_pop_off();
}

/*
 * For a lock that no interrupt handler takes, taken while holding no lock
 * an interrupt handler takes (the files tables', an io_uring ring's):
 * interrupts stay as they are, which saves spin_lock's save, nesting
 * count and restore (~25 instructions a round, two rounds per dup +
 * close: docs/bench.md).  The kernel switches tasks only on the way to
 * user mode, so the holder still cannot be switched out or migrate; an
 * interrupt only delays its unlock.  LOCKDEP builds turn interrupts off
 * as spin_lock does: lockdep's per-CPU list of held locks must not see an
 * interrupt handler's locks nested in it.
 */
static inline void spin_lock_task(struct spinlock *lock)
{
#ifdef LOCKDEP
	irq_push_off();
#endif
	spin_acquire(lock);
}

static inline void spin_unlock_task(struct spinlock *lock)
{
	spin_release(lock);
#ifdef LOCKDEP
	irq_pop_off();
#endif
}

/* spin_lock_task if the lock is free at once: for a fast path that leaves
 * contention to its general case (and so calls nothing). */
static inline bool spin_trylock_task(struct spinlock *lock)
{
#ifdef LOCKDEP
	irq_push_off();
	if (spin_tryacquire(lock))
		return true;
	irq_pop_off();
	return false;
#else
	return spin_tryacquire(lock);
#endif
}

#endif
