/* Unimplemented system calls: counted, optionally logged (sys/enosys.c). */
#ifndef SYS_ENOSYS_H
#define SYS_ENOSYS_H

#include <stdint.h>

/* Counts (and with enosys=log logs once per number) a call to nr: -ENOSYS. */
long syscall_enosys(uint64_t nr);
/* Calls to unimplemented numbers since boot. */
unsigned long enosys_count(void);

#endif
