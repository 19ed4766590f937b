/*
 * ELF64 loader (see elf.h).  Whole file pages are mapped from the file's
 * own frames (shared if read-only, copy-on-write if writable); partial
 * pages and bss get private frames filled through the kernel's direct map.
 * No page is ever user writable and executable at once: a W+X segment is
 * refused, and so are segments that share a page.
 *
 * An ET_DYN program without an interpreter (a static PIE; ld.so run as a
 * program) goes where an mmap of its size would, at the top of the mmap
 * area, as Linux places it, and relocates itself from the auxiliary
 * vector (AT_PHDR, AT_ENTRY point into the placed image).  One with an
 * interpreter goes at ELF_ET_DYN_BASE plus a random offset, and its
 * interpreter (proc/elf_interp.c) at the top of the mmap area.
 */
#include "proc/elf.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include <uapi/mman.h>
#include <uapi/errno.h>

#define EI_NIDENT 16

/*
 * Linux's ELF_ET_DYN_BASE on x86_64 (2/3 of the 47-bit space): where the
 * brk heap of an ET_DYN program without an interpreter starts, since the
 * program itself sits in the mmap area (Linux keeps the heap away from
 * the mappings it grows towards).  An ET_EXEC's heap starts above it.
 */
#define ELF_ET_DYN_BASE 0x555555554aaaUL

/* Linux's limit: a program header table of at most 64 KiB. */
#define MAX_PHNUM (65536 / sizeof(struct elf64_phdr))

/* As Linux's load_elf_binary: the magic, the type and the machine; the
 * class, byte order and versions are not looked at (Debian's true with
 * ELFCLASS32 in its e_ident runs on Linux). */
int elf_check_header(const struct elf64_ehdr *eh, uint64_t fsize)
{
	if (memcmp(eh->ident, ELF_MAGIC, 4) || (eh->type != ET_EXEC && eh->type != ET_DYN) ||
	    eh->machine != EM_X86_64 || eh->phentsize != sizeof(struct elf64_phdr) || !eh->phnum ||
	    eh->phnum > MAX_PHNUM)
		return -ENOEXEC;
	if (eh->phoff > fsize || (uint64_t)eh->phnum * eh->phentsize > fsize - eh->phoff)
		return -ENOEXEC;
	return 0;
}

/* The image stays below the least room the stack gets (uvm.h). */
#define ELF_IMAGE_TOP (USER_STACK_TOP - MMAP_GAP_MIN)

/* A loadable segment must lie in the image area and be internally sane. */
static int check_segment(const struct elf64_phdr *ph, uint64_t fsize)
{
	if ((ph->flags & PF_W) && (ph->flags & PF_X))
		return -ENOEXEC;
	if (ph->filesz > ph->memsz || ph->offset > fsize || ph->filesz > fsize - ph->offset)
		return -ENOEXEC;
	if (ph->vaddr < USER_IMAGE_MIN || ph->memsz > ELF_IMAGE_TOP ||
	    ph->vaddr > ELF_IMAGE_TOP - ph->memsz)
		return -ENOEXEC;
	if ((ph->vaddr & PAGE_MASK) != (ph->offset & PAGE_MASK))
		return -ENOEXEC;
	return 0;
}

static uint64_t segment_pte_flags(const struct elf64_phdr *ph)
{
	uint64_t f = PTE_USER;

	if (ph->flags & PF_W)
		f |= PTE_WRITE;
	if (!(ph->flags & PF_X))
		f |= PTE_NX;
	return f;
}

/*
 * Maps a page wholly inside the file part of a segment straight from the
 * file's frame: read-only segments share it, writable ones get it
 * copy-on-write.  Besides saving a copy, a program's text then sits at the
 * same physical address in every process (which QEMU's translation cache
 * rewards).  Returns 1 if it did, 0 if the page needs a private copy.
 */
static int map_file_page(struct inode *ip, struct vm_space *vm, uint64_t va, uint64_t off,
			 uint64_t flags)
{
	uint64_t pa = inode_page_ref(ip, off / PAGE_SIZE);
	int err;

	if (!pa)
		return 0; /* a hole: a private zeroed page */
	if (flags & PTE_WRITE)
		flags = (flags & ~PTE_WRITE) | PTE_COW;
	if ((err = map_page(vm, va, pa, flags)))
		frame_unref(pa);
	return err ? err : 1;
}

/* A private page: zeroed, then the file bytes that fall in it. */
static int map_private_page(struct inode *ip, struct vm_space *vm, const struct elf64_phdr *ph,
			    uint64_t va, uint64_t flags)
{
	uint64_t from = va > ph->vaddr ? va : ph->vaddr;
	uint64_t to = ph->vaddr + ph->filesz, pa;
	int err;

	if ((err = vm_map_anon(vm, va, PAGE_SIZE, flags)))
		return err;
	if (to > va + PAGE_SIZE)
		to = va + PAGE_SIZE;
	if (from >= to)
		return 0; /* all bss */
	translate(vm, from, &pa, NULL);
	return inode_read(ip, P2V(pa), to - from, ph->offset + (from - ph->vaddr)) ==
		       (long)(to - from)
		   ? 0
		   : -EIO;
}

static int load_segment(struct inode *ip, struct vm_space *vm, const struct elf64_phdr *ph)
{
	uint64_t start = PAGE_ALIGN_DOWN(ph->vaddr), end = PAGE_ALIGN_UP(ph->vaddr + ph->memsz);
	uint64_t file_end = ph->vaddr + ph->filesz, flags = segment_pte_flags(ph);

	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		/* vaddr and offset agree modulo the page size (checked). */
		uint64_t off = ph->offset - (ph->vaddr - va);
		int done = 0, err;
		/* Segments sharing a page would share its frame: refused. */
		if (translate(vm, va, NULL, NULL) == 0)
			return -ENOEXEC;
		if (va + PAGE_SIZE <= file_end)
			done = map_file_page(ip, vm, va, off, flags);
		if (done < 0)
			return done;
		if (!done && (err = map_private_page(ip, vm, ph, va, flags)))
			return err;
	}
	return 0;
}

/*
 * The segment's mappings, as Linux lists them: the file part (to the end
 * of its last file page) a private mapping of the file, the rest of the
 * bss anonymous.  0, -ENOEXEC (overlap) or -ENOMEM.
 */
static int segment_vmas(struct inode *ip, struct uvm *u, const struct elf64_phdr *ph)
{
	int prot = (ph->flags & PF_R ? PROT_READ : 0) | (ph->flags & PF_W ? PROT_WRITE : 0) |
		   (ph->flags & PF_X ? PROT_EXEC : 0);
	uint64_t start = PAGE_ALIGN_DOWN(ph->vaddr), end = PAGE_ALIGN_UP(ph->vaddr + ph->memsz);
	uint64_t file_end = ph->filesz ? PAGE_ALIGN_UP(ph->vaddr + ph->filesz) : start;
	struct vma file = {.start = start, .end = file_end, .prot = prot, .file = ip};
	struct vma bss = {.start = file_end, .end = end, .prot = prot};
	int err = 0;

	file.off = ph->offset - (ph->vaddr - start);
	if (file_end > start)
		err = uvm_add_vma(u, &file);
	if (!err && end > file_end)
		err = uvm_add_vma(u, &bss);
	return err == -EEXIST ? -ENOEXEC : err;
}

/* Records where the program headers land in memory (for AT_PHDR). */
static void note_phdr(struct elf_image *img, const struct elf64_ehdr *eh,
		      const struct elf64_phdr *ph)
{
	if (eh->phoff >= ph->offset && eh->phoff < ph->offset + ph->filesz)
		img->phdr_va = ph->vaddr + (eh->phoff - ph->offset);
}

/* Linux's maximum_alignment: the largest power-of-two p_align of the
 * loadable segments, at least a page. */
static uint64_t max_align(const struct elf_file *ef)
{
	uint64_t align = PAGE_SIZE;

	for (int i = 0; i < ef->eh.phnum; i++)
		if (ef->ph[i].type == PT_LOAD && ef->ph[i].align > align &&
		    !(ef->ph[i].align & (ef->ph[i].align - 1)) && ef->ph[i].align < USER_END / 4)
			align = ef->ph[i].align;
	return align;
}

/*
 * The load bias of ef: 0 for ET_EXEC; for ET_DYN, dyn_base aligned to its
 * segments' alignment (a PIE with an interpreter), or, dyn_base 0, the
 * gap an mmap of its size would take (a static PIE, an interpreter: the
 * top of the mmap area).  Segments are moved by the bias in place.
 */
static int place_segments(struct elf_file *ef, struct uvm *u, uint64_t dyn_base, uint64_t *bias)
{
	uint64_t low = USER_END, high = 0, at;

	for (int i = 0; i < ef->eh.phnum; i++) {
		struct elf64_phdr *ph = &ef->ph[i];
		if (ph->type != PT_LOAD)
			continue;
		if (ph->vaddr >= USER_END) /* also keeps vaddr + bias from wrapping */
			return -ENOEXEC;
		if (ph->vaddr < low)
			low = ph->vaddr;
		if (ph->memsz < USER_END && ph->vaddr + ph->memsz > high)
			high = ph->vaddr + ph->memsz;
	}
	*bias = 0;
	if (ef->eh.type != ET_DYN || high <= low)
		return 0;
	low = PAGE_ALIGN_DOWN(low);
	if (dyn_base) {
		at = dyn_base & ~(max_align(ef) - 1);
	} else {
		spin_lock(&u->lock);
		at = vma_place(u, PAGE_ALIGN_UP(high) - low, 0);
		spin_unlock(&u->lock);
		if (!at)
			return -ENOMEM;
	}
	*bias = at - low;
	for (int i = 0; i < ef->eh.phnum; i++)
		if (ef->ph[i].type == PT_LOAD)
			ef->ph[i].vaddr += *bias;
	return 0;
}

int elf_read_headers(struct inode *ip, struct elf_file *ef)
{
	size_t phsize;
	int err;

	ef->ip = ip;
	ef->ph = NULL;
	if (inode_read(ip, &ef->eh, sizeof(ef->eh), 0) != (long)sizeof(ef->eh))
		return -ENOEXEC;
	if ((err = elf_check_header(&ef->eh, inode_size(ip))))
		return err;
	phsize = (size_t)ef->eh.phnum * sizeof(*ef->ph);
	if (!(ef->ph = kmalloc(phsize)))
		return -ENOMEM;
	if (inode_read(ip, ef->ph, phsize, ef->eh.phoff) == (long)phsize)
		return 0;
	kfree(ef->ph);
	ef->ph = NULL;
	return -ENOEXEC;
}

int elf_map(struct elf_file *ef, struct uvm *u, uint64_t dyn_base, struct elf_image *img)
{
	uint64_t fsize = inode_size(ef->ip), bias;
	int err, nload = 0;

	img->phdr_va = img->end = 0;
	err = place_segments(ef, u, dyn_base, &bias);
	for (int i = 0; !err && i < ef->eh.phnum; i++) {
		struct elf64_phdr *ph = &ef->ph[i];
		if (ph->type != PT_LOAD)
			continue;
		if (!(err = check_segment(ph, fsize)))
			err = load_segment(ef->ip, u->space, ph);
		if (!err)
			err = segment_vmas(ef->ip, u, ph);
		note_phdr(img, &ef->eh, ph);
		if (ph->vaddr + ph->memsz > img->end)
			img->end = ph->vaddr + ph->memsz;
		nload++;
	}
	img->entry = ef->eh.entry + bias;
	img->base = bias;
	img->phnum = ef->eh.phnum;
	img->phentsize = ef->eh.phentsize;
	return !err && !nload ? -ENOEXEC : err;
}

/* Whether img's entry lies in its image. */
static bool entry_ok(const struct elf_image *img)
{
	return img->entry >= USER_IMAGE_MIN && img->entry < img->end;
}

/*
 * Linux's load_elf_binary: the interpreter is opened and checked first;
 * an ET_DYN program with one goes at ELF_ET_DYN_BASE plus a random
 * offset (its heap follows it), one without (a static PIE, ld.so run as
 * a program) where an mmap would go (its heap at ELF_ET_DYN_BASE); the
 * interpreter, an ET_DYN too, then goes where an mmap would.
 */
int elf_load(struct inode *ip, struct uvm *u, uint64_t pie_rnd, struct elf_image *img)
{
	struct elf_file ef, iv = {0};
	struct elf_image prog;
	int err = elf_read_headers(ip, &ef);

	memset(img, 0, sizeof(*img));
	if (!err)
		err = elf_open_interp(&ef, img, &iv);
	if (!err)
		err = elf_map(&ef, u, img->interp ? PAGE_ALIGN_DOWN(ELF_ET_DYN_BASE) + pie_rnd : 0,
			      &prog);
	if (!err && !img->interp && !entry_ok(&prog))
		err = -ENOEXEC;
	if (!err) {
		prog.brk = ef.eh.type == ET_DYN && !img->interp ? PAGE_ALIGN_UP(ELF_ET_DYN_BASE)
								: PAGE_ALIGN_UP(prog.end);
		prog.start = prog.entry;
		prog.base = 0;
		prog.interp = img->interp, prog.interp_path = img->interp_path;
		*img = prog;
	}
	if (!err && img->interp)
		err = elf_load_interp(&iv, u, img);
	kfree(ef.ph);
	kfree(iv.ph);
	if (img->interp) /* writers wait only while it is loaded, as Linux */
		inode_allow_write_access(img->interp);
	if (err && img->interp) {
		inode_put(img->interp);
		kfree(img->interp_path);
		img->interp = NULL, img->interp_path = NULL;
	}
	return err;
}
