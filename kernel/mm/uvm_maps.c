/*
 * /proc/<pid>/maps: a process's mapping list (mm/vma.h) in Linux's
 * format, one line per vma:
 *   start-end perms offset major:minor inode, then the name at column 73
 * (the program's path for its image, its interpreter's, [heap], [vdso],
 * [vvar], [stack], what a mapping with vma_ops describes (a System V
 * attach), a file mapping's path as mmap found it (vma->name, with
 * " (deleted)" once the file has no name left, as Linux); none for
 * anonymous memory).
 */
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include <uapi/mman.h>

#define NAME_COLUMN 73 /* Linux: 25 + 6 * sizeof(void *) - 1, plus one space */

static const char *vma_name(const struct uvm *u, const struct vma *v)
{
	if (v->flags & VMA_HEAP)
		return "[heap]";
	if (v->flags & VMA_STACK)
		return "[stack]";
	if (v->flags & VMA_VDSO)
		return "[vdso]";
	if (v->flags & VMA_VVAR)
		return "[vvar]";
	if (v->file && v->file == u->exe)
		return u->exe_path;
	if (v->file && v->file == u->interp)
		return u->interp_path;
	return v->name ? v->name->path : NULL;
}

/* Whether v's file lost its last name after mmap gave v its name.  nlink
 * is read without the inode's lock (not to be taken under the uvm's): a
 * name being removed at this moment may show either way, as on Linux. */
static bool deleted(const struct vma *v, const char *name)
{
	size_t len = strlen(name), tail = sizeof(" (deleted)") - 1;

	return v->name && name == v->name->path && v->file &&
	       !__atomic_load_n(&v->file->nlink, __ATOMIC_RELAXED) &&
	       (len < tail || strcmp(name + len - tail, " (deleted)"));
}

size_t uvm_maps_line(const struct uvm *u, const struct vma *v, const char *name, char *buf,
		     size_t size)
{
	struct uapi_stat st = {0};
	char own[48];
	int len;

	if (!name)
		name = vma_name(u, v);
	if (v->file)
		inode_stat(v->file, &st);
	if (v->ops && v->ops->describe) {
		uint64_t dev, ino;
		v->ops->describe(v, &dev, &ino, own, sizeof own);
		st.st_dev = dev;
		st.st_ino = ino;
		name = own;
	}
	len = snprintk(buf, size, "%08lx-%08lx %c%c%c%c %08lx %02lx:%02lx %lu ", v->start, v->end,
		       v->prot & PROT_READ ? 'r' : '-', v->prot & PROT_WRITE ? 'w' : '-',
		       v->prot & PROT_EXEC ? 'x' : '-', v->flags & VMA_SHARED ? 's' : 'p',
		       v->file ? v->off : 0, (uint64_t)st.st_dev >> 8, (uint64_t)st.st_dev & 0xff,
		       (uint64_t)st.st_ino);
	const char *tail = name && deleted(v, name) ? " (deleted)" : "";

	if (name && (size_t)len + NAME_COLUMN + strlen(name) + strlen(tail) + 1 < size) {
		while (len < NAME_COLUMN)
			buf[len++] = ' ';
		len += snprintk(buf + len, size - len, "%s%s", name, tail);
	}
	if ((size_t)len + 1 >= size)
		return 0;
	buf[len] = '\n';
	return len + 1;
}

long uvm_format_maps(struct uvm *u, char *buf, size_t size)
{
	size_t len = 0, n;
	struct vma *v;

	spin_lock(&u->lock);
	list_for_each_entry(v, &u->vt->vmas, node)
	{
		if (!(n = uvm_maps_line(u, v, NULL, buf + len, size - len)))
			break; /* full: whole lines only */
		len += n;
	}
	spin_unlock(&u->lock);
	return (long)len;
}

uint64_t uvm_mapped_bytes(struct uvm *u, unsigned int flags)
{
	uint64_t bytes = 0;
	struct vma *v;

	spin_lock(&u->lock);
	list_for_each_entry(v, &u->vt->vmas, node)
	{
		if (!flags || (v->flags & flags))
			bytes += v->end - v->start;
	}
	spin_unlock(&u->lock);
	return bytes;
}
