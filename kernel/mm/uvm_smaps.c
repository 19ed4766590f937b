/*
 * /proc/<pid>/smaps and smaps_rollup: what each mapping (mm/vma.h) has
 * in memory, counted from the page tables, in Linux's format (its
 * fs/proc/task_mmu.c fields and order; huge pages, swap, KSM and lazy
 * freeing do not exist here and read 0).  Per page mapped:
 *  - its map count: the frame's references, less the file's own for a
 *    page of the file (the ramfs is the page cache); 2 or more is Shared,
 *    and Pss takes a 1/count share, as Linux's;
 *  - Anonymous: a page of no file (anonymous private memory, and the
 *    copies a private file mapping made on write); shared anonymous
 *    memory and file pages are Linux's shmem (Pss_Shmem: every file lives
 *    in memory, as on tmpfs);
 *  - Dirty: the entry's dirty bit, or a file page (the ramfs keeps its
 *    pages dirty, as tmpfs: they have no other copy);
 *  - Referenced: the entry's accessed bit; Locked: Pss of mlocked vmas.
 * Everything is read under the uvm lock (and the space's, then an
 * inode's to tell a file's page from a private copy), as maps is.
 */
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include <uapi/mman.h>

#define PSS_SHIFT 12 /* Pss in 1/4096ths of a byte, as Linux's */

struct smaps_sums {
	uint64_t resident, shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t referenced, anonymous;
	uint64_t pss, pss_dirty, pss_anon, pss_file, pss_shmem, pss_locked; /* << PSS_SHIFT */
};

/* One vma's walk: its sums, and what each page needs to know of it. */
struct smaps_walk {
	struct smaps_sums *sums;
	const struct vma *v;
};

/* Whether pa is page va's own frame in v's file (not a private copy). */
static bool is_file_page(const struct vma *v, uint64_t va, uint64_t pa)
{
	uint64_t fpa = inode_page_ref(v->file, (v->off + (va - v->start)) / PAGE_SIZE);

	if (fpa)
		frame_unref(fpa);
	return fpa && fpa == pa;
}

uint32_t vma_page_mapcount(const struct vma *v, uint64_t va, uint64_t pa, bool *file)
{
	uint32_t refs = frame_refcount(pa);

	*file = v->file && is_file_page(v, va, pa);
	return refs - (*file && refs);
}

/* Linux's smaps_account for one 4 KiB page (vm_walk_mapped's callback). */
static void account_page(void *arg, uint64_t va, uint64_t pte)
{
	struct smaps_walk *w = arg;
	struct smaps_sums *s = w->sums;
	uint64_t pa = pte & PTE_ADDR;
	bool file;
	uint32_t count = vma_page_mapcount(w->v, va, pa, &file);
	uint64_t pss = ((uint64_t)PAGE_SIZE << PSS_SHIFT) / (count > 1 ? count : 1);
	bool dirty = (pte & PTE_DIRTY) || file, shared = count > 1;

	s->resident += PAGE_SIZE;
	if (pte & PTE_ACCESSED)
		s->referenced += PAGE_SIZE;
	s->pss += pss;
	if (!file && !(w->v->flags & VMA_SHARED)) {
		s->anonymous += PAGE_SIZE;
		s->pss_anon += pss;
	} else {
		s->pss_shmem += pss;
	}
	if (w->v->flags & VMA_LOCKED)
		s->pss_locked += pss;
	if (dirty)
		s->pss_dirty += pss;
	*(dirty ? (shared ? &s->shared_dirty : &s->private_dirty)
		: (shared ? &s->shared_clean : &s->private_clean)) += PAGE_SIZE;
}

/* Adds v's pages to s (u locked). */
static void smaps_vma(struct uvm *u, const struct vma *v, struct smaps_sums *s)
{
	struct smaps_walk w = {s, v};

	vm_walk_mapped(u->space, v->start, v->end, account_page, &w);
}

/* Appends "Name:" padded to 16 columns, the value in kB in 8, " kB". */
static void put_kb(char *buf, size_t size, size_t *len, const char *name, uint64_t bytes)
{
	appendk(buf, size, len, "%-16s%8lu kB\n", name, bytes >> 10);
}

/* Linux's __show_smap: the sums, with the Pss split for a rollup. */
static void put_sums(char *buf, size_t size, size_t *len, const struct smaps_sums *s, bool rollup)
{
	put_kb(buf, size, len, "Rss:", s->resident);
	put_kb(buf, size, len, "Pss:", s->pss >> PSS_SHIFT);
	put_kb(buf, size, len, "Pss_Dirty:", s->pss_dirty >> PSS_SHIFT);
	if (rollup) {
		put_kb(buf, size, len, "Pss_Anon:", s->pss_anon >> PSS_SHIFT);
		put_kb(buf, size, len, "Pss_File:", s->pss_file >> PSS_SHIFT);
		put_kb(buf, size, len, "Pss_Shmem:", s->pss_shmem >> PSS_SHIFT);
	}
	put_kb(buf, size, len, "Shared_Clean:", s->shared_clean);
	put_kb(buf, size, len, "Shared_Dirty:", s->shared_dirty);
	put_kb(buf, size, len, "Private_Clean:", s->private_clean);
	put_kb(buf, size, len, "Private_Dirty:", s->private_dirty);
	put_kb(buf, size, len, "Referenced:", s->referenced);
	put_kb(buf, size, len, "Anonymous:", s->anonymous);
	static const char *const none[] = {
	    "KSM:",	      "LazyFree:",	 "AnonHugePages:",   "ShmemPmdMapped:",
	    "FilePmdMapped:", "Shared_Hugetlb:", "Private_Hugetlb:", "Swap:",
	    "SwapPss:",
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		put_kb(buf, size, len, none[i], 0);
	put_kb(buf, size, len, "Locked:", s->pss_locked >> PSS_SHIFT);
}

/* Linux's VmFlags mnemonics that fdkernel's vmas can have, in Linux's
 * bit order: the VM_* flags each stands for, from prot and VMA_*.  A
 * shared mapping of a file not open for writing is "ms" without "sh" and
 * "mw", as Linux clears VM_SHARED and VM_MAYWRITE there. */
static void put_vmflags(char *buf, size_t size, size_t *len, const struct vma *v)
{
	bool shared = v->flags & VMA_SHARED, maywrite = !shared || (v->flags & VMA_MAYWRITE);
	const struct {
		bool on;
		const char *name;
	} flags[] = {
	    {v->prot & PROT_READ, "rd"},
	    {v->prot & PROT_WRITE, "wr"},
	    {v->prot & PROT_EXEC, "ex"},
	    {shared && maywrite, "sh"},
	    {true, "mr"},
	    {maywrite, "mw"},
	    {true, "me"},
	    {shared, "ms"},
	    {v->flags & VMA_GROWSDOWN, "gd"},
	    {v->flags & VMA_LOCKED, "lo"},
	    {v->flags & VMA_LOCKONFAULT, "lf"},
	    {vma_charge(v) != 0, "ac"},
	    {v->flags & VMA_NORESERVE, "nr"},
	    {v->flags & VMA_DONTDUMP, "dd"},
	};

	appendk(buf, size, len, "VmFlags: ");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i].on)
			appendk(buf, size, len, "%s ", flags[i].name);
	appendk(buf, size, len, "\n");
}

/* One vma's entry into buf: its length, or 0 if it does not fit. */
static size_t smaps_entry(struct uvm *u, const struct vma *v, char *buf, size_t size)
{
	struct smaps_sums s = {0};
	size_t len = uvm_maps_line(u, v, NULL, buf, size);

	if (!len)
		return 0;
	smaps_vma(u, v, &s);
	put_kb(buf, size, &len, "Size:", v->end - v->start);
	put_kb(buf, size, &len, "KernelPageSize:", PAGE_SIZE);
	put_kb(buf, size, &len, "MMUPageSize:", PAGE_SIZE);
	put_sums(buf, size, &len, &s, false);
	appendk(buf, size, &len, "%-16s%8u\n", "THPeligible:", 0);
	put_vmflags(buf, size, &len, v);
	return len + 1 < size ? len : 0; /* appendk stops short of the end */
}

/* The sums of every vma, under one "[rollup]" line spanning them. */
static long smaps_rollup(struct uvm *u, char *buf, size_t size)
{
	struct smaps_sums s = {0};
	struct vma span = {0};
	struct vma *v;
	size_t len;

	if (list_empty(&u->vt->vmas))
		return 0;
	list_for_each_entry(v, &u->vt->vmas, node)
	{
		if (!span.end)
			span.start = v->start;
		span.end = v->end;
		smaps_vma(u, v, &s);
	}
	if (!(len = uvm_maps_line(u, &span, "[rollup]", buf, size)))
		return 0;
	put_sums(buf, size, &len, &s, true);
	return len + 1 < size ? (long)len : 0;
}

long uvm_format_smaps(struct uvm *u, bool rollup, char *buf, size_t size)
{
	size_t len = 0, n;
	struct vma *v;

	spin_lock(&u->lock);
	if (rollup) {
		len = smaps_rollup(u, buf, size);
	} else {
		list_for_each_entry(v, &u->vt->vmas, node)
		{
			if (!(n = smaps_entry(u, v, buf + len, size - len)))
				break; /* full: whole entries only */
			len += n;
		}
	}
	spin_unlock(&u->lock);
	return (long)len;
}
