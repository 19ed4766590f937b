/*
 * The vDSO (vdso/, docs/vdso.md) in every process: exec maps [vvar], the
 * kernel's clock page (arch/x86_64/vvar.h), read-only, and right above it
 * [vdso], the image built with the kernel, read+exec; AT_SYSINFO_EHDR
 * points at the image.  Their pages are mapped on first touch, as Linux's
 * special mappings are (a program that never reads the vDSO pays no page
 * table for it), from frames the kernel holds for good: a process's
 * reference (a fault, fork's copy) is an ordinary one, and a write
 * (mprotect lets [vdso] be made writable, as Linux's VM_MAYWRITE) copies
 * the page.  As Linux's special mappings: neither may be split (EINVAL)
 * or grown (EFAULT), [vvar] never made writable or executable (EACCES);
 * both may be moved whole and unmapped.  Placed as Linux 6.x places
 * them: where an mmap of their size goes, after the interpreter.  A
 * process in a time namespace of its own maps another [vvar], whose
 * clocks all fall back to the system calls (Linux maps a namespace page
 * the vDSO reads the offsets from; here the calls add them).
 */
#include "mm/vdso.h"
#include "arch/x86_64/vclock.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/paging.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include <uapi/mman.h>

#define VDSO_MAX_PAGES 4

/* vdso/blob.S: the image as the linker made it. */
extern const char vdso_image[], vdso_image_end[];

/* The image's pages, filled at boot and never freed (each holds the
 * kernel's reference; processes take their own). */
static uint64_t vdso_pages[VDSO_MAX_PAGES];
static int vdso_npages;
/* [vvar] of a process in a time namespace but the initial one: a page
 * every clock of which says "ask the system call" (VKIND_SYSCALL), which
 * adds the namespace's offsets; the other fields as the clock page's.
 * Filled at boot, never written again, never freed. */
static uint64_t timens_vvar;

static void timens_vvar_init(void)
{
	struct vvar_data *d;

	if (!(timens_vvar = frame_zalloc()))
		panic("vdso: no frame for the time-namespace page");
	d = P2V(timens_vvar);
	*d = *(const struct vvar_data *)P2V(vvar_frame());
	for (int clk = 0; clk < VVAR_CLOCKS; clk++)
		d->kind[clk] = VKIND_SYSCALL;
	memset(d->base, 0, sizeof(d->base));
	d->seq = 0;
}

void vdso_init(void)
{
	size_t len = (size_t)(vdso_image_end - vdso_image);

	vdso_npages = (int)(PAGE_ALIGN_UP(len) / PAGE_SIZE);
	if (!vdso_npages || vdso_npages > VDSO_MAX_PAGES)
		panic("vdso: an image of %lu bytes", len);
	for (int i = 0; i < vdso_npages; i++) {
		size_t n = len - (size_t)i * PAGE_SIZE;
		if (!(vdso_pages[i] = frame_zalloc()))
			panic("vdso: no frame for the image");
		memcpy(P2V(vdso_pages[i]), vdso_image + (size_t)i * PAGE_SIZE,
		       n < PAGE_SIZE ? n : PAGE_SIZE);
	}
	timens_vvar_init();
}

uint64_t vdso_frame(const struct uvm *u, const struct vma *v, uint64_t va)
{
	uint64_t page = (v->off + (va - v->start)) / PAGE_SIZE, pa;

	if (v->flags & VMA_VVAR)
		pa = page ? 0 : u->timens ? timens_vvar : vvar_frame();
	else
		pa = page < (uint64_t)vdso_npages ? vdso_pages[page] : 0;
	if (pa)
		frame_ref(pa);
	return pa;
}

void vdso_set_timens(struct uvm *u, bool timens)
{
	struct vma *v;

	spin_lock(&u->lock);
	if (u->timens != timens) {
		u->timens = timens;
		for (v = vma_find(u, 0); v; v = vma_next(u, v))
			if (v->flags & VMA_VVAR)
				vm_unmap_range(u->space, v->start, v->end - v->start);
	}
	spin_unlock(&u->lock);
}

uint64_t vdso_map(struct uvm *u)
{
	uint64_t len = (1 + (uint64_t)vdso_npages) * PAGE_SIZE, at;
	struct vma vvar = {.prot = PROT_READ, .flags = VMA_VVAR};
	struct vma vdso = {.prot = PROT_READ | PROT_EXEC, .flags = VMA_VDSO};

	spin_lock(&u->lock);
	at = vma_place(u, len, 0);
	spin_unlock(&u->lock);
	if (!at)
		return 0;
	vvar.start = at, vvar.end = at + PAGE_SIZE;
	vdso.start = at + PAGE_SIZE, vdso.end = at + len;
	/* No page is mapped yet: a program that never reads the vDSO (and
	 * a fork of it) pays no page table for it. */
	if (uvm_add_vma(u, &vvar) || uvm_add_vma(u, &vdso))
		return 0;
	return vdso.start;
}
