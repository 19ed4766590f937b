/*
 * Spinlocks.  fdkernel runs one CPU today but every shared structure takes a
 * named lock so SMP needs no audit.  Holding a spinlock disables interrupts on
 * this CPU (irq_push_off/irq_pop_off nest, xv6 style), so a lock also taken by
 * an interrupt handler cannot deadlock against the code it interrupted.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

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
void spin_lock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
/* True if this CPU holds the lock. */
bool spin_held(const struct spinlock *lock);

/* Interrupt disabling that nests; the outermost pop restores the old state. */
void irq_push_off(void);
void irq_pop_off(void);

#endif
