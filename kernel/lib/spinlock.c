/*
 * Spinlocks and nested interrupt disabling (see lib/spinlock.h): what is
 * not inline, the set-up and the misuse reports.
 */
#include "lib/spinlock.h"
#include "lib/printk.h"

void spin_init(struct spinlock *lock, const char *name)
{
	lock->locked = 0;
	lock->owner = 0;
	lock->name = name;
}

void spin_misuse(const char *what, const struct spinlock *lock)
{
	panic("%s (lock %s)", what, lock ? lock->name : "none");
}
