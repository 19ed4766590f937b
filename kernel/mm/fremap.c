/*
 * remap_file_pages(2), deprecated, as Linux 4.0 and later emulate it: the
 * pages [start, start + size) of a shared file mapping are mapped again,
 * from file page pgoff on, by a new mapping of the same file with the same
 * protection (Linux's mmap with MAP_SHARED | MAP_FIXED | MAP_POPULATE
 * over them).  System V shm attaches are shared file mappings too.
 */
#include "fs/inode.h"
#include "mm/layout.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

/* Whether w continues v's mapping for remap_file_pages: adjacent, the same
 * file, protection, flags and object (Linux compares vm_file, vm_flags). */
static bool continues(const struct vma *v, const struct vma *prev, const struct vma *w)
{
	return w && w->start == prev->end && w->file == v->file && w->prot == v->prot &&
	       w->flags == v->flags && w->ops == v->ops && w->priv == v->priv;
}

/*
 * u locked: the template of the new mapping of [start, end) into *tmpl, or
 * -EINVAL: start outside every vma, not a shared file mapping (fdkernel's
 * shared anonymous memory has no file: EINVAL where Linux remaps its
 * shmem file), or the range not covered by vmas continuing the first.
 */
static int remap_template(struct uvm *u, uint64_t start, uint64_t end, struct vma *tmpl)
{
	struct vma *v = vma_at(u, start), *w;

	if (!v || !(v->flags & VMA_SHARED) || !v->file)
		return -EINVAL;
	for (w = v; w->end < end; w = vma_next(u, w))
		if (!continues(v, w, vma_next(u, w)))
			return -EINVAL;
	*tmpl = *v;
	tmpl->start = start;
	tmpl->end = end;
	/* a fresh mapping's flags: no madvise state; MAP_LOCKED populates */
	tmpl->flags &= ~(VMA_DONTDUMP | VMA_LOCKONFAULT);
	return 0;
}

/*
 * u locked: replaces [tmpl->start, tmpl->end) by *tmpl.  The template pins
 * its file, its name and its object (an open of its own) while the old vmas go, so
 * neither is freed under it; an object the old vmas were the last users
 * of, Linux would have freed before mapping it again (EINVAL, the old
 * mapping gone all the same).
 */
static int remap_replace(struct uvm *u, struct vma *tmpl)
{
	int err;

	inode_get(tmpl->file);
	if (tmpl->name)
		vma_name_get(tmpl->name);
	if (tmpl->ops)
		tmpl->ops->open(tmpl);
	err = vma_remove(u, tmpl->start, tmpl->end);
	if (!err && tmpl->ops && tmpl->ops->remappable && !tmpl->ops->remappable(tmpl))
		err = -EINVAL;
	if (!err)
		err = vma_insert(u, tmpl); /* its copy takes its own references */
	if (tmpl->ops)
		tmpl->ops->close(tmpl);
	if (tmpl->name)
		vma_name_put(tmpl->name);
	inode_put(tmpl->file);
	return err;
}

/* Linux's order of checks: prot, the rounded range, pgoff's wrap, the
 * vmas, then the file offset (EOVERFLOW past the largest file). */
SYSCALL_DEFINE5(remap_file_pages, uint64_t, start, uint64_t, size, uint64_t, prot, uint64_t, pgoff,
		uint64_t, flags)
{
	struct uvm *u = current()->uvm;
	struct vma tmpl;
	int err;

	if (prot) /* the emulation keeps the mapping's protection */
		return -EINVAL;
	start = PAGE_ALIGN_DOWN(start);
	size = PAGE_ALIGN_DOWN(size);
	if (start + size <= start || pgoff + (size >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	spin_lock(&u->lock);
	err = remap_template(u, start, start + size, &tmpl);
	if (!err && (size > INT64_MAX || pgoff > (INT64_MAX - size) >> PAGE_SHIFT))
		err = -EOVERFLOW;
	tmpl.off = pgoff << PAGE_SHIFT;
	if (!err)
		err = remap_replace(u, &tmpl);
	spin_unlock(&u->lock);
	/* MAP_POPULATE unless MAP_NONBLOCK (Linux keeps only that flag);
	 * best effort, as mmap's */
	if (!err && !(flags & MAP_NONBLOCK))
		uvm_populate(u, tmpl.start, tmpl.end);
	return err;
}
