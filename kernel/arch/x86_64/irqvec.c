/*
 * Device interrupt vectors (irqvec.h): a small table from vector to
 * handler.  Entries are filled under irqvec_lock before the vector is
 * given to the device and never change afterwards, so dispatch reads them
 * without the lock (the device cannot raise a vector it was not told).
 */
#include "arch/x86_64/irqvec.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include <uapi/errno.h>

struct dev_vector {
	dev_irq_fn fn; /* NULL: free */
	void *data;
	const char *chip, *name;
};

/* Protects nused and the entries' filling; see above for reads. */
static struct spinlock irqvec_lock = SPINLOCK_INIT("irqvec");
static struct dev_vector vectors[VEC_DEV_COUNT];
static int nused;

int irqvec_alloc(const char *chip, const char *name, dev_irq_fn fn, void *data)
{
	int vec = -ENOSPC;

	spin_lock(&irqvec_lock);
	if (nused < VEC_DEV_COUNT) {
		vectors[nused] = (struct dev_vector){fn, data, chip, name};
		vec = VEC_DEV_BASE + nused;
		__atomic_store_n(&nused, nused + 1, __ATOMIC_RELEASE); /* irqvec_format */
	}
	spin_unlock(&irqvec_lock);
	return vec;
}

uint32_t irqvec_target_apic(int n)
{
	return cpu_get(n % smp_cpus_online)->apic_id;
}

void irqvec_dispatch(int vec)
{
	const struct dev_vector *v = &vectors[vec - VEC_DEV_BASE];

	this_cpu()->dev_irqs[vec - VEC_DEV_BASE]++;
	if (v->fn)
		v->fn(v->data);
	lapic_eoi();
}

void irqvec_format(char *buf, size_t size, size_t *len)
{
	int n = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++) {
		appendk(buf, size, len, "%4d:", VEC_DEV_BASE + i);
		for (int c = 0; c < smp_cpus_online; c++)
			appendk(buf, size, len, " %10lu",
				__atomic_load_n(&cpu_get(c)->dev_irqs[i], __ATOMIC_RELAXED));
		appendk(buf, size, len, "  %s  %s\n", vectors[i].chip, vectors[i].name);
	}
}
