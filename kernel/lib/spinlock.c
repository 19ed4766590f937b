/*
 * Spinlocks and nested interrupt disabling (see lib/spinlock.h).
 */
#include "lib/spinlock.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/printk.h"

void irq_push_off(void)
{
	bool on = read_rflags() & RFLAGS_IF;
	struct cpu *c;

	irq_disable();
	c = this_cpu();
	if (c->irq_off_depth++ == 0)
		c->irq_were_on = on;
}

void irq_pop_off(void)
{
	struct cpu *c = this_cpu();

	if (read_rflags() & RFLAGS_IF)
		panic("irq_pop_off: interrupts are on");
	if (c->irq_off_depth < 1)
		panic("irq_pop_off: unbalanced");
	if (--c->irq_off_depth == 0 && c->irq_were_on)
		irq_enable();
}

void spin_init(struct spinlock *lock, const char *name)
{
	lock->locked = 0;
	lock->owner = 0;
	lock->name = name;
}

bool spin_held(const struct spinlock *lock)
{
	return lock->locked && lock->owner == this_cpu();
}

void spin_lock(struct spinlock *lock)
{
	irq_push_off();
	if (spin_held(lock))
		panic("spin_lock: %s already held by this CPU", lock->name);
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	lock->owner = this_cpu();
}

void spin_unlock(struct spinlock *lock)
{
	if (!spin_held(lock))
		panic("spin_unlock: %s not held", lock->name);
	lock->owner = 0;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	irq_pop_off();
}
