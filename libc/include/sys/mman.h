/*
 * Memory mappings (newlib has no <sys/mman.h>): PROT_* and MAP_* from
 * kernel/uapi.
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
/* new_addr (void *) follows flags with MREMAP_FIXED. */
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...);
int madvise(void *addr, size_t len, int advice);
int msync(void *addr, size_t len, int flags);
int mincore(void *addr, size_t len, unsigned char *vec);

#ifdef __cplusplus
}
#endif
#endif
