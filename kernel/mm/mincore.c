/*
 * mincore: which pages of a range are in memory.  A page is, when this
 * space maps it, or, in a file mapping, when the file has it (the ramfs is
 * the page cache).  Linux's checks and its order; the answer is copied out
 * in chunks, never under the uvm lock (a copy may fault).
 */
#include "arch/x86_64/uaccess.h"
#include "fs/inode.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define CHUNK 256 /* pages per copy-out */

static bool file_has_page(const struct vma *v, uint64_t va)
{
	uint64_t pa = v->file ? inode_page_ref(v->file, (v->off + (va - v->start)) / PAGE_SIZE) : 0;

	if (pa)
		frame_unref(pa);
	return pa != 0;
}

/* One byte per page of the n pages at start into out (u locked): 0, or
 * -ENOMEM at the first page no vma covers. */
static int residency(struct uvm *u, uint64_t start, size_t n, unsigned char *out)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t va = start + i * PAGE_SIZE;
		struct vma *v = vma_at(u, va);
		if (!v)
			return -ENOMEM;
		out[i] = vm_page_mapped(u->space, va) || file_has_page(v, va);
	}
	return 0;
}

SYSCALL_DEFINE3(mincore, uint64_t, start, uint64_t, len, unsigned char *, vec)
{
	struct uvm *u = current()->uvm;
	unsigned char buf[CHUNK];
	uint64_t pages;
	int err;

	if (start & PAGE_MASK)
		return -EINVAL;
	if (start >= USER_END || len > USER_END - start)
		return -ENOMEM;
	pages = PAGE_ALIGN_UP(len) / PAGE_SIZE;
	if (!user_range_ok((uint64_t)vec, pages))
		return -EFAULT;
	while (pages) {
		size_t n = pages < CHUNK ? pages : CHUNK;
		spin_lock(&u->lock);
		err = residency(u, start, n, buf);
		spin_unlock(&u->lock);
		if (err)
			return err;
		if (copy_to_user(vec, buf, n))
			return -EFAULT;
		start += n * PAGE_SIZE, vec += n, pages -= n;
	}
	return 0;
}
