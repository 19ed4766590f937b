/*
 * Thin wrappers around x86_64 instructions the kernel needs: control
 * registers, MSRs, CPUID, port I/O, interrupt flag.  All static inline.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdint.h>

#define RFLAGS_IF (1UL << 9)
#define RFLAGS_AC (1UL << 18)

#define MSR_EFER	   0xc0000080
#define MSR_STAR	   0xc0000081
#define MSR_LSTAR	   0xc0000082
#define MSR_FMASK	   0xc0000084
#define MSR_FS_BASE	   0xc0000100
#define MSR_GS_BASE	   0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define EFER_SCE	   (1UL << 0)
#define EFER_NXE	   (1UL << 11)

#define CR0_WP	 (1UL << 16)
#define CR4_PGE	 (1UL << 7)
#define CR4_SMEP (1UL << 20)
#define CR4_SMAP (1UL << 21)

static inline uint64_t read_cr0(void)
{
	uint64_t v;
	asm volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	asm volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;
	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(uint64_t v)
{
	asm volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void invlpg(uint64_t va)
{
	asm volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c,
			 uint32_t *d)
{
	asm volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;
	asm volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

static inline void cpu_relax(void)
{
	asm volatile("pause");
}

static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

#endif
