/*
 * Paging: builds the kernel's final 4-level tables and maps, unmaps,
 * moves and translates pages in them, and switches CPUs between spaces (a
 * space's life is vm_space.c's, write protection pte_protect.c's).  Every
 * table is reached through the direct map (P2V).
 */
#include "mm/paging.h"
#include "mm/paging_internal.h"

#include <stdbool.h>

#include "arch/x86_64/bootinfo.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smp.h"
#include "lib/printk.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/tlb.h"
#include "uapi/errno.h"

#define CPUID_EXT_NX (1u << 20) /* cpuid 0x80000001 edx */

/* The kernel's space; its lock also guards the kernel half of every space. */
static struct vm_space kernel_space = {.lock = SPINLOCK_INIT("kernel_vm")};
/* PTE bits this CPU accepts: PTE_NX is dropped if it has no NX. */
static uint64_t pte_supported = ~0UL;

static unsigned index_at(uint64_t va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) % TABLE_ENTRIES;
}

/*
 * Panics unless [va, va+len) lies in as's own half: the kernel's for the
 * kernel space, below USER_END for a user one.  The walks index each level
 * with the address's bits 12..47 alone, so a user range running past
 * USER_END would reach the kernel half's shared tables (an unchecked
 * mremap length once unmapped the kernel's text from user space).
 */
void pt_check_range(struct vm_space *as, uint64_t va, uint64_t len)
{
	bool ok = as == &kernel_space ? in_kernel_half(va) && va + len >= va
				      : va < USER_END && len <= USER_END - va;
	if (!ok)
		panic("vm: [%lx, +%lx) is outside its address space's half", va, len);
}

static struct spinlock *lock_for(struct vm_space *as, uint64_t va)
{
	return in_kernel_half(va) ? &kernel_space.lock : &as->lock;
}

/* A leaf entry of va came (+1) or went (-1); the kernel half is not
 * counted.  Caller holds the lock. */
static void count_rss(struct vm_space *as, uint64_t va, long delta)
{
	if (in_kernel_half(va))
		return;
	size_t rss = as->rss + delta;
	__atomic_store_n(&as->rss, rss, __ATOMIC_RELAXED);
	if (rss > as->hiwater_rss)
		__atomic_store_n(&as->hiwater_rss, rss, __ATOMIC_RELAXED);
}

/*
 * Finds the entry mapping va at level leaf (1: 4 KiB page, 2: 2 MiB page),
 * allocating missing tables if create is set.  Returns 0, -EFAULT (missing,
 * !create), -EEXIST (a huge page covers va) or -ENOMEM.  Caller holds the lock.
 */
int pt_walk(uint64_t pml4, uint64_t va, int leaf, bool create, uint64_t **out)
{
	uint64_t up = PTE_PRESENT | PTE_WRITE | (in_kernel_half(va) ? 0 : PTE_USER);
	uint64_t *t = table(pml4);
	for (int level = 4; level > leaf; level--) {
		uint64_t *e = &t[index_at(va, level)];
		if (!(*e & PTE_PRESENT)) {
			/* Kernel PML4 entries are made once, at init, and shared. */
			kassert(level < 4 || !in_kernel_half(va));
			uint64_t pa = create ? frame_zalloc_kind(FRAME_TABLE) : 0;
			if (!pa)
				return create ? -ENOMEM : -EFAULT;
			*e = pa | up;
		} else if (*e & PTE_HUGE) {
			return -EEXIST;
		}
		t = table(*e);
	}
	*out = &t[index_at(va, leaf)];
	return 0;
}

uint64_t pt_make_entry(uint64_t va, uint64_t pa, uint64_t flags)
{
	flags &= PTE_FLAGS & pte_supported;
	if (!(flags & PTE_PROTNONE))
		flags |= PTE_PRESENT;
	if (in_kernel_half(va))
		flags |= PTE_GLOBAL;
	return pa | flags;
}

int map_page(struct vm_space *as, uint64_t va, uint64_t pa, uint64_t flags)
{
	if (((va | pa) & PAGE_MASK) || !canonical(va) || (pa & ~PTE_ADDR))
		return -EINVAL;
	if (in_kernel_half(va) && (flags & PTE_USER))
		return -EINVAL;
	struct spinlock *lock = lock_for(as, va);
	uint64_t *e;
	spin_lock(lock);
	int err = pt_walk(as->pml4, va, 1, true, &e);
	if (!err && pte_mapped(*e))
		err = -EEXIST;
	if (!err) { /* was not present, so not in any TLB */
		*e = pt_make_entry(va, pa, flags & ~PTE_HUGE);
		count_rss(as, va, 1);
	}
	spin_unlock(lock);
	return err;
}

/* Clears the entry of va, if mapped, into g.  Caller holds the lock. */
static void unmap_locked(struct tlb_gather *g, uint64_t va)
{
	uint64_t *e;

	if (!pt_walk(g->range.as->pml4, va, 1, false, &e) && pte_mapped(*e)) {
		uint64_t pa = *e & PTE_ADDR;
		*e = 0;
		count_rss(g->range.as, va, -1);
		gather_frame(g, va, pa);
	}
}

uint64_t unmap_page(struct vm_space *as, uint64_t va)
{
	if ((va & PAGE_MASK) || !canonical(va))
		return 0;
	struct spinlock *lock = lock_for(as, va);
	struct tlb_gather g;
	uint64_t *e, pa = 0;
	gather_init(&g, as);
	spin_lock(lock);
	if (!pt_walk(as->pml4, va, 1, false, &e) && pte_mapped(*e)) {
		pa = *e & PTE_ADDR;
		*e = 0;
		count_rss(as, va, -1);
		gather_page(&g, va);
	}
	spin_unlock(lock);
	gather_flush(&g); /* before the caller may free pa */
	return pa;
}

void vm_print_walk(uint64_t pml4, uint64_t va)
{
	static const char *const names[] = {"", "PTE", "PDE", "PDPTE", "PML4E"};
	uint64_t pa = pml4 & PTE_ADDR;

	for (int level = 4; level >= 1; level--) {
		uint64_t e = table(pa)[index_at(va, level)];

		printk("  %-5s %016lx (in table %lx: refs %u%s)\n", names[level], e, pa,
		       frame_refcount(pa), frame_is_kind(pa, FRAME_TABLE) ? ", a page table" : "");
		if (!(e & PTE_PRESENT) || level == 1 || (e & PTE_HUGE))
			break;
		pa = e & PTE_ADDR;
	}
}

/* The leaf entry of va (0 if not present) and its level in *level, a
 * huge page's above 1.  Caller holds the lock. */
static inline __attribute__((always_inline)) uint64_t lookup_locked(struct vm_space *as,
								    uint64_t va, int *level)
{
	uint64_t *t = table(as->pml4), e = 0;

	for (*level = 4; *level >= 1; --*level) {
		e = t[index_at(va, *level)];
		if (!(e & PTE_PRESENT) || *level == 1 || (*level <= 3 && (e & PTE_HUGE)))
			break;
		t = table(e);
	}
	return e & PTE_PRESENT ? e : 0;
}

/* The physical address of va in the present leaf entry e at level. */
static uint64_t entry_pa(uint64_t e, int level, uint64_t va)
{
	uint64_t span = 1UL << (PAGE_SHIFT + 9 * (level - 1));

	return (e & PTE_ADDR & ~(span - 1)) | (va & (span - 1));
}

int translate(struct vm_space *as, uint64_t va, uint64_t *pa, uint64_t *flags)
{
	if (!canonical(va))
		return -EFAULT;
	struct spinlock *lock = lock_for(as, va);
	int level;
	spin_lock(lock);
	uint64_t e = lookup_locked(as, va, &level);
	spin_unlock(lock);
	if (!e)
		return -EFAULT;
	if (pa)
		*pa = entry_pa(e, level, va);
	if (flags)
		*flags = e & PTE_FLAGS;
	return 0;
}

uint32_t *vm_user_word_lock(struct vm_space *as, uint64_t va, bool write)
{
	uint64_t need = PTE_USER | (write ? PTE_WRITE : 0), e;
	int level;

	if (va % sizeof(uint32_t) || va >= USER_END)
		return NULL;
	spin_lock(&as->lock);
	if ((e = lookup_locked(as, va, &level)) && (e & need) == need)
		return P2V(entry_pa(e, level, va));
	spin_unlock(&as->lock);
	return NULL;
}

static bool table_empty(const uint64_t *t)
{
	for (int i = 0; i < TABLE_ENTRIES; i++)
		if (t[i])
			return false;
	return true;
}

/* The next address after va whose level-leaf entry may exist: past the whole
 * region of a table missing above it, else the next level-leaf region.  So
 * unmapping a huge range costs what is mapped in it, not its size (a 1 TiB
 * munmap once held the CPU for minutes).  Caller holds the lock. */
uint64_t pt_next_candidate(struct vm_space *as, uint64_t va, int leaf)
{
	uint64_t *t = table(as->pml4);
	int level = 4;
	for (; level > leaf; level--) {
		uint64_t e = t[index_at(va, level)];
		if (!(e & PTE_PRESENT) || (e & PTE_HUGE))
			break;
		t = table(e);
	}
	uint64_t span = 1UL << (PAGE_SHIFT + 9 * (level - 1));
	return (va & ~(span - 1)) + span;
}

/* Frees the PTs, then PDs, left empty under [va, va+len), so unmapping gives
 * back every frame mapping took.  PDPTs stay: the kernel half's are shared,
 * the user half's go with the space.  Clearing the entry and an invlpg also
 * drop the paging-structure caches (Intel SDM 4.10.4.1). */
static void prune_tables(struct tlb_gather *g, uint64_t va, uint64_t len)
{
	struct vm_space *as = g->range.as;
	struct spinlock *lock = lock_for(as, va);
	spin_lock(lock);
	for (int level = 2; level <= 3; level++) {
		uint64_t first = va & ~((1UL << (PAGE_SHIFT + 9 * (level - 1))) - 1);
		/* a - first, not a: the step after the last region may wrap to 0. */
		for (uint64_t a = first; a - first <= va + len - 1 - first;
		     a = pt_next_candidate(as, a, level)) {
			uint64_t *e;
			if (pt_walk(as->pml4, a, level, false, &e) || !(*e & PTE_PRESENT) ||
			    (*e & PTE_HUGE) || !table_empty(table(*e)))
				continue;
			uint64_t pa = *e & PTE_ADDR;
			*e = 0;
			/* unlinked: a plain frame waiting for the flush */
			frame_set_kind(pa, FRAME_TABLE, FRAME_PLAIN);
			gather_frame(g, a, pa);
		}
	}
	spin_unlock(lock);
}

/* The lock is taken page by page: interrupts stay off briefly however
 * large the ranges.  One shootdown for them all (per GATHER_FRAMES). */
void vm_unmap_ranges(struct vm_space *as, const struct vm_extent *r, int n)
{
	struct tlb_gather g;
	gather_init(&g, as);
	for (int i = 0; i < n; i++) {
		uint64_t va = r[i].va, len = r[i].len;
		struct spinlock *lock = lock_for(as, va);
		if (!len)
			continue;
		pt_check_range(as, va, len);
		for (uint64_t a = va, next; a - va < len; a = next) {
			spin_lock(lock);
			unmap_locked(&g, a);
			next = pt_next_candidate(as, a, 1);
			spin_unlock(lock);
		}
		prune_tables(&g, va, len);
	}
	gather_flush(&g);
}

void vm_unmap_range(struct vm_space *as, uint64_t va, uint64_t len)
{
	vm_unmap_ranges(as, &(struct vm_extent){.va = va, .len = len}, 1);
}

int vm_map_anon(struct vm_space *as, uint64_t va, uint64_t len, uint64_t flags)
{
	if ((va | len) & PAGE_MASK)
		return -EINVAL;
	/* More than is free fails at once, not after zeroing every free frame. */
	if (len / PAGE_SIZE > frame_free_count())
		return -ENOMEM;
	for (uint64_t off = 0; off < len; off += PAGE_SIZE) {
		uint64_t pa = frame_zalloc();
		int err = pa ? map_page(as, va + off, pa, flags) : -ENOMEM;
		if (err) {
			if (pa)
				frame_unref(pa);
			vm_unmap_range(as, va, off);
			return err;
		}
	}
	return 0;
}

struct vm_space *vm_kernel(void)
{
	return &kernel_space;
}

void vm_switch(struct vm_space *as)
{
	struct cpu *c = this_cpu();
	struct vm_space *old = c->vm ? c->vm : &kernel_space;
	uint32_t bit = 1u << c->id;

	if (old == as)
		return;
	/* In the mask before CR3 is written: see struct tlb_gather.  With one
	 * CPU nobody reads the masks (other_cpus). */
	bool smp = smp_cpus_online > 1;
	if (smp && as != &kernel_space)
		__atomic_or_fetch(&as->cpus, bit, __ATOMIC_SEQ_CST);
	write_cr3(as->pml4);
	if (smp && old != &kernel_space)
		__atomic_and_fetch(&old->cpus, ~bit, __ATOMIC_RELEASE);
	c->vm = as == &kernel_space ? NULL : as;
}

bool vm_page_mapped(struct vm_space *as, uint64_t va)
{
	uint64_t *e;
	spin_lock(&as->lock);
	bool mapped = !pt_walk(as->pml4, PAGE_ALIGN_DOWN(va), 1, false, &e) && pte_mapped(*e);
	spin_unlock(&as->lock);
	return mapped;
}

uint64_t vm_next_mapped(struct vm_space *as, uint64_t va, uint64_t end)
{
	uint64_t *e, found = end, next;

	spin_lock(&as->lock);
	for (; va < end; va = next) {
		if (!pt_walk(as->pml4, va, 1, false, &e) && pte_mapped(*e)) {
			found = va;
			break;
		}
		if ((next = pt_next_candidate(as, va, 1)) <= va)
			break; /* past the top of the space */
	}
	spin_unlock(&as->lock);
	return found;
}

void vm_walk_mapped(struct vm_space *as, uint64_t va, uint64_t end,
		    void (*fn)(void *arg, uint64_t va, uint64_t pte), void *arg)
{
	uint64_t *e, next;

	spin_lock(&as->lock);
	for (; va < end; va = next) {
		if (!pt_walk(as->pml4, va, 1, false, &e) && pte_mapped(*e)) {
			fn(arg, va, *e);
			next = va + PAGE_SIZE;
		} else if ((next = pt_next_candidate(as, va, 1)) <= va) {
			break; /* past the top of the space */
		}
	}
	spin_unlock(&as->lock);
}

/* Moves the entry at from (mapped) to the unmapped to: 0 or -ENOMEM. */
static int move_entry(struct tlb_gather *g, uint64_t from, uint64_t to)
{
	uint64_t *src, *dst, pml4 = g->range.as->pml4;
	int err = pt_walk(pml4, to, 1, true, &dst);
	if (err)
		return err;
	pt_walk(pml4, from, 1, false, &src);
	*dst = *src; /* to was not mapped: not in any TLB */
	*src = 0;
	gather_page(g, from);
	return 0;
}

int vm_move_range(struct vm_space *as, uint64_t from, uint64_t to, uint64_t len)
{
	struct tlb_gather g;
	uint64_t *e, off = 0;
	int err = 0;
	pt_check_range(as, from, len);
	pt_check_range(as, to, len);
	gather_init(&g, as);
	spin_lock(&as->lock);
	for (uint64_t next; !err && off < len; off = next) {
		next = pt_next_candidate(as, from + off, 1) - from;
		if (!pt_walk(as->pml4, from + off, 1, false, &e) && pte_mapped(*e))
			err = move_entry(&g, from + off, to + off);
	}
	/* Back out: the tables at from are still there, so this cannot fail. */
	for (uint64_t back = 0; err && back < off; back += PAGE_SIZE)
		if (!pt_walk(as->pml4, to + back, 1, false, &e) && pte_mapped(*e))
			move_entry(&g, to + back, from + back);
	/* Under the lock: no thread writes through the old address after the
	 * new one is visible. */
	gather_flush(&g);
	spin_unlock(&as->lock);
	if (!err)
		prune_tables(&g, from, len);
	gather_flush(&g);
	return err;
}

/* Maps [start, end) of the kernel image, 4 KiB pages, with flags. */
static void map_image_section(const char *start, const char *end, uint64_t flags)
{
	for (uint64_t va = (uint64_t)start; va < (uint64_t)end; va += PAGE_SIZE)
		if (map_page(&kernel_space, va, KIMG_V2P(va), flags))
			panic("paging_init: cannot map kernel image at 0x%lx", va);
}

/* The direct map: 2 MiB pages over [0, top). */
static void map_direct(uint64_t top)
{
	uint64_t *e;
	for (uint64_t pa = 0; pa < top; pa += HUGE_SIZE) {
		if (pt_walk(kernel_space.pml4, PHYS_MAP_BASE + pa, 2, true, &e))
			panic("paging_init: out of memory for the direct map");
		*e = pt_make_entry(PHYS_MAP_BASE + pa, pa, PTE_HUGE | PTE_WRITE | PTE_NX);
	}
}

/* End of the direct map: all RAM, and at least the low 4 GiB for MMIO. */
static uint64_t direct_map_top(void)
{
	uint64_t top = (boot_info.phys_top + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	return top > (4UL << 30) ? top : 4UL << 30;
}

/* NX (else PTE_NX is dropped from every entry) and global pages. */
static void enable_cpu_features(void)
{
	uint32_t a, b, c, d = 0;
	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a >= 0x80000001)
		cpuid(0x80000001, 0, &a, &b, &c, &d);
	else
		d = 0;
	if (d & CPUID_EXT_NX)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	else
		pte_supported = ~PTE_NX;
	write_cr4(read_cr4() | CR4_PGE);
	kassert(read_cr0() & CR0_WP); /* boot.asm sets it; COW depends on it */
}

void paging_init(void)
{
	enable_cpu_features();
	kernel_space.pml4 = frame_zalloc_kind(FRAME_TABLE);
	kassert(kernel_space.pml4);
	uint64_t *pml4 = table(kernel_space.pml4);
	/* Every kernel-half PDPT now, so spaces copied later see all kernel
	 * mappings ever made. */
	for (int i = KERNEL_PML4_LO; i < TABLE_ENTRIES; i++) {
		uint64_t pdpt = frame_zalloc_kind(FRAME_TABLE);
		kassert(pdpt);
		pml4[i] = pdpt | PTE_PRESENT | PTE_WRITE;
	}
	uint64_t top = direct_map_top();
	map_direct(top);
	map_image_section(_text_start, _text_end, 0);
	map_image_section(_rodata_start, _rodata_end, PTE_NX);
	map_image_section(_data_start, _kernel_end, PTE_WRITE | PTE_NX);
	write_cr3(kernel_space.pml4);
	printk_info("mm: kernel page tables at 0x%lx, direct map of %lu MiB%s\n", kernel_space.pml4,
		    top >> 20, pte_supported & PTE_NX ? ", NX" : ", no NX");
}
