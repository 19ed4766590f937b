/*
 * The GDT with kernel and user segments and the TSS.  In long mode
 * segmentation is flat; the TSS matters for rsp0 (the stack used on entry
 * from user mode) and the IST stacks that catch double faults even when
 * the kernel stack is broken.
 */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "lib/string.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

/* One set per CPU, indexed by struct cpu.id, written by that CPU only. */
struct cpu_tables {
	uint64_t gdt[8];
	struct tss tss;
};
static struct cpu_tables tables[MAX_CPUS];
static uint8_t ist_stacks[MAX_CPUS][2][8192] __attribute__((aligned(16)));

#define SEG_CODE64 0x00209a0000000000UL /* present, exec/read, L */
#define SEG_DATA   0x0000920000000000UL /* present, read/write */
#define SEG_CODE32 0x00cf9a000000ffffUL
#define SEG_DPL3   0x0000600000000000UL

static void set_tss_descriptor(uint64_t *gdt, int idx, uint64_t base, uint32_t limit)
{
	gdt[idx] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
		   ((uint64_t)(limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
	gdt[idx + 1] = base >> 32;
}

void tss_set_kernel_stack(uint64_t rsp0)
{
	tables[this_cpu()->id].tss.rsp[0] = rsp0;
}

static void load_gdt(const uint64_t *gdt)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = {sizeof(tables[0].gdt) - 1, (uint64_t)gdt};

	/* Reload CS with a far return, the data segments directly, then TR. */
	asm volatile("lgdt %0\n\t"
		     "pushq %1\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movw %w2, %%ax\n\t"
		     "movw %%ax, %%ds\n\t"
		     "movw %%ax, %%es\n\t"
		     "movw %%ax, %%ss\n\t"
		     "ltr %w3"
		     :
		     : "m"(ptr), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
		     : "rax", "memory");
}

void gdt_init(void)
{
	int id = this_cpu()->id;
	uint64_t *gdt = tables[id].gdt;
	struct tss *tss = &tables[id].tss;

	gdt[0] = 0;
	gdt[KERNEL_CS >> 3] = SEG_CODE64;
	gdt[KERNEL_DS >> 3] = SEG_DATA;
	gdt[USER_CS32 >> 3] = SEG_CODE32 | SEG_DPL3;
	gdt[USER_DS >> 3] = SEG_DATA | SEG_DPL3;
	gdt[USER_CS >> 3] = SEG_CODE64 | SEG_DPL3;
	memset(tss, 0, sizeof(*tss));
	tss->iomap_base = sizeof(*tss); /* no I/O bitmap: ring 3 gets no ports */
	tss->ist[IST_DOUBLE_FAULT - 1] = (uint64_t)ist_stacks[id][0] + sizeof(ist_stacks[id][0]);
	tss->ist[IST_NMI - 1] = (uint64_t)ist_stacks[id][1] + sizeof(ist_stacks[id][1]);
	set_tss_descriptor(gdt, TSS_SEL >> 3, (uint64_t)tss, sizeof(*tss) - 1);
	load_gdt(gdt);
}
