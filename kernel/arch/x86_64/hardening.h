/*
 * CPU protections the kernel turns on when the CPU has them: SMEP (no
 * kernel execution of user pages), SMAP (no kernel access to user pages
 * outside copy_*_user) and UMIP (no sgdt/sidt/str from user mode).
 */
#ifndef ARCH_HARDENING_H
#define ARCH_HARDENING_H

#include <stdbool.h>
#include <stdint.h>

/* Read by usercopy.asm: stac/clac only exist where SMAP does. */
extern uint8_t smap_enabled;

void hardening_init(void);
bool hardening_smep(void);

/*
 * Opens and closes a window in which the kernel may touch user pages
 * directly.  Only self-tests use it; everything else goes through
 * copy_from_user and friends (which do the same in usercopy.asm).
 */
static inline void user_access_begin(void)
{
	if (smap_enabled)
		asm volatile("stac" ::: "memory");
}

static inline void user_access_end(void)
{
	if (smap_enabled)
		asm volatile("clac" ::: "memory");
}

#endif
