/*
 * Memory: sbrk() for newlib's malloc, on the kernel's brk, and anonymous
 * mmap/munmap/mprotect/mremap/madvise/msync/mincore.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "syscall.h"

/* The current break; the kernel tells us on the first call. */
static uintptr_t cur_brk;

void *sbrk(ptrdiff_t incr)
{
	uintptr_t old;

	if (!cur_brk)
		cur_brk = sys_raw(__NR_brk, 0);
	old = cur_brk;
	if (incr == 0)
		return (void *)old;
	/* brk returns the new break, or the old one when it refuses. */
	cur_brk = sys_raw(__NR_brk, old + incr);
	if (cur_brk != old + incr) {
		cur_brk = old;
		errno = ENOMEM;
		return (void *)-1;
	}
	return (void *)old;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	long ret = sys_call(__NR_mmap, addr, len, prot, flags, fd, offset);

	return ret == -1 ? MAP_FAILED : (void *)ret;
}

int munmap(void *addr, size_t len)
{
	return sys_call(__NR_munmap, addr, len);
}

int mprotect(void *addr, size_t len, int prot)
{
	return sys_call(__NR_mprotect, addr, len, prot);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	va_list ap;
	void *new_addr;

	va_start(ap, flags);
	new_addr = flags & MREMAP_FIXED ? va_arg(ap, void *) : NULL;
	va_end(ap);
	long ret = sys_call(__NR_mremap, old, old_len, new_len, flags, new_addr);
	return ret == -1 ? MAP_FAILED : (void *)ret;
}

int msync(void *addr, size_t len, int flags)
{
	return sys_call(__NR_msync, addr, len, flags);
}

int mincore(void *addr, size_t len, unsigned char *vec)
{
	return sys_call(__NR_mincore, addr, len, vec);
}

int madvise(void *addr, size_t len, int advice)
{
	return sys_call(__NR_madvise, addr, len, advice);
}
