/*
 * Loading static ELF64 executables into a fresh address space.  Everything
 * in the file is checked before it is trusted: a malformed image gives
 * -ENOEXEC and leaves nothing mapped that the caller must undo beyond
 * destroying the space.
 */
#ifndef PROC_ELF_H
#define PROC_ELF_H

#include <stdint.h>
#include <uapi/elf.h>

struct inode;
struct uvm;

struct elf_image {
	uint64_t entry;
	uint64_t phdr_va; /* where the program headers are mapped, 0 if not */
	uint16_t phnum;
	uint16_t phentsize;
	uint64_t end; /* highest address of any segment */
	uint64_t brk; /* where the heap starts, before randomisation */
};

/* Maps the PT_LOAD segments of ip into u's space and mapping list (an
 * ET_DYN program below u's mmap base).  0, -ENOEXEC, -ENOMEM or -EIO. */
int elf_load(struct inode *ip, struct uvm *u, struct elf_image *img);

#endif
