/*
 * Physical frame allocator.  One struct frame per 4 KiB of physical memory up
 * to boot_info.phys_top lives in an array carved from RAM at boot; free frames
 * are chained through that array rather than through their own memory, so
 * alloc and free are O(1) and work before every frame is in the direct map.
 */
#include "mm/frame.h"

#include "arch/x86_64/bootinfo.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heaptrace.h"
#include "mm/layout.h"

#define FRAME_UNMANAGED UINT32_MAX  /* refs of a frame we never hand out */
#define LOW_MEMORY_END	0x100000UL  /* below 1 MiB: BIOS, left alone */
#define EARLY_MAP_END	(4UL << 30) /* boot.asm's direct map covers this */
#define RESERVE_MIN	256	    /* frames: 1 MiB, enough to fork and exec a small program */
#define RESERVE_SHARE	128	    /* else 1/128 of memory (4 MiB of 512 MiB) */

struct frame {
	uint32_t refs; /* 0 free, FRAME_UNMANAGED, else number of owners */
	uint32_t next; /* while free: next free frame number, 0 ends the list;
			* while allocated: its enum frame_kind, as kind_tag */
};

/* A kind as stored in next: never a frame number (nframes < FRAME_KIND_MIN). */
#define FRAME_KIND_MIN (UINT32_MAX - 2)
static uint32_t kind_tag(enum frame_kind k)
{
	return k == FRAME_PLAIN ? 0 : FRAME_KIND_MIN + k;
}

/*
 * frame_lock protects the free list (free_head and every free frame's next)
 * and free_count, and refs while a frame is allocated or freed; an
 * allocated frame's refs move atomically (frame_ref).  It is the innermost
 * mm lock: taken inside vm_space and heap locks, never the other way round.
 */
static struct spinlock frame_lock = SPINLOCK_INIT("frame_lock");
static struct frame *frames; /* indexed by frame number, via the direct map */
static uint64_t nframes;
static uint32_t free_head;
static size_t free_count;
static size_t total_count; /* set once by frame_init */

/* Ranges of RAM that must never be handed out, whatever boot_info says. */
static bool range_is_reserved(uint64_t base, uint64_t end, uint64_t *resume)
{
	for (int i = 0; i < boot_info.nreserved; i++) {
		const struct mem_range *r = &boot_info.reserved[i];
		if (base < r->base + r->len && r->base < end) {
			*resume = r->base + r->len;
			return true;
		}
	}
	uint64_t kbase = (uint64_t)_kernel_phys_start, kend = (uint64_t)_kernel_phys_end;
	if (base < kend && kbase < end) {
		*resume = kend;
		return true;
	}
	return false;
}

/* Physical home for the frame array: the lowest fit in usable RAM above
 * 1 MiB that the early direct map reaches, or 0. */
static uint64_t place_metadata(uint64_t bytes)
{
	for (int i = 0; i < boot_info.nusable; i++) {
		const struct mem_range *r = &boot_info.usable[i];
		uint64_t base = PAGE_ALIGN_UP(r->base > LOW_MEMORY_END ? r->base : LOW_MEMORY_END);
		uint64_t limit = r->base + r->len;
		if (limit > EARLY_MAP_END)
			limit = EARLY_MAP_END;
		uint64_t resume;
		while (base + bytes <= limit) {
			if (!range_is_reserved(base, base + bytes, &resume))
				return base;
			base = PAGE_ALIGN_UP(resume);
		}
	}
	return 0;
}

/* Sets refs of frames [first, last) to value, clipped to the array. */
static void mark_frames(uint64_t first, uint64_t last, uint32_t value)
{
	if (last > nframes)
		last = nframes;
	for (uint64_t n = first; n < last; n++)
		frames[n].refs = value;
}

static void mark_reserved(uint64_t base, uint64_t end)
{
	mark_frames(base >> PAGE_SHIFT, PAGE_ALIGN_UP(end) >> PAGE_SHIFT, FRAME_UNMANAGED);
}

/* Caller holds frame_lock; the frame's refs is already 0. */
static void push_free(uint32_t n)
{
	frames[n].next = free_head;
	free_head = n;
	free_count++;
}

void frame_init(void)
{
	nframes = boot_info.phys_top >> PAGE_SHIFT;
	kassert(nframes < FRAME_KIND_MIN);
	uint64_t bytes = PAGE_ALIGN_UP(nframes * sizeof(struct frame));
	uint64_t meta = place_metadata(bytes);
	if (!meta)
		panic("frame_init: no room for %lu bytes of frame metadata", bytes);
	frames = P2V(meta);

	mark_frames(0, nframes, FRAME_UNMANAGED);
	for (int i = 0; i < boot_info.nusable; i++) {
		const struct mem_range *r = &boot_info.usable[i];
		mark_frames(PAGE_ALIGN_UP(r->base) >> PAGE_SHIFT,
			    PAGE_ALIGN_DOWN(r->base + r->len) >> PAGE_SHIFT, 0);
	}
	for (int i = 0; i < boot_info.nreserved; i++)
		mark_reserved(boot_info.reserved[i].base,
			      boot_info.reserved[i].base + boot_info.reserved[i].len);
	mark_reserved(0, LOW_MEMORY_END);
	mark_reserved((uint64_t)_kernel_phys_start, (uint64_t)_kernel_phys_end);
	mark_reserved(meta, meta + bytes);

	/* Pushed top down so the lowest frames come out first: paging_init's
	 * tables must sit in the early 4 GiB direct map. */
	for (uint64_t n = nframes; n-- > 1;)
		if (frames[n].refs == 0)
			push_free(n);
	total_count = free_count;
	printk_info("mm: %zu frames free (%lu MiB), frame array %lu KiB at 0x%lx\n", free_count,
		    (uint64_t)free_count >> (20 - PAGE_SHIFT), bytes >> 10, meta);
}

uint64_t frame_alloc_kind(enum frame_kind k)
{
	spin_lock(&frame_lock);
	uint32_t n = free_head;
	if (n) {
		free_head = frames[n].next;
		frames[n].next = kind_tag(k);
		frames[n].refs = 1;
		free_count--;
	}
	spin_unlock(&frame_lock);
	if (n && heaptrace_on)
		heaptrace_add((void *)((uint64_t)n << PAGE_SHIFT), PAGE_SIZE,
			      (uint64_t)__builtin_frame_address(0));
	return (uint64_t)n << PAGE_SHIFT;
}

uint64_t frame_zalloc_kind(enum frame_kind k)
{
	uint64_t pa = frame_alloc_kind(k);
	if (pa)
		memset(P2V(pa), 0, PAGE_SIZE);
	return pa;
}

/* The frame's entry if the allocator manages it, else NULL. */
static struct frame *managed(uint64_t pa)
{
	uint64_t n = pa >> PAGE_SHIFT;
	if (n >= nframes || frames[n].refs == FRAME_UNMANAGED)
		return NULL;
	return &frames[n];
}

bool frame_is_managed(uint64_t pa)
{
	return managed(pa) != NULL;
}

/*
 * References move without frame_lock (a fork shares, and an exit drops,
 * every page of a space: the lock cost 40 instructions a page, docs/bench.md).
 * That is safe because a reference is only ever added by a holder of
 * another, and only the drop to zero touches the free list, under the lock.
 * The checks read the value the atomic operation returned, so a stale
 * reference still panics.
 */
void frame_ref(uint64_t pa)
{
	struct frame *f = managed(pa);
	uint32_t old;

	if (!f)
		return;
	old = __atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED);
	if (old == 0 || old >= FRAME_UNMANAGED - 1)
		panic("frame_ref: frame 0x%lx had %u references", pa, old);
}

void frame_unref(uint64_t pa)
{
	struct frame *f = managed(pa);
	uint32_t old;

	if (!f)
		return;
	/* Release orders this owner's use of the page before its reuse. */
	old = __atomic_fetch_sub(&f->refs, 1, __ATOMIC_ACQ_REL);
	if (old == 0)
		panic("frame_unref: frame 0x%lx is already free (double free)", pa);
	if (old > 1)
		return;
	/* A table or heap page has one reference, its owner's, who frees it by
	 * kind: a plain drop of its last reference is a stale one. */
	if (f->next)
		panic("frame_unref: frame 0x%lx is a live %s (a stale reference)", pa,
		      f->next == kind_tag(FRAME_TABLE) ? "page table" : "heap page");
	if (heaptrace_on)
		heaptrace_del((void *)pa);
	spin_lock(&frame_lock);
	push_free(f - frames);
	spin_unlock(&frame_lock);
}

void frame_free_kind(uint64_t pa, enum frame_kind k)
{
	struct frame *f = managed(pa);

	kassert(f);
	if (heaptrace_on)
		heaptrace_del((void *)pa);
	spin_lock(&frame_lock);
	if (f->refs != 1 || f->next != kind_tag(k))
		panic(
		    "frame_free_kind: frame 0x%lx has kind tag %#x and %u references, not kind %d",
		    pa, f->next, f->refs, k);
	f->refs = 0;
	push_free(f - frames);
	spin_unlock(&frame_lock);
}

void frame_set_kind(uint64_t pa, enum frame_kind from, enum frame_kind to)
{
	struct frame *f = managed(pa);

	/* Only its owner changes an owned frame's kind: no lock. */
	kassert(f);
	if (__atomic_load_n(&f->refs, __ATOMIC_RELAXED) != 1 ||
	    __atomic_load_n(&f->next, __ATOMIC_RELAXED) != kind_tag(from))
		panic("frame 0x%lx: kind tag %#x with %u references, not kind %d", pa, f->next,
		      f->refs, from);
	__atomic_store_n(&f->next, kind_tag(to), __ATOMIC_RELAXED);
}

bool frame_is_kind(uint64_t pa, enum frame_kind k)
{
	struct frame *f = managed(pa);

	return f && __atomic_load_n(&f->refs, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&f->next, __ATOMIC_RELAXED) == kind_tag(k);
}

uint32_t frame_refcount(uint64_t pa)
{
	struct frame *f = managed(pa);
	return f ? __atomic_load_n(&f->refs, __ATOMIC_RELAXED) : 0;
}

uint64_t frame_pfn_end(void)
{
	return nframes;
}

size_t frame_free_count(void)
{
	return __atomic_load_n(&free_count, __ATOMIC_RELAXED);
}

size_t frame_total_count(void)
{
	return total_count;
}

size_t frame_reserve(void)
{
	size_t share = total_count / RESERVE_SHARE;
	return share > RESERVE_MIN ? share : RESERVE_MIN;
}

bool frame_spare(size_t n)
{
	size_t free = frame_free_count();
	return free >= frame_reserve() && n <= free - frame_reserve();
}
