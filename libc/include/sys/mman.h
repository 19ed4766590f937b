/*
 * Memory mappings (newlib has no <sys/mman.h>): PROT_* and MAP_* from
 * kernel/uapi; fdkernel maps anonymous memory only.
 */
#ifndef _SYS_MMAN_H
#define _SYS_MMAN_H

#include <sys/types.h>
#include <uapi/mman.h>

#ifdef __cplusplus
extern "C" {
#endif

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
int munmap(void *addr, size_t len);
int mprotect(void *addr, size_t len, int prot);

#ifdef __cplusplus
}
#endif
#endif
