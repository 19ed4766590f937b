/*
 * Kernel heap.  Requests up to SMALL_MAX come from size classes carved out of
 * single-page slabs, those up to a page get a frame of the direct map, and
 * larger ones their own pages in the large region, followed by an unmapped
 * guard page.  Freed small objects are poisoned and checked.
 */
#include "mm/heap.h"

#include <stdbool.h>
#include <stdint.h>

#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heaptrace.h"
#include "mm/layout.h"
#include "mm/paging.h"

#define SLAB_MAGIC  0x51ab0b1eu
#define LARGE_MAGIC 0x1a46eb10c0ffee00UL
#define FREE_MARK   0xf7eef7eef7eef7eeUL		 /* second word of a free object */
#define POISON_FREE 0x6b				 /* the rest of a free object */
#define POISON_WORD (0x0101010101010101UL * POISON_FREE) /* a word of it */
#define HEAP_ALIGN  16UL
#define NCLASSES    8
#define SMALL_MAX   2032
#define LARGE_LIMIT ((HEAP_LARGE_END - HEAP_LARGE_BASE) / 2)

/* Object sizes: multiples of 16 that fill a page after the 32-byte header. */
static const uint32_t class_size[NCLASSES] = {16, 32, 64, 128, 256, 512, 1008, 2032};

/* The first 32 bytes of each slab page. */
struct slab {
	uint32_t magic;
	uint16_t cls;
	uint16_t inuse;
	struct free_obj *free;
	/* On partial[cls] while it has objects both free and in use; with none
	 * in use, next chains it on empty[cls] or the page is freed. */
	struct slab *prev, *next;
};
#define SLAB_OBJS(cls) ((PAGE_SIZE - sizeof(struct slab)) / class_size[cls])

struct free_obj {
	struct free_obj *next;
	uint64_t mark; /* FREE_MARK; bytes after it hold POISON_FREE */
};

/* Just before a large allocation's data, which ends at its last page's end. */
struct large_hdr {
	uint64_t magic;
	uint64_t size; /* rounded to HEAP_ALIGN */
};

/* A free run of the large region's address space, [base, end). */
struct va_extent {
	uint64_t base, end;
	struct va_extent *next; /* sorted by base */
};

/*
 * heap_lock protects partial[], empty[], nempty[], every slab's header and
 * free objects, the va_free list and bytes_in_use.  Lock order: heap_lock,
 * then the kernel vm_space lock, then frame_lock.  Large pages are mapped
 * and unmapped with heap_lock released.
 */
static struct spinlock heap_lock = SPINLOCK_INIT("heap_lock");
static struct slab *partial[NCLASSES];

/*
 * Up to HEAP_KEEP_EMPTY slabs per class whose last object was freed wait here,
 * chained through next, their objects still poisoned, for the next slab the
 * class needs (Linux's min_partial).  Giving the page back at once made
 * every allocation that crossed a page boundary and came back pay a frame,
 * a poison fill of the whole page and its release, about 2,000
 * instructions: a batch of datagrams whose buffers spilled onto a fresh
 * page, a connection's two sockets alone on theirs.  Which rows paid it
 * depended on how full the boot left each class (docs/bench.md).  Bounded:
 * HEAP_KEEP_EMPTY pages a class.  heap_purge gives them back (the leak check
 * before it counts frames, an allocation that found no frame), and so does
 * slab_new when frame_alloc fails.
 */
static struct slab *empty[NCLASSES];
static int nempty[NCLASSES];
static struct va_extent *va_free;
static size_t bytes_in_use;

/*
 * Freed large allocations (guard page included) wait here, still mapped,
 * until HEAP_LAZY_MAX of them or LAZY_PAGES pages have gathered; then one purge
 * unmaps them all with one TLB shootdown.  Meanwhile an allocation of the
 * same size takes one back as it is.  Unmapping each at kfree cost a
 * cross-CPU call per free (a pipe's ring per close; path buffers, then
 * large too, made fork+exec 25 times slower on two CPUs than on one).
 * Linux's lazy vunmap does the same.  kfree clears the magic first, so a double free is still
 * caught; a use after free in the window is not.  Under heap_lock.
 */
#define LAZY_PAGES 256
static struct vm_extent lazy[HEAP_LAZY_MAX];
static int nlazy;
static uint64_t lazy_pages;

static int class_of(size_t size)
{
	int cls = 0;
	while (class_size[cls] < size)
		cls++;
	return cls;
}

static void partial_link(struct slab *s)
{
	s->prev = NULL;
	s->next = partial[s->cls];
	if (s->next)
		s->next->prev = s;
	partial[s->cls] = s;
}

static void partial_unlink(struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		partial[s->cls] = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

/* Turns the object at o into a free one: mark, poison, onto s's list. */
static void poison_and_push(struct slab *s, struct free_obj *o)
{
	memset(o, POISON_FREE, class_size[s->cls]);
	o->mark = FREE_MARK;
	o->next = s->free;
	s->free = o;
}

/* Gives an empty slab's page back. */
static void slab_release(struct slab *s)
{
	s->magic = 0; /* a kfree into it now fails (slab_problem) */
	frame_unref(V2P(s));
}

/* A kept empty slab of class cls, back on the partial list, or NULL. */
static struct slab *empty_take(int cls)
{
	struct slab *s = empty[cls];

	if (s) {
		empty[cls] = s->next;
		nempty[cls]--;
		partial_link(s);
	}
	return s;
}

/* Slab s has no object in use: kept for the class's next slab, or freed. */
static void empty_put(struct slab *s)
{
	partial_unlink(s);
	if (nempty[s->cls] < HEAP_KEEP_EMPTY) {
		s->next = empty[s->cls];
		empty[s->cls] = s;
		nempty[s->cls]++;
		return;
	}
	slab_release(s);
}

/* Frees every kept empty slab.  Caller holds heap_lock. */
static void empty_release_all(void)
{
	for (int cls = 0; cls < NCLASSES; cls++) {
		while (empty[cls]) {
			struct slab *s = empty[cls];
			empty[cls] = s->next;
			slab_release(s);
		}
		nempty[cls] = 0;
	}
}

static struct slab *slab_new(int cls)
{
	uint64_t pa = frame_alloc();
	if (!pa) { /* the other classes' kept slabs may be the last frames */
		empty_release_all();
		pa = frame_alloc();
	}
	if (!pa)
		return NULL;
	struct slab *s = P2V(pa);
	*s = (struct slab){.magic = SLAB_MAGIC, .cls = cls};
	for (size_t i = SLAB_OBJS(cls); i-- > 0;)
		poison_and_push(s, (void *)((char *)(s + 1) + i * class_size[cls]));
	partial_link(s);
	return s;
}

/*
 * True if all words at p hold the poison.  Eight bytes per step, with one
 * repe scasq: the byte loop this replaced was 5,700 of the 8,900
 * instructions of socket + fcntl + close (make bench; docs/bench.md).
 */
static bool poisoned(const uint64_t *p, size_t words)
{
	bool equal = true;

	if (words)
		asm("repe scasq"
		    : "+D"(p), "+c"(words), "=@ccz"(equal)
		    : "a"(POISON_WORD), "m"(*(const char(*)[words * 8]) p));
	return equal;
}

/* Whether free object o is as kfree left it.  Class sizes are multiples of
 * 16 and objects 16-aligned: the poison is whole words. */
static bool poison_intact(const struct free_obj *o, size_t size)
{
	return o->mark == FREE_MARK && poisoned((const uint64_t *)(o + 1), (size - sizeof(*o)) / 8);
}

/* Panics if a free object was written to since it was freed, naming the
 * first word changed: its offset tells which field a stale writer set. */
static void check_poison(const struct free_obj *o, size_t size)
{
	const uint64_t *w = (const uint64_t *)(o + 1);
	size_t i = 0;

	if (poison_intact(o, size))
		return;
	while (o->mark == FREE_MARK && w[i] == POISON_WORD)
		i++;
	panic("heap: free object %p (size %zu) was written after kfree: at byte %zu, 0x%lx",
	      (void *)o, size,
	      o->mark == FREE_MARK ? sizeof(*o) + i * 8 : offsetof(struct free_obj, mark),
	      o->mark == FREE_MARK ? w[i] : o->mark);
}

/* An object of class cls, or NULL.  Caller holds heap_lock. */
static void *slab_alloc(int cls)
{
	struct slab *s = partial[cls];
	if (!s && !(s = empty_take(cls)) && !(s = slab_new(cls)))
		return NULL;
	struct free_obj *o = s->free;
	check_poison(o, class_size[cls]);
	s->free = o->next;
	if (!s->free)
		partial_unlink(s);
	s->inuse++;
	return o;
}

/* Caller holds heap_lock and has checked ptr with slab_problem(). */
static void slab_free(struct slab *s, void *ptr)
{
	if (!s->free)
		partial_link(s);
	poison_and_push(s, ptr);
	if (--s->inuse == 0)
		empty_put(s);
}

static struct slab *slab_of(const void *ptr)
{
	return (struct slab *)PAGE_ALIGN_DOWN(ptr);
}

/* Why ptr cannot be a live small object, or NULL.  Caller holds heap_lock. */
static const char *slab_problem(const void *ptr)
{
	struct slab *s = slab_of(ptr);
	uint64_t pa = V2P(s);
	if (!frame_refcount(pa) || s->magic != SLAB_MAGIC)
		return "not a heap pointer (or its page was already freed)";
	uint64_t off = (uint64_t)ptr - (uint64_t)(s + 1);
	if ((uint64_t)ptr < (uint64_t)(s + 1) || off % class_size[s->cls])
		return "not the start of a heap object";
	if (((const struct free_obj *)ptr)->mark == FREE_MARK)
		for (const struct free_obj *o = s->free; o; o = o->next)
			if (o == ptr)
				return "double free";
	return NULL;
}

/*
 * The free extents' nodes come from a pool of their own, not from the
 * slabs: a node lives as long as its hole, so one taken from a slab page
 * pinned that page while the objects around it came and went, and the
 * leak check (which counts frames) saw a page more after a run than
 * before with every object of the run freed.  Holes are at most the live
 * large allocations plus one; past VA_EXTENTS of them a freed range's
 * address space is lost (va_give says so), never memory.  Under heap_lock.
 */
#define VA_EXTENTS 8192
static struct va_extent extent_pool[VA_EXTENTS];
static struct va_extent *extent_spare; /* freed nodes, chained through next */
static size_t extent_top;	       /* extent_pool[extent_top..] never used */

static struct va_extent *extent_new(uint64_t base, uint64_t end, struct va_extent *next)
{
	struct va_extent *x = extent_spare;

	if (x)
		extent_spare = x->next;
	else if (extent_top < VA_EXTENTS)
		x = &extent_pool[extent_top++];
	if (x)
		*x = (struct va_extent){.base = base, .end = end, .next = next};
	return x;
}

static void extent_free(struct va_extent *x)
{
	x->next = extent_spare;
	extent_spare = x;
}

/* First fit: the base of len free bytes of the large region, or 0. */
static uint64_t va_take(uint64_t len)
{
	for (struct va_extent **pp = &va_free; *pp; pp = &(*pp)->next) {
		struct va_extent *x = *pp;
		if (x->end - x->base < len)
			continue;
		uint64_t va = x->base;
		x->base += len;
		if (x->base == x->end) {
			*pp = x->next;
			extent_free(x);
		}
		return va;
	}
	return 0;
}

/* Returns [va, va+len) to the free extents, merging neighbours.  A merge
 * keeps the higher node, so the first node (the region's tail) lives for
 * ever and the heap's frame count returns exactly when all is freed. */
static void va_give(uint64_t va, uint64_t len)
{
	struct va_extent **pp = &va_free, **prev_pp = NULL;
	while (*pp && (*pp)->base < va) {
		prev_pp = pp;
		pp = &(*pp)->next;
	}
	struct va_extent *prev = prev_pp ? *prev_pp : NULL, *next = *pp;
	bool join_prev = prev && prev->end == va, join_next = next && next->base == va + len;
	if (join_prev && join_next) {
		next->base = prev->base;
		*prev_pp = next;
		extent_free(prev);
	} else if (join_prev) {
		prev->end += len;
	} else if (join_next) {
		next->base = va;
	} else if (!(*pp = extent_new(va, va + len, next))) {
		*pp = next;
		printk("heap: no free-extent node left, %lu bytes of large-region address space "
		       "lost\n",
		       len);
	}
}

static uint64_t large_pages(size_t rsize)
{
	return (rsize + sizeof(struct large_hdr) + PAGE_MASK) >> PAGE_SHIFT;
}

/* Address space and fresh frames for npages (and a guard page), or 0. */
static uint64_t large_map(uint64_t npages)
{
	spin_lock(&heap_lock);
	uint64_t va = va_take((npages + 1) * PAGE_SIZE);
	spin_unlock(&heap_lock);
	if (va && vm_map_anon(vm_kernel(), va, npages * PAGE_SIZE, PTE_WRITE | PTE_NX)) {
		spin_lock(&heap_lock);
		va_give(va, (npages + 1) * PAGE_SIZE);
		spin_unlock(&heap_lock);
		return 0;
	}
	return va;
}

/* A waiting allocation of npages, taken back: it is mapped on every CPU
 * still, so there is nothing to map or flush (a pipe's ring when pipes
 * come and go).  0 if none.  Caller holds heap_lock. */
static uint64_t lazy_take(uint64_t npages)
{
	for (int i = 0; i < nlazy; i++) {
		if (lazy[i].len != (npages + 1) * PAGE_SIZE)
			continue;
		uint64_t va = lazy[i].va;
		lazy[i] = lazy[--nlazy];
		lazy_pages -= npages;
		return va;
	}
	return 0;
}

/* Unmaps the waiting large allocations, with one shootdown. */
static void lazy_purge(void)
{
	struct vm_extent r[HEAP_LAZY_MAX];

	spin_lock(&heap_lock);
	int n = nlazy;
	memcpy(r, lazy, n * sizeof(*r));
	nlazy = 0;
	lazy_pages = 0;
	spin_unlock(&heap_lock);
	if (!n)
		return;
	vm_unmap_ranges(vm_kernel(), r, n); /* the guard pages are unmapped already */
	spin_lock(&heap_lock);
	for (int i = 0; i < n; i++)
		va_give(r[i].va, r[i].len);
	spin_unlock(&heap_lock);
}

void heap_purge(void)
{
	lazy_purge();
	spin_lock(&heap_lock);
	empty_release_all();
	spin_unlock(&heap_lock);
}

static void *large_alloc(size_t size)
{
	if (size > LARGE_LIMIT)
		return NULL;
	size_t rsize = (size + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1);
	uint64_t npages = large_pages(rsize);
	spin_lock(&heap_lock);
	uint64_t va = lazy_take(npages);
	spin_unlock(&heap_lock);
	if (va)
		memset((void *)va, 0, npages * PAGE_SIZE); /* as fresh frames are */
	else
		va = large_map(npages);
	if (!va) {
		heap_purge(); /* what waits there may be what is missing */
		va = large_map(npages);
	}
	if (!va)
		return NULL;
	char *data = (char *)va + npages * PAGE_SIZE - rsize;
	struct large_hdr *h = (struct large_hdr *)data - 1;
	*h = (struct large_hdr){.magic = LARGE_MAGIC, .size = rsize};
	spin_lock(&heap_lock);
	bytes_in_use += rsize;
	spin_unlock(&heap_lock);
	return data;
}

static bool is_large(const void *ptr)
{
	return (uint64_t)ptr >= HEAP_LARGE_BASE && (uint64_t)ptr < HEAP_LARGE_END;
}

/* Why ptr cannot be a live large allocation, or NULL.  Caller holds heap_lock,
 * under which kfree clears the magic, so a second kfree of ptr fails here. */
static const char *large_problem(const void *ptr)
{
	const struct large_hdr *h = (const struct large_hdr *)ptr - 1;
	if ((uint64_t)ptr % HEAP_ALIGN)
		return "not the start of a heap allocation";
	if (translate(vm_kernel(), (uint64_t)h, NULL, NULL))
		return "double free (or not a heap pointer)";
	if (h->magic != LARGE_MAGIC || ((uint64_t)ptr + h->size) & PAGE_MASK)
		return "double free, or not the start of a heap allocation";
	return NULL;
}

static void large_free(void *ptr)
{
	struct large_hdr *h = (struct large_hdr *)ptr - 1;
	uint64_t va = PAGE_ALIGN_DOWN(h), size = h->size;
	uint64_t npages = large_pages(size);
	bool full;
	spin_lock(&heap_lock);
	bytes_in_use -= size;
	while (nlazy == HEAP_LAZY_MAX) { /* another CPU filled it and is purging */
		spin_unlock(&heap_lock);
		lazy_purge();
		spin_lock(&heap_lock);
	}
	lazy[nlazy++] = (struct vm_extent){.va = va, .len = (npages + 1) * PAGE_SIZE};
	lazy_pages += npages;
	full = nlazy == HEAP_LAZY_MAX || lazy_pages >= LAZY_PAGES;
	spin_unlock(&heap_lock);
	if (full)
		lazy_purge();
}

void heap_init(void)
{
	spin_lock(&heap_lock);
	va_free = extent_new(HEAP_LARGE_BASE, HEAP_LARGE_END, NULL);
	spin_unlock(&heap_lock);
	kassert(va_free);
}

static bool in_direct_map(const void *ptr)
{
	return (uint64_t)ptr >= PHYS_MAP_BASE && (uint64_t)ptr < HEAP_LARGE_BASE;
}

/* A whole frame of the direct map: what a page-aligned pointer there is
 * (a slab's objects start after its header). */
static bool is_page(const void *ptr)
{
	return in_direct_map(ptr) && !((uint64_t)ptr & PAGE_MASK);
}

/* Requests that fit a page (a path buffer per open or exec) take a frame
 * of the direct map: nothing to map, and nothing to unmap and shoot down
 * at kfree.  No guard page, as with the slabs; not zeroed (kzalloc does),
 * as a path buffer needs no 4 KiB of zeroes. */
static void *page_alloc(void)
{
	uint64_t pa = frame_alloc_kind(FRAME_HEAP_PAGE); /* a second kfree is caught */
	if (!pa) {
		heap_purge();
		pa = frame_alloc_kind(FRAME_HEAP_PAGE);
	}
	if (!pa)
		return NULL;
	spin_lock(&heap_lock);
	bytes_in_use += PAGE_SIZE;
	spin_unlock(&heap_lock);
	return P2V(pa);
}

static void *small_alloc(size_t size)
{
	int cls = class_of(size ? size : 1);
	spin_lock(&heap_lock);
	void *p = slab_alloc(cls);
	if (p)
		bytes_in_use += class_size[cls];
	spin_unlock(&heap_lock);
	return p;
}

void *kmalloc(size_t size)
{
	void *p = size > PAGE_SIZE   ? large_alloc(size)
		  : size > SMALL_MAX ? page_alloc()
				     : small_alloc(size);
	if (p && heaptrace_on)
		heaptrace_add(p, size, (uint64_t)__builtin_frame_address(0));
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p && size <= PAGE_SIZE) /* larger ones come from zeroed frames */
		memset(p, 0, size);
	return p;
}

/* Why ptr cannot be freed, or NULL.  Caller holds heap_lock. */
static const char *free_problem(const void *ptr)
{
	if (is_large(ptr))
		return large_problem(ptr);
	if (!in_direct_map(ptr))
		return "not a heap pointer";
	if (is_page(ptr)) /* not a heap page now: freed, maybe reused since */
		return frame_is_kind(V2P(ptr), FRAME_HEAP_PAGE)
			   ? NULL
			   : "double free (or not a heap pointer)";
	return slab_problem(ptr);
}

const char *heap_free_problem(const void *ptr)
{
	spin_lock(&heap_lock);
	const char *why = free_problem(ptr);
	spin_unlock(&heap_lock);
	return why;
}

bool heap_poison_intact(const void *freed)
{
	spin_lock(&heap_lock);
	bool ok = poison_intact(freed, class_size[slab_of(freed)->cls]);
	spin_unlock(&heap_lock);
	return ok;
}

void kfree(void *ptr)
{
	if (!ptr)
		return;
	if (heaptrace_on)
		heaptrace_del(ptr);
	spin_lock(&heap_lock);
	const char *why = free_problem(ptr);
	if (!why && is_large(ptr)) {
		((struct large_hdr *)ptr - 1)->magic = 0; /* a second kfree now fails */
	} else if (!why && is_page(ptr)) {
		bytes_in_use -= PAGE_SIZE;
		frame_free_kind(V2P(ptr),
				FRAME_HEAP_PAGE); /* under heap_lock: a second kfree sees it */
	} else if (!why) {
		struct slab *s = slab_of(ptr);
		bytes_in_use -= class_size[s->cls];
		slab_free(s, ptr);
	}
	spin_unlock(&heap_lock);
	if (why)
		panic("kfree(%p): %s", ptr, why);
	if (is_large(ptr))
		large_free(ptr);
}

size_t heap_bytes_in_use(void)
{
	spin_lock(&heap_lock);
	size_t n = bytes_in_use;
	spin_unlock(&heap_lock);
	return n;
}

char *kstrdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy = kmalloc(len);

	if (copy)
		memcpy(copy, s, len);
	return copy;
}
