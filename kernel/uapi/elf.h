/*
 * The parts of the ELF64 format execve reads (System V gABI, x86_64
 * psABI): the file header, program headers and the values checked in
 * them, and what a core file adds (ET_CORE, PT_NOTE, notes).  Shared by the
 * kernel's loader (proc/elf.c, proc/fault_report.c), its core dumps
 * (proc/coredump_elf.c) and the tests that build images by hand
 * (tests/newlib/exec_bad_elf.c).
 */
#ifndef UAPI_ELF_H
#define UAPI_ELF_H

#include <stdint.h>

#define ET_EXEC	  2
#define ET_DYN	  3
#define ET_CORE	  4
#define EM_X86_64 62
#define PT_LOAD	  1
#define PT_INTERP 3
#define PT_NOTE	  4
#define PF_X	  1
#define PF_W	  2
#define PF_R	  4

struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/* A note's header, then its name and descriptor, each padded to 4 bytes. */
struct elf64_note {
	uint32_t namesz, descsz, type;
};

#endif
