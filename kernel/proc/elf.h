/*
 * Loading ELF64 programs into a fresh address space, as Linux's
 * binfmt_elf: static programs, static PIEs, and dynamically linked ones
 * with their interpreter (PT_INTERP: ld.so).  Everything in a file is
 * checked before it is trusted: a malformed image gives an errno and
 * leaves nothing mapped that the caller must undo beyond destroying the
 * space.
 */
#ifndef PROC_ELF_H
#define PROC_ELF_H

#include <stdbool.h>
#include <stdint.h>
#include <uapi/elf.h>

struct inode;
struct uvm;

/* e_ident's first 4 bytes: all of it that Linux looks at. */
#define ELF_MAGIC "\177ELF"

struct elf_image {
	uint64_t entry;	  /* the program's entry, load bias added (AT_ENTRY) */
	uint64_t start;	  /* the first instruction: the interpreter's entry, or entry */
	uint64_t base;	  /* the interpreter's load bias (AT_BASE), 0 without one */
	uint64_t phdr_va; /* where the program headers are mapped, 0 if not */
	uint16_t phnum;
	uint16_t phentsize;
	uint64_t end;  /* highest address of any of the program's segments */
	uint64_t brk;  /* where the heap starts, before randomisation */
	uint64_t vdso; /* where exec mapped the vDSO (AT_SYSINFO_EHDR) */
	/* The interpreter (referenced, the caller's to inode_put) and its
	 * path (kmalloc'd, the caller's), NULL for a static program. */
	struct inode *interp;
	char *interp_path;
	/* The error came where Linux has passed exec's point of no return
	 * (a bad interpreter past its ELF checks): the caller dies of
	 * SIGSEGV instead of seeing it. */
	bool fatal;
};

/* An ELF file's headers, read and checked (elf_read_headers). */
struct elf_file {
	struct inode *ip;
	struct elf64_ehdr eh;
	struct elf64_phdr *ph; /* eh.phnum of them, kmalloc'd */
};

/*
 * Maps program ip and its interpreter into u's space and mapping list.
 * pie_rnd: the random offset of an ET_DYN program with an interpreter
 * above ELF_ET_DYN_BASE.  0 or -errno (ENOEXEC, ENOENT, EACCES, ETXTBSY,
 * ELIBBAD, EIO, ENOMEM, ...); on error nothing in img is held.
 */
int elf_load(struct inode *ip, struct uvm *u, uint64_t pie_rnd, struct elf_image *img);

/* For elf.c and elf_interp.c. */
/* Whether eh is an x86_64 ELF64 program whose program headers lie in a
 * file of fsize bytes: 0 or -ENOEXEC. */
int elf_check_header(const struct elf64_ehdr *eh, uint64_t fsize);
int elf_read_headers(struct inode *ip, struct elf_file *ef);
/* Maps ef's segments, an ET_DYN one at dyn_base (page aligned; 0: where
 * an mmap of its size would go).  Fills entry, base (the bias), phdr_va,
 * phnum, phentsize and end of img. */
int elf_map(struct elf_file *ef, struct uvm *u, uint64_t dyn_base, struct elf_image *img);
/* The interpreter ef names (PT_INTERP), opened and checked as Linux's
 * load_elf_binary does before its point of no return, denied to writers:
 * 0 with img->interp and img->interp_path set (none: both NULL), and its
 * headers in *iv; or -errno. */
int elf_open_interp(struct elf_file *ef, struct elf_image *img, struct elf_file *iv);
/* Maps the interpreter opened by elf_open_interp: 0 or -errno, all of
 * them past Linux's point of no return (img->fatal). */
int elf_load_interp(struct elf_file *iv, struct uvm *u, struct elf_image *img);

#endif
