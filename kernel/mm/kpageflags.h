/*
 * /proc/kpageflags's bits (Linux's include/uapi/linux/kernel-page-flags.h),
 * those fdkernel can tell (mm/kpageflags.c), and the read loop of the
 * /proc files of 64-bit words (kpageflags, /proc/<pid>/pagemap).
 */
#ifndef MM_KPAGEFLAGS_H
#define MM_KPAGEFLAGS_H

#include <stddef.h>
#include <stdint.h>

#define KPF_LOCKED    (1ULL << 0)
#define KPF_UPTODATE  (1ULL << 3)
#define KPF_DIRTY     (1ULL << 4)
#define KPF_LRU	      (1ULL << 5)
#define KPF_WRITEBACK (1ULL << 8)
#define KPF_BUDDY     (1ULL << 10)
#define KPF_MMAP      (1ULL << 11)
#define KPF_PGTABLE   (1ULL << 26)
#define KPF_RESERVED  (1ULL << 32)

struct file_ops;
struct iov_iter;
/* /proc/kpageflags's node (fs/dev/devices.c). */
extern const struct file_ops kpageflags_ops;

/*
 * A read at *pos of a file of 64-bit words, end of them (then EOF): whole
 * words only (EINVAL), made a chunk at a time by fill(arg, first, n, out)
 * into zeroed words (> 0; 0 ends at EOF, -errno with the error unless
 * words were read), copied out without a lock.  Bytes read (*pos moved
 * by them), or -errno; -EFAULT even after some words, as Linux.
 */
long proc_words_read(struct iov_iter *to, uint64_t *pos, uint64_t end,
		     long (*fill)(void *arg, uint64_t first, size_t n, uint64_t *out), void *arg);

/* ORs into out[pfn - first] the bits of each page of the page cache
 * whose frame is in [first, first + n) (mm/filemap.c). */
void filemap_kpageflags(uint64_t first, size_t n, uint64_t *out);

#endif
