/*
 * ELF64 loader (see elf.h).  Whole file pages are mapped from the file's
 * own frames (shared if read-only, copy-on-write if writable); partial
 * pages and bss get private frames filled through the kernel's direct map.
 * No page is ever user writable and executable at once: a W+X segment is
 * refused, and so are segments that share a page.
 *
 * ET_DYN images without an interpreter (static PIE: gcc -static-pie; a
 * loader run as a program) go where an mmap of their size would, at the
 * top of the mmap area, as Linux places them, and relocate themselves from the auxiliary vector (AT_PHDR,
 * AT_ENTRY point into the placed image).  There is no dynamic loader: a
 * program naming an interpreter (PT_INTERP) gets Linux's errors for a bad or
 * missing one (ENOEXEC, ENOENT, ...), and ENOEXEC when it exists.
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

static int check_header(const struct elf64_ehdr *eh, uint64_t fsize)
{
	static const uint8_t magic[] = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */, 1};

	if (memcmp(eh->ident, magic, sizeof(magic)) ||
	    (eh->type != ET_EXEC && eh->type != ET_DYN) || eh->machine != EM_X86_64 ||
	    eh->version != 1 || eh->phentsize != sizeof(struct elf64_phdr) || !eh->phnum ||
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

/*
 * The interpreter a PT_INTERP segment names, checked as Linux does before
 * it would load it: a path of 2..PATH_MAX bytes ending in its NUL
 * (ENOEXEC), read whole (EIO), then looked up as execve's own path is
 * (ENOENT, EACCES, ...).  None is ever loaded: one that exists is ENOEXEC.
 */
static int check_interp(struct inode *ip, const struct elf64_phdr *ph)
{
	struct inode *interp;
	char *path;
	int err;

	if (ph->filesz < 2 || ph->filesz > PATH_MAX)
		return -ENOEXEC;
	if (!(path = kmalloc(ph->filesz)))
		return -ENOMEM;
	err = inode_read(ip, path, ph->filesz, ph->offset) == (long)ph->filesz ? 0 : -EIO;
	if (!err && path[ph->filesz - 1])
		err = -ENOEXEC;
	if (!err && !(err = vfs_lookup_exec(NULL, path, 0, &interp, NULL))) {
		inode_put(interp);
		err = -ENOEXEC;
	}
	kfree(path);
	return err;
}

/*
 * What the headers ask before anything is mapped: an interpreter (refused,
 * see check_interp) and, for ET_DYN, the load bias that puts the image's
 * pages right below u's mmap base.  Segments are moved by the bias in
 * place.
 */
static int place_segments(struct inode *ip, struct uvm *u, const struct elf64_ehdr *eh,
			  struct elf64_phdr *ph, uint64_t *bias)
{
	uint64_t low = USER_END, high = 0;
	int err;

	for (int i = 0; i < eh->phnum; i++) {
		if (ph[i].type == PT_INTERP && (err = check_interp(ip, &ph[i])))
			return err;
		if (ph[i].type != PT_LOAD)
			continue;
		if (ph[i].vaddr >= USER_END) /* also keeps vaddr + bias from wrapping */
			return -ENOEXEC;
		if (ph[i].vaddr < low)
			low = ph[i].vaddr;
		if (ph[i].memsz < USER_END && ph[i].vaddr + ph[i].memsz > high)
			high = ph[i].vaddr + ph[i].memsz;
	}
	*bias = 0;
	if (eh->type == ET_DYN && high > low && PAGE_ALIGN_UP(high) - PAGE_ALIGN_DOWN(low) < u->mmap_base)
		*bias = u->mmap_base - (PAGE_ALIGN_UP(high) - PAGE_ALIGN_DOWN(low)) - PAGE_ALIGN_DOWN(low);
	for (int i = 0; i < eh->phnum; i++)
		if (ph[i].type == PT_LOAD)
			ph[i].vaddr += *bias;
	return 0;
}

int elf_load(struct inode *ip, struct uvm *u, struct elf_image *img)
{
	struct elf64_ehdr eh;
	struct elf64_phdr *ph;
	uint64_t fsize = inode_size(ip), bias = 0;
	size_t phsize;
	int err, nload = 0;

	if (inode_read(ip, &eh, sizeof(eh), 0) != (long)sizeof(eh))
		return -ENOEXEC;
	if ((err = check_header(&eh, fsize)))
		return err;
	phsize = (size_t)eh.phnum * sizeof(*ph);
	if (!(ph = kmalloc(phsize)))
		return -ENOMEM;
	err = inode_read(ip, ph, phsize, eh.phoff) == (long)phsize ? 0 : -ENOEXEC;
	memset(img, 0, sizeof(*img));
	if (!err)
		err = place_segments(ip, u, &eh, ph, &bias);
	for (int i = 0; !err && i < eh.phnum; i++) {
		if (ph[i].type != PT_LOAD)
			continue;
		if (!(err = check_segment(&ph[i], fsize)))
			err = load_segment(ip, u->space, &ph[i]);
		if (!err)
			err = segment_vmas(ip, u, &ph[i]);
		note_phdr(img, &eh, &ph[i]);
		if (ph[i].vaddr + ph[i].memsz > img->end)
			img->end = ph[i].vaddr + ph[i].memsz;
		nload++;
	}
	kfree(ph);
	img->entry = eh.entry + bias;
	img->brk = eh.type == ET_DYN ? PAGE_ALIGN_UP(ELF_ET_DYN_BASE) : PAGE_ALIGN_UP(img->end);
	if (!err && (!nload || img->entry < USER_IMAGE_MIN || img->entry >= img->end))
		err = -ENOEXEC;
	img->phnum = eh.phnum;
	img->phentsize = eh.phentsize;
	return err;
}
