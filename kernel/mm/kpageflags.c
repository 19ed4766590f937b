/*
 * /proc/kpageflags (Linux's fs/proc/page.c, Documentation/admin-guide/
 * mm/pagemap.rst): one 64-bit word of KPF_* bits per frame, the word of
 * frame N at offset 8 * N, up to the top of RAM (then EOF); read only by
 * root (0400, fs/dev/devices.c), at whole words (EINVAL otherwise, as
 * Linux).  A frame number comes from /proc/<pid>/pagemap.
 *
 * Only what fdkernel knows of a frame is shown: a page of the page cache
 * (mm/filemap.c) is LRU (every cached page is on its LRU list) with its
 * LOCKED, UPTODATE, DIRTY and WRITEBACK state, and MMAP while a process
 * maps it; a page table is PGTABLE, a free frame BUDDY (fdkernel's
 * allocator frees single frames), one the allocator never hands out
 * (firmware, the kernel image, holes) RESERVED.  Other frames (anonymous
 * memory, ramfs pages, the heap, kernel stacks) read 0: nothing records
 * what they serve.  The cached pages are found by one walk of the LRU
 * list per chunk of words (no frame-to-page index is kept).
 *
 * Also the read loop of both files of words, this and /proc/<pid>/pagemap.
 */
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/kpageflags.h"
#include "mm/layout.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define WORD  8	  /* bytes */
#define CHUNK 512 /* words per fill (a walk of the cache, a hold of the uvm lock): 4 KiB */

/* proc_words_read's fill: the bits of frames [first, first + n). */
static long fill(void *arg, uint64_t first, size_t n, uint64_t *out)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t pa = (first + i) << PAGE_SHIFT;

		if (!frame_is_managed(pa))
			out[i] = KPF_RESERVED;
		else if (!frame_refcount(pa))
			out[i] = KPF_BUDDY;
		else
			out[i] = frame_is_kind(pa, FRAME_TABLE) ? KPF_PGTABLE : 0;
	}
	(void)arg;
	filemap_kpageflags(first, n, out);
	return 1;
}

long proc_words_read(struct iov_iter *to, uint64_t *pos, uint64_t end,
		     long (*fill)(void *arg, uint64_t first, size_t n, uint64_t *out), void *arg)
{
	size_t count = iov_iter_count(to), done = 0;
	uint64_t word = *pos / WORD;
	uint64_t *buf;
	long err = 0;

	if (*pos % WORD || count % WORD)
		return -EINVAL;
	if (!count || word >= end)
		return 0;
	if (!(buf = kmalloc(CHUNK * WORD)))
		return -ENOMEM;
	while (done < count && word < end) {
		size_t n = (count - done) / WORD;
		n = n < CHUNK ? n : CHUNK;
		n = n < end - word ? n : end - word;
		memset(buf, 0, n * WORD);
		if ((err = fill(arg, word, n, buf)) <= 0)
			break;
		err = 0;
		if (copy_to_iter(buf, n * WORD, to) < n * WORD) {
			err = -EFAULT; /* Linux's answer, even after earlier words */
			break;
		}
		done += n * WORD;
		word += n;
		cond_resched();
	}
	kfree(buf);
	*pos += done;
	return err && (err == -EFAULT || !done) ? err : (long)done;
}

static long kpageflags_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)f;
	return proc_words_read(to, pos, frame_pfn_end(), fill, NULL);
}

const struct file_ops kpageflags_ops = {
    .read_iter = kpageflags_read,
    .release = vfs_release_inode,
    .seekable = true, /* read by lseek and read, or pread */
};
