/*
 * Exception-table probes: accesses that may fault.  A fault at one of these
 * instructions resumes at its fixup and the probe returns -EFAULT instead of
 * the kernel dying.  copy_from_user and friends are built on the same table.
 */
#ifndef ARCH_EXTABLE_H
#define ARCH_EXTABLE_H

#include <stdint.h>

/* 0 on success, -EFAULT if the access faulted. */
int probe_read_u64(const volatile void *addr, uint64_t *out);
int probe_write_u64(volatile void *addr, uint64_t val);

/* Called by the trap handler: the fixup address for a faulting RIP, or 0. */
uint64_t extable_fixup(uint64_t rip);

#endif
