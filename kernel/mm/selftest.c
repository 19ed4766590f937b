/*
 * Self-tests of the memory manager, run by the command-line word `test`:
 * frame allocator, paging and address spaces, heap.  Each ends by checking
 * that free frames and heap bytes came back to where they started.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/bootinfo.h"
#include "arch/x86_64/extable.h"
#include "arch/x86_64/hardening.h"
#include "lib/backtrace.h"
#include "lib/ktest.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/heaptrace.h"
#include "mm/layout.h"
#include "mm/mm.h"
#include "mm/paging.h"
#include "uapi/errno.h"

#define FRAME_TAG 0x7a67a67a67a67a67UL
#define USER_VA	  0x400000UL

/* Every free frame, chained through its first word; its second word holds
 * its own address ^ FRAME_TAG so a frame handed out twice shows. */
struct grab {
	uint64_t head;
	size_t count;
};

static struct grab grab_all_frames(void)
{
	struct grab g = {0, 0};
	uint64_t pa;
	while ((pa = frame_alloc())) {
		uint64_t *w = P2V(pa);
		w[0] = g.head;
		w[1] = pa ^ FRAME_TAG;
		g.head = pa;
		g.count++;
	}
	return g;
}

static void release_frames(struct grab *g)
{
	while (g->head) {
		uint64_t next = *(uint64_t *)P2V(g->head);
		frame_unref(g->head);
		g->head = next;
	}
}

static bool overlaps(uint64_t pa, uint64_t base, uint64_t end)
{
	return pa < end && base < pa + PAGE_SIZE;
}

/* True if the allocator must never have handed out the frame at pa. */
static bool frame_forbidden(uint64_t pa)
{
	if (pa < 0x100000 || overlaps(pa, (uint64_t)_kernel_phys_start, (uint64_t)_kernel_phys_end))
		return true;
	for (int i = 0; i < boot_info.nreserved; i++) {
		const struct mem_range *r = &boot_info.reserved[i];
		if (overlaps(pa, r->base, r->base + r->len))
			return true;
	}
	for (int i = 0; i < boot_info.nusable; i++) {
		const struct mem_range *r = &boot_info.usable[i];
		if (pa >= r->base && pa + PAGE_SIZE <= r->base + r->len)
			return false;
	}
	return true;
}

static void frame_selftest(void)
{
	size_t before = frame_free_count();
	struct grab g = grab_all_frames();
	KTEST_OK(g.count == before && frame_free_count() == 0,
		 "frames: allocated all %zu free frames (%zu expected)", g.count, before);
	KTEST_OK(frame_alloc() == 0 && frame_zalloc() == 0,
		 "frames: allocation returns 0 when memory is exhausted");
	size_t walked = 0, forbidden = 0, twice = 0;
	for (uint64_t pa = g.head; pa && walked <= g.count; walked++) {
		uint64_t *w = P2V(pa);
		forbidden += frame_forbidden(pa);
		twice += w[1] != (pa ^ FRAME_TAG);
		pa = w[0];
	}
	KTEST_OK(walked == g.count && twice == 0, "frames: each of the %zu frames handed out once",
		 walked);
	KTEST_OK(forbidden == 0,
		 "frames: none below 1 MiB, in the kernel, reserved or outside RAM (%zu bad)",
		 forbidden);
	release_frames(&g);
	KTEST_OK(frame_free_count() == before, "frames: all %zu counted back", before);

	uint64_t pa = frame_alloc();
	frame_ref(pa);
	bool two = frame_refcount(pa) == 2;
	frame_unref(pa);
	bool kept = frame_refcount(pa) == 1 && frame_free_count() == before - 1;
	frame_unref(pa);
	KTEST_OK(two && kept && frame_refcount(pa) == 0 && frame_free_count() == before,
		 "frames: reference counts share a frame and free it at zero");
}

static const uint64_t rodata_word = 0x0123456789abcdefUL;
static uint64_t data_word;

/* The kernel mapping of va has every bit of set and none of clear. */
static bool mapped_with(const void *va, uint64_t set, uint64_t clear)
{
	uint64_t flags;
	return translate(vm_kernel(), (uint64_t)va, NULL, &flags) == 0 && (flags & set) == set &&
	       !(flags & clear);
}

static void kernel_map_selftest(void)
{
	uint64_t text_word;
	KTEST_OK(mapped_with(kernel_map_selftest, 0, PTE_WRITE | PTE_NX) &&
		     mapped_with(&rodata_word, PTE_NX, PTE_WRITE) &&
		     mapped_with(&data_word, PTE_WRITE | PTE_NX, 0) &&
		     mapped_with(P2V(0x200000), PTE_WRITE | PTE_NX, 0),
		 "paging: text R+X, rodata R+NX, data RW+NX, direct map RW+NX");
	KTEST_OK(probe_read_u64((void *)kernel_map_selftest, &text_word) == 0 &&
		     probe_write_u64((void *)kernel_map_selftest, text_word) == -EFAULT &&
		     probe_write_u64((void *)&rodata_word, 0) == -EFAULT,
		 "paging: writes to text and rodata fault");
	KTEST_OK(probe_read_u64((void *)0x100000, &text_word) == -EFAULT,
		 "paging: no identity map of low memory");
	uint64_t pa;
	KTEST_OK(translate(vm_kernel(), (uint64_t)P2V(0xfee00000), &pa, NULL) == 0 &&
		     pa == 0xfee00000,
		 "paging: direct map covers the low 4 GiB (local APIC)");
}

static void map_unmap_selftest(void)
{
	struct vm_space *k = vm_kernel();
	volatile uint64_t *p = (volatile uint64_t *)MM_SELFTEST_VA;
	size_t frames = frame_free_count();
	uint64_t pa = frame_zalloc(), got, flags, v;
	KTEST_OK(map_page(k, MM_SELFTEST_VA, pa, PTE_WRITE | PTE_NX) == 0,
		 "paging: map a fresh frame at 0x%lx", MM_SELFTEST_VA);
	p[1] = 0x5a5a1234;
	KTEST_OK(((uint64_t *)P2V(pa))[1] == 0x5a5a1234 && p[0] == 0,
		 "paging: a write through the mapping lands in the frame");
	KTEST_OK(translate(k, MM_SELFTEST_VA + 8, &got, &flags) == 0 && got == pa + 8 &&
		     (flags & (PTE_WRITE | PTE_NX)) == (PTE_WRITE | PTE_NX),
		 "paging: translate gives the frame and the flags");
	KTEST_OK(map_page(k, MM_SELFTEST_VA, pa, 0) == -EEXIST &&
		     map_page(k, (uint64_t)P2V(0x200000), pa, 0) == -EEXIST,
		 "paging: mapping over a page or a huge page gives EEXIST");
	KTEST_OK(map_page(k, MM_SELFTEST_VA + 8, pa, 0) == -EINVAL &&
		     map_page(k, 0x0000900000000000UL, pa, 0) == -EINVAL &&
		     map_page(k, MM_SELFTEST_VA + PAGE_SIZE, pa, PTE_USER) == -EINVAL,
		 "paging: unaligned, non-canonical and user-in-kernel-half give EINVAL");
	KTEST_OK(unmap_page(k, MM_SELFTEST_VA) == pa, "paging: unmap returns the frame");
	KTEST_OK(probe_read_u64(p, &v) == -EFAULT &&
		     translate(k, MM_SELFTEST_VA, NULL, NULL) == -EFAULT &&
		     unmap_page(k, MM_SELFTEST_VA) == 0,
		 "paging: after unmap a read faults (EFAULT) and nothing is mapped");
	frame_unref(pa);
	vm_unmap_range(k, MM_SELFTEST_VA, PAGE_SIZE);
	KTEST_OK(frame_free_count() == frames, "paging: the emptied page tables are freed too");
}

/* fork of a space with one written page, then COW writes on both sides. */
static void cow_selftest(struct vm_space *as)
{
	volatile uint64_t *u = (volatile uint64_t *)USER_VA;
	uint64_t ppa, cpa, pfl, cfl;
	u[0] = 111;
	struct vm_space *child = vm_fork(as);
	KTEST_OK(child && !translate(as, USER_VA, &ppa, &pfl) &&
		     !translate(child, USER_VA, &cpa, &cfl) && ppa == cpa &&
		     (pfl & (PTE_COW | PTE_WRITE)) == PTE_COW &&
		     (cfl & (PTE_COW | PTE_WRITE)) == PTE_COW && frame_refcount(ppa) == 2,
		 "vm: fork shares frames read-only copy-on-write, reference count 2");
	KTEST_OK(probe_write_u64(u, 222) == -EFAULT, "vm: a kernel write to a COW page faults");
	vm_switch(child);
	KTEST_OK(vm_resolve_cow(child, USER_VA + 8) == 0 &&
		     !translate(child, USER_VA, &cpa, &cfl) && cpa != ppa &&
		     (cfl & (PTE_COW | PTE_WRITE)) == PTE_WRITE && u[0] == 111 &&
		     frame_refcount(ppa) == 1,
		 "vm: a COW write in the child gets a private copy");
	u[0] = 222;
	vm_switch(as);
	KTEST_OK(u[0] == 111, "vm: the parent does not see the child's write");
	KTEST_OK(vm_resolve_cow(as, USER_VA) == 0 && !translate(as, USER_VA, &cpa, &pfl) &&
		     cpa == ppa && (pfl & PTE_WRITE),
		 "vm: the last owner of a COW frame keeps it, writable");
	KTEST_OK(vm_resolve_cow(as, USER_VA) == 0 && !translate(as, USER_VA, &cpa, NULL) &&
		     cpa == ppa && vm_resolve_cow(as, USER_VA + 16 * PAGE_SIZE) == -EFAULT,
		 "vm: COW resolution leaves a writable page (another thread's fault won) "
		 "and refuses unmapped pages");
	vm_switch(vm_kernel());
	vm_destroy(child);
}

static void vm_space_selftest(void)
{
	size_t frames = frame_free_count(), heap = heap_bytes_in_use();
	struct vm_space *as = vm_create();
	KTEST_OK(as && vm_map_anon(as, USER_VA, 2 * PAGE_SIZE, PTE_USER | PTE_WRITE | PTE_NX) == 0,
		 "vm: create a space and map two anonymous user pages");
	if (!as)
		return;
	vm_switch(as);
	volatile uint64_t *u = (volatile uint64_t *)USER_VA;
	uint64_t pa, v;
	KTEST_OK(!smap_enabled || probe_read_u64(u, &v) == -EFAULT,
		 "vm: with SMAP, a kernel read of a user page outside user access faults");
	user_access_begin();
	KTEST_OK(u[0] == 0 && u[1023] == 0 && !translate(as, (uint64_t)&data_word, &pa, NULL) &&
		     pa == KIMG_V2P(&data_word),
		 "vm: user pages start zeroed; the kernel half is shared");
	cow_selftest(as);
	user_access_end();
	KTEST_OK(translate(vm_kernel(), USER_VA, NULL, NULL) == -EFAULT,
		 "vm: user mappings stay out of the kernel space");
	vm_destroy(as);
	KTEST_OK(frame_free_count() == frames && heap_bytes_in_use() == heap,
		 "vm: destroy frees every frame and table (%zu free)", frame_free_count());
}

/* With no frame left: each call fails with ENOMEM and changes nothing. */
static void enomem_selftest(void)
{
	heap_purge(); /* frames counted: none waiting for a batched unmap */
	size_t frames = frame_free_count();
	struct vm_space *as = vm_create();
	size_t heap = heap_bytes_in_use();
	heap_purge(); /* or kmalloc would find frames there */
	struct grab g = grab_all_frames();
	KTEST_OK(map_page(as, USER_VA, g.head, PTE_USER) == -ENOMEM &&
		     vm_map_anon(as, USER_VA, PAGE_SIZE, PTE_USER) == -ENOMEM &&
		     translate(as, USER_VA, NULL, NULL) == -EFAULT,
		 "paging: out of frames, map fails with ENOMEM and maps nothing");
	KTEST_OK(kmalloc(64 << 10) == NULL && vm_fork(as) == NULL && heap_bytes_in_use() == heap,
		 "heap and fork: out of frames, NULL and no bytes held");
	release_frames(&g);
	vm_destroy(as);
	heap_purge();
	KTEST_OK(frame_free_count() == frames, "paging: nothing leaked after ENOMEM");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15UL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Mostly small sizes, some near the small/large boundary, a few large. */
static size_t random_size(void)
{
	uint64_t r = rnd();
	switch (r % 16) {
	case 0:
		return (r >> 8) % (96 << 10);
	case 1:
		return 1990 + (r >> 8) % 120;
	default:
		return (r >> 8) % 700;
	}
}

static uint8_t pattern(size_t i, uint8_t seed)
{
	return (uint8_t)(i * 31 + seed);
}

#define SLOTS 256
static struct {
	uint8_t *p;
	size_t size;
	uint8_t seed;
} slots[SLOTS];

/* Frees a random-pattern slot, checking its contents; counts damage. */
static size_t slot_free(int i)
{
	size_t bad = 0;
	for (size_t j = 0; j < slots[i].size; j++)
		bad += slots[i].p[j] != pattern(j, slots[i].seed);
	bad += heap_free_problem(slots[i].p) != NULL;
	kfree(slots[i].p);
	slots[i].p = NULL;
	return bad;
}

static void heap_random_selftest(void)
{
	size_t damaged = 0, misaligned = 0, failed = 0, ops = 6000;
	for (size_t n = 0; n < ops; n++) {
		int i = rnd() % SLOTS;
		if (slots[i].p) {
			damaged += slot_free(i);
			continue;
		}
		slots[i].size = random_size();
		slots[i].seed = rnd();
		slots[i].p = kmalloc(slots[i].size);
		failed += !slots[i].p;
		misaligned += (uint64_t)slots[i].p % 16 != 0;
		for (size_t j = 0; slots[i].p && j < slots[i].size; j++)
			slots[i].p[j] = pattern(j, slots[i].seed);
	}
	for (int i = 0; i < SLOTS; i++)
		if (slots[i].p)
			damaged += slot_free(i);
	KTEST_OK(!failed && !misaligned && !damaged,
		 "heap: %zu random kmalloc/kfree, sizes 0..96 KiB: 16-aligned, contents intact "
		 "(%zu failed, %zu bad)",
		 ops, failed, misaligned + damaged);
}

static void heap_large_selftest(void)
{
	size_t sizes[] = {3 << 20, 8 << 20, 5 << 20};
	uint64_t *big[3];
	bool ok = true;
	for (int i = 0; i < 3; i++) {
		big[i] = kmalloc(sizes[i]);
		size_t words = sizes[i] / 8;
		for (size_t w = 0; big[i] && w < words; w += 512)
			big[i][w] = w ^ i;
		ok = ok && big[i] && big[i][words - 1] == 0;
		if (big[i])
			big[i][words - 1] = i;
	}
	for (int i = 0; i < 3; i++)
		for (size_t w = 0; ok && w < sizes[i] / 8 - 1; w += 512)
			ok = big[i][w] == (w ^ i);
	uint64_t v;
	KTEST_OK(ok && probe_read_u64((char *)big[1] + sizes[1], &v) == -EFAULT,
		 "heap: 3, 8 and 5 MiB allocations hold data, zeroed, guard page after each");
	for (int i = 0; i < 3; i++)
		kfree(big[i]);
	KTEST_OK(heap_free_problem(big[0]) && probe_read_u64(big[1], &v) == -EFAULT,
		 "heap: a freed large allocation is unmapped and known as freed");
}

/* Requests up to a page: a frame of the direct map, back at kfree. */
static void heap_page_selftest(void)
{
	heap_purge();
	size_t frames = frame_free_count(), heap = heap_bytes_in_use();
	uint8_t *p = kzalloc(PAGE_SIZE), *q = kzalloc(3000); /* above the slabs' 2032 */
	bool ok = p && q && !((uint64_t)p & PAGE_MASK) && !((uint64_t)q & PAGE_MASK) &&
		  (uint64_t)p < HEAP_LARGE_BASE && p[0] == 0 && p[PAGE_SIZE - 1] == 0 &&
		  q[2999] == 0 && frame_free_count() == frames - 2 &&
		  heap_bytes_in_use() == heap + 2 * PAGE_SIZE;
	memset(p, 0xa5, PAGE_SIZE);
	kfree(p);
	kfree(q);
	KTEST_OK(ok && frame_free_count() == frames && heap_bytes_in_use() == heap &&
		     heap_free_problem(p) && heap_free_problem(q),
		 "heap: up to a page, a frame of the direct map (kzalloc zeroes it), freed at "
		 "once, a second kfree caught");
}

/* kfree of a large allocation defers its unmap to a batched purge. */
static void heap_lazy_selftest(void)
{
	uint64_t v;
	heap_purge();
	size_t frames = frame_free_count();
	void *p = kmalloc(2 * PAGE_SIZE);
	kfree(p);
	bool waits = frame_free_count() < frames && heap_free_problem(p);
	heap_purge();
	KTEST_OK(waits && frame_free_count() == frames && probe_read_u64(p, &v) == -EFAULT,
		 "heap: a freed large allocation waits for the batched unmap, known as freed");
	uint64_t *a = kmalloc(2 * PAGE_SIZE);
	a[0] = 42;
	kfree(a);
	uint64_t *b = kmalloc(2 * PAGE_SIZE);
	KTEST_OK(b == a && b[0] == 0, "heap: one of the same size takes it back, zeroed");
	kfree(b);
	heap_purge();
	void *many[HEAP_LAZY_MAX];
	for (int i = 0; i < HEAP_LAZY_MAX; i++)
		many[i] = kmalloc(3 * PAGE_SIZE);
	for (int i = 0; i < HEAP_LAZY_MAX; i++)
		kfree(many[i]);
	KTEST_OK(frame_free_count() == frames, "heap: the %dth waiting allocation unmaps the batch",
		 HEAP_LAZY_MAX);
}

/* An emptied slab page waits for the class's next slab; heap_purge frees it. */
static void heap_keep_selftest(void)
{
	enum { N = 2 * (HEAP_KEEP_EMPTY + 2) }; /* 2,000 bytes: two objects a page */
	void *objs[N];

	heap_purge();
	size_t frames = frame_free_count();
	for (int i = 0; i < N; i++)
		objs[i] = kmalloc(2000);
	bool fresh = frame_free_count() <= frames - (HEAP_KEEP_EMPTY + 1);
	for (int i = 0; i < N; i++)
		kfree(objs[i]);
	bool kept = frame_free_count() == frames - HEAP_KEEP_EMPTY;
	void *again = kmalloc(2000);
	bool reused = again && frame_free_count() == frames - HEAP_KEEP_EMPTY;
	kfree(again);
	const char *dbl = heap_free_problem(again);
	KTEST_OK(fresh && kept && reused && dbl && !strcmp(dbl, "double free"),
		 "heap: %d emptied slab pages kept and reused, a free object in one known as freed",
		 HEAP_KEEP_EMPTY);
	heap_purge();
	KTEST_OK(frame_free_count() == frames, "heap: heap_purge frees the kept slab pages");
}

static void heap_poison_selftest(void)
{
	/*
	 * Two objects of one slab, so its page stays allocated after p is
	 * freed.  128 objects of 64 bytes span at most a few slabs, so some
	 * pair shares a page whatever state earlier (random) tests left.
	 */
	enum { N = 128 };
	uint8_t *objs[N], *keep = NULL, *p = NULL;
	for (int i = 0; i < N; i++)
		objs[i] = kmalloc(64);
	for (int i = 0; i < N && !p; i++)
		for (int j = i + 1; j < N && !p; j++)
			if (objs[i] && objs[j] &&
			    PAGE_ALIGN_DOWN(objs[i]) == PAGE_ALIGN_DOWN(objs[j]))
				keep = objs[i], p = objs[j];
	for (int i = 0; i < N; i++)
		if (objs[i] != keep && objs[i] != p)
			kfree(objs[i]);
	bool poisoned = p != NULL;
	if (p) {
		memset(p, 0, 64);
		kfree(p);
	}
	for (int i = 16; poisoned && i < 64; i++)
		poisoned = p[i] == 0x6b;
	KTEST_OK(poisoned, "heap: freed memory is poisoned (0x6b)");
	/* The write-after-free check kmalloc makes, on each word of p's poison. */
	bool spotted = p && heap_poison_intact(p);
	for (int i = 16; spotted && i < 64; i += 7) {
		p[i] ^= 0xff;
		spotted = !heap_poison_intact(p);
		p[i] ^= 0xff;
	}
	KTEST_OK(spotted && heap_poison_intact(p),
		 "heap: a byte written anywhere in a freed object is spotted");
	const char *dbl = heap_free_problem(p), *mid = heap_free_problem(keep + 16);
	KTEST_OK(dbl && !strcmp(dbl, "double free") && mid && !heap_free_problem(keep),
		 "heap: double free and interior pointers are caught (%s; %s)", dbl, mid);
	KTEST_OK(heap_free_problem(&data_word) && heap_free_problem((void *)HEAP_LARGE_BASE),
		 "heap: non-heap pointers are caught");
	kfree(keep);
}

/* The test kernel traces: an allocation is found with its caller, and
 * forgotten once freed. */
static void heaptrace_selftest(void)
{
	struct heap_site s[8];
	uint64_t since = heaptrace_serial(), off;
	void *p = kmalloc(300);
	size_t n = heaptrace_collect(since, s, 8), i = 0;

	while (i < n && i < 8 && s[i].ptr != (uint64_t)p)
		i++;
	const char *fn = i < n && i < 8 ? ksym_lookup(KERNEL_VMA + s[i].ret[0] - 1, &off) : NULL;
	KTEST_OK(fn && !strcmp(fn, "heaptrace_selftest") && s[i].size == 300,
		 "heaptrace: a live allocation is found with its size and caller (%s)",
		 fn ? fn : "none");
	kfree(p);
	n = heaptrace_collect(since, s, 8);
	for (i = 0; i < n && i < 8 && s[i].ptr != (uint64_t)p;)
		i++;
	KTEST_OK(heaptrace_on && i == n, "heaptrace: a freed one is forgotten");
}

void heap_selftest(void)
{
	heap_purge();
	size_t heap = heap_bytes_in_use(), frames = frame_free_count();
	uint8_t *z = kzalloc(300);
	KTEST_OK(z && z[0] == 0 && z[299] == 0 && heap_bytes_in_use() > heap,
		 "heap: kzalloc zeroes");
	kfree(z);
	heap_random_selftest();
	heap_large_selftest();
	heap_page_selftest();
	heap_lazy_selftest();
	heap_poison_selftest();
	heap_keep_selftest();
	heaptrace_selftest();
	heap_purge();
	KTEST_OK(heap_bytes_in_use() == heap && frame_free_count() == frames,
		 "heap: bytes in use (%zu) and free frames back to their start", heap);
}

void mm_selftest(void)
{
	frame_selftest();
	kernel_map_selftest();
	map_unmap_selftest();
	vm_space_selftest();
	enomem_selftest();
	heap_selftest();
}
