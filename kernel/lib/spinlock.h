/*
 * Spinlocks.  fdkernel runs one CPU today but every shared structure takes a
 * named lock so SMP needs no audit.  Holding a spinlock disables interrupts on
 * this CPU (saved and restored), so a lock taken by an interrupt handler
 * cannot deadlock against the code it interrupted.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	uint64_t saved_flags; /* RFLAGS of the holder before it took the lock */
	const char *name;
};

#define SPINLOCK_INIT(n) {.locked = 0, .saved_flags = 0, .name = (n)}

void spin_init(struct spinlock *lock, const char *name);
void spin_lock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
bool spin_held(const struct spinlock *lock);

#endif
