/*
 * The mapping list (vma.h): a list per address space, sorted by address,
 * for walks and neighbours, and a red-black tree of the same vmas by
 * start for finding the one at an address (lib/rbtree.h): a process has
 * a handful of mappings (image, heap, stack, a few mmaps and thread
 * stacks), but may have up to VMA_MAX.  A vma's range changes in place
 * only between its neighbours, so its place in both stays right; fork
 * shares the table copy-on-write (struct vma_table).
 */
#include "mm/vma.h"
#include "fs/inode.h"
#include "fs/ramfs/memfd.h"
#include "lib/printk.h"
#include "mm/commit.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include "mm/rmap.h"
#include "mm/uvm.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

static unsigned long live_vmas; /* atomic */

unsigned long vma_count(void)
{
	return __atomic_load_n(&live_vmas, __ATOMIC_RELAXED);
}

int64_t vma_charge(const struct vma *v)
{
	if ((v->flags & (VMA_SHARED | VMA_NORESERVE)) || !(v->prot & PROT_WRITE))
		return 0;
	return (int64_t)((v->end - v->start) / PAGE_SIZE);
}

/* u's charge moves by pages, and Committed_AS with it (mm/commit.h): the
 * system count is the sum of every uvm's, a table shared by fork counting
 * once per uvm (uvm_fork adds it, uvm_put takes it back). */
static void charge(struct uvm *u, int64_t pages)
{
	u->vt->committed += (uint64_t)pages;
	vm_commit_add(pages);
}

/* A vma of table t with no contents yet, counted: a free slot of t's own,
 * else from the heap; NULL when memory runs out. */
static struct vma *vma_new(struct vma_table *t)
{
	int i = __builtin_ffs(~t->slots_used & ((1u << VMA_SLOTS) - 1)) - 1;
	struct vma *v = i >= 0 ? &t->slot[i] : kmalloc(sizeof(*v)); /* vma_set fills it */

	if (!v)
		return NULL;
	if (i >= 0)
		t->slots_used |= 1u << i;
	v->file = NULL; /* a spare may be freed unused */
	v->name = NULL;
	v->ops = NULL;
	v->rmap_pprev = NULL;
	__atomic_add_fetch(&live_vmas, 1, __ATOMIC_RELAXED);
	return v;
}

struct vma_name *vma_name_new(const char *path)
{
	size_t len = strlen(path) + 1;
	struct vma_name *n = kmalloc(sizeof(*n) + len);

	if (n) {
		n->refs = 1;
		memcpy(n->path, path, len);
	}
	return n;
}

void vma_name_get(struct vma_name *n)
{
	__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
}

/* kfree takes no lock a uvm's holder may not: callable under it. */
void vma_name_put(struct vma_name *n)
{
	if (!__atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL))
		kfree(n);
}

/* dst becomes a copy of src in table t (with its own file reference,
 * counted by its object, on the file's reverse map if tracked), not on
 * t's list. */
static void vma_set(struct vma_table *t, struct vma *dst, const struct vma *src)
{
	*dst = *src;
	list_init(&dst->node);
	dst->vt = t;
	dst->rmap_pprev = NULL;
	if (vma_tracks_dirty(dst))
		rmap_link(dst);
	if (dst->file) {
		inode_get(dst->file);
		inode_mmap_writable_add(dst->file, dst->flags, 1); /* memfd seals */
	}
	if (dst->name)
		vma_name_get(dst->name);
	if (dst->ops)
		dst->ops->open(dst);
}

/* Frees v (unlinked) of table t.  Under the lock if t is in use: the
 * last inode_put frees file pages, which takes no lock a fault holds
 * before the uvm lock. */
static void vma_free(struct vma_table *t, struct vma *v)
{
	if (v->ops)
		v->ops->close(v);
	rmap_unlink(v);
	if (v->file) {
		inode_mmap_writable_add(v->file, v->flags, -1);
		inode_put(v->file);
	}
	if (v->name)
		vma_name_put(v->name);
	__atomic_sub_fetch(&live_vmas, 1, __ATOMIC_RELAXED);
	if (v >= t->slot && v < t->slot + VMA_SLOTS)
		t->slots_used &= ~(1u << (v - t->slot));
	else
		kfree(v);
}

/* Adds v to t's tree by its start. */
static void tree_insert(struct vma_table *t, struct vma *v)
{
	struct rb_node **link = &t->tree.node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = v->start < rb_entry(parent, struct vma, rb)->start ? &parent->left
									  : &parent->right;
	}
	rb_insert(&t->tree, &v->rb, parent, link);
}

struct vma_table *vma_table_new(void)
{
	struct vma_table *t = kzalloc(sizeof(*t));

	if (t) {
		t->refs = 1;
		list_init(&t->vmas);
	}
	return t;
}

static struct vma_table *table_copy(const struct vma_table *t, struct vm_space *space);

struct vma_table *vma_table_fork(struct vma_table *t)
{
	if (t->with_ops || t->with_rmap)
		return table_copy(t, NULL);
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void vma_table_put(struct vma_table *t)
{
	struct vma *v, *n;

	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	list_for_each_entry_safe(v, n, &t->vmas, node) vma_free(t, v);
	kfree(t);
}

/* A private copy of t for the page tables space, its vmas with file
 * references of their own; NULL when memory runs out. */
static struct vma_table *table_copy(const struct vma_table *t, struct vm_space *space)
{
	struct vma_table *c = vma_table_new();
	struct vma *v, *n;

	if (!c)
		return NULL;
	c->space = space;
	list_for_each_entry(v, &t->vmas, node)
	{
		if (!(n = vma_new(c))) {
			vma_table_put(c);
			return NULL;
		}
		vma_set(c, n, v);
		list_add_tail(&n->node, &c->vmas);
		tree_insert(c, n);
	}
	c->nr = t->nr;
	c->committed = t->committed;
	c->with_ops = t->with_ops;
	c->with_rmap = t->with_rmap;
	return c;
}

/*
 * Makes u's table its own before a change: a table shared with a fork's
 * other side is never changed, so the first change after fork copies it.
 * 0 or -ENOMEM.  The old table's last put cannot free a file (the copy
 * holds references to them all), so it may run under the lock.
 */
static int own(struct uvm *u)
{
	struct vma_table *c;

	if (__atomic_load_n(&u->vt->refs, __ATOMIC_ACQUIRE) == 1)
		return 0;
	if (!(c = table_copy(u->vt, u->space)))
		return -ENOMEM;
	vma_table_put(u->vt);
	u->vt = c;
	return 0;
}

/* Links v in front of pos (a vma's node or the list head). */
static void link_before(struct uvm *u, struct vma *v, struct list_head *pos)
{
	list_insert_between(&v->node, pos->prev, pos);
	tree_insert(u->vt, v);
	u->vt->nr++;
	u->vt->with_ops += v->ops != NULL;
	u->vt->with_rmap += v->rmap_pprev != NULL;
	charge(u, vma_charge(v));
}

static void unlink_vma(struct uvm *u, struct vma *v)
{
	list_del(&v->node);
	rb_erase(&u->vt->tree, &v->rb);
	u->vt->nr--;
	u->vt->with_ops -= v->ops != NULL;
	u->vt->with_rmap -= v->rmap_pprev != NULL;
	charge(u, -vma_charge(v));
}

/* Gives the linked v a new range, keeping its file offset in step (a
 * tracked one under rmap_lock: a write-back reads it). */
static void set_range(struct uvm *u, struct vma *v, uint64_t start, uint64_t end)
{
	int64_t old = vma_charge(v);

	if (v->rmap_pprev)
		rmap_lock();
	v->off += start - v->start; /* modular: start may be below */
	v->start = start;
	v->end = end;
	if (v->rmap_pprev)
		rmap_unlock();
	charge(u, vma_charge(v) - old);
}

struct vma *vma_find(struct uvm *u, uint64_t addr)
{
	struct rb_node *n = u->vt->tree.node;
	struct vma *found = NULL;

	/* Ends are in the starts' order (no two vmas overlap): the leftmost
	 * vma ending above addr. */
	while (n) {
		struct vma *v = rb_entry(n, struct vma, rb);
		if (v->end > addr) {
			found = v;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return found;
}

struct vma *vma_at(struct uvm *u, uint64_t addr)
{
	struct vma *v = vma_find(u, addr);

	return v && v->start <= addr ? v : NULL;
}

struct vma *vma_next(struct uvm *u, struct vma *v)
{
	return v->node.next == &u->vt->vmas ? NULL : list_entry(v->node.next, struct vma, node);
}

static struct vma *vma_prev(struct uvm *u, struct vma *v)
{
	return v->node.prev == &u->vt->vmas ? NULL : list_entry(v->node.prev, struct vma, node);
}

/* The highest vma, or NULL. */
static struct vma *vma_last(struct uvm *u)
{
	struct list_head *h = &u->vt->vmas;

	return list_empty(h) ? NULL : list_entry(h->prev, struct vma, node);
}

bool vma_range_free(struct uvm *u, uint64_t start, uint64_t end)
{
	struct vma *v = vma_last(u);

	if (!v || v->end <= start) /* exec adds its mappings in address order */
		return true;
	v = vma_find(u, start);
	return !v || v->start >= end;
}

/* Whether b continues a: adjacent, same kind, same file at the next offset. */
static bool mergeable(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->prot == b->prot && a->flags == b->flags && !a->ops &&
	       !b->ops && a->file == b->file &&
	       (!(a->file || (a->flags & VMA_SPECIAL)) || a->off + (a->end - a->start) == b->off);
}

/* The linked a grows over b, its mergeable neighbour above, which is
 * freed: a grows first, so that a write-back always finds b's pages
 * through one of them (rmap.h). */
static void absorb(struct uvm *u, struct vma *a, struct vma *b)
{
	set_range(u, a, a->start, b->end);
	unlink_vma(u, b);
	vma_free(u->vt, b);
}

/*
 * Joins v with equal neighbours; returns the vma now covering v's range.
 * A vma merged away is freed at once.
 */
static struct vma *merge(struct uvm *u, struct vma *v)
{
	struct vma *n = vma_next(u, v), *p = vma_prev(u, v);

	if (n && mergeable(v, n))
		absorb(u, v, n);
	if (p && mergeable(p, v)) {
		absorb(u, p, v);
		v = p;
	}
	return v;
}

int vma_insert(struct uvm *u, const struct vma *tmpl)
{
	struct vma *v, *next;

	if (own(u) || u->vt->nr >= VMA_MAX || !vm_commit_allowed(vma_charge(tmpl)) ||
	    !(v = vma_new(u->vt)))
		return -ENOMEM;
	vma_set(u->vt, v, tmpl);
	next = vma_last(u);
	if (next && next->end > v->start) /* not the new highest */
		next = vma_find(u, v->start);
	else
		next = NULL;
	link_before(u, v, next ? &next->node : &u->vt->vmas);
	merge(u, v);
	return 0;
}

int vma_insert_populated(struct uvm *u, const struct vma *tmpl)
{
	uint64_t len = tmpl->end - tmpl->start;
	int err;

	/* The frame reserve is for the kernel, page faults and execve. */
	if (!frame_spare(len / PAGE_SIZE) ||
	    vm_map_anon(u->space, tmpl->start, len, vma_pte_flags(tmpl)))
		return -ENOMEM;
	if ((err = vma_insert(u, tmpl)))
		vm_unmap_range(u->space, tmpl->start, len);
	return err;
}

/* Whether addr falls strictly inside a vma (splitting there makes two). */
static bool inside(struct uvm *u, uint64_t addr)
{
	struct vma *v = vma_at(u, addr);

	return v && v->start < addr;
}

/* Whether addr falls strictly inside a vDSO vma, which Linux never splits
 * (special_mapping_split: EINVAL). */
static bool inside_special(struct uvm *u, uint64_t addr)
{
	return inside(u, addr) && (vma_at(u, addr)->flags & VMA_SPECIAL);
}

/* Cuts the vma around at into two; upper (from vma_new) takes the top,
 * ready before v shrinks (a write-back finds each page in one of them). */
static void split(struct uvm *u, uint64_t at, struct vma *upper)
{
	struct vma *v = vma_at(u, at), top = *v;

	top.start = at;
	top.off = v->off + (at - v->start);
	vma_set(u->vt, upper, &top);
	set_range(u, v, v->start, at);
	link_before(u, upper, v->node.next);
}

int vma_split_range(struct uvm *u, uint64_t start, uint64_t end)
{
	struct vma *spare[2] = {NULL, NULL};
	int need;

	if (inside_special(u, start) || (end != start && inside_special(u, end)))
		return -EINVAL;
	if (own(u))
		return -ENOMEM;
	/* One spare per cut made, each used below: an empty range is one cut
	 * at most (a second spare was never freed: issue 19). */
	need = inside(u, start) + (end != start && inside(u, end));
	if (u->vt->nr + need > VMA_MAX)
		return -ENOMEM;
	for (int i = 0; i < need; i++) {
		if (!(spare[i] = vma_new(u->vt))) {
			if (i)
				vma_free(u->vt, spare[0]);
			return -ENOMEM;
		}
	}
	if (inside(u, start))
		split(u, start, spare[--need]);
	if (inside(u, end))
		split(u, end, spare[--need]);
	return 0;
}

int vma_remove(struct uvm *u, uint64_t start, uint64_t end)
{
	struct vma *v, *n;
	int err;

	/* The page tables are cleared over all of [start, end), mapped or
	 * not, and past USER_END a table index would be the kernel half's:
	 * mremap's shrink once unmapped kernel text with an old_len reaching
	 * there (Linux's do_munmap: EINVAL). */
	if (start > end || end > USER_END)
		return -EINVAL;
	if ((err = vma_split_range(u, start, end)))
		return err;
	/* The pages first: a write-back finds a writable entry through its
	 * vma until the entry is gone (rmap.h). */
	vm_unmap_range(u->space, start, end - start);
	for (v = vma_find(u, start); v && v->start < end; v = n) {
		n = vma_next(u, v);
		unlink_vma(u, v);
		vma_free(u->vt, v);
	}
	return 0;
}

uint64_t vma_pte_flags(const struct vma *v)
{
	uint64_t f = PTE_USER;

	/* x86 pages are readable when present: write or exec imply read. */
	if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		f |= PTE_PROTNONE;
	/* A tracked page is writable only after a write fault dirtied it
	 * (Linux's vma_wants_writenotify). */
	if ((v->prot & PROT_WRITE) && !vma_tracks_dirty(v))
		f |= PTE_WRITE;
	if (!(v->prot & PROT_EXEC))
		f |= PTE_NX;
	if (v->flags & VMA_SHARED)
		f |= PTE_SHARED;
	return f;
}

/* Gives [from, to) of v (which covers it) prot, page tables too; the vma
 * now covering from in *out.  0 or -ENOMEM. */
static int protect_part(struct uvm *u, struct vma *v, uint64_t from, uint64_t to, int prot,
			struct vma **out)
{
	struct vma now = *v, after;
	int64_t old;
	int err;

	*out = v;
	if (v->prot == prot)
		return 0;
	now.start = from;
	now.end = to;
	after = now;
	after.prot = prot;
	if (!vm_commit_allowed(vma_charge(&after) - vma_charge(&now)))
		return -ENOMEM;
	if ((err = vma_split_range(u, from, to)))
		return err;
	v = vma_at(u, from);
	old = vma_charge(v);
	v->prot = prot;
	charge(u, vma_charge(v) - old);
	vm_protect(u->space, from, to - from, vma_pte_flags(v));
	*out = merge(u, v);
	return 0;
}

int vma_set_bits(struct uvm *u, uint64_t start, uint64_t end, unsigned int bits, unsigned int value,
		 bool past_holes)
{
	struct vma *v;
	int err, hole = 0;

	if (own(u))
		return -ENOMEM;
	/* Found again at each step: a merge may have swallowed the next. */
	for (uint64_t at = start, to; at < end; at = to) {
		if (!(v = vma_find(u, at)) || v->start >= end)
			return -ENOMEM; /* nothing more */
		if (v->start > at) {
			if (!past_holes)
				return -ENOMEM;
			hole = -ENOMEM;
			at = v->start;
		}
		to = v->end < end ? v->end : end;
		if ((v->flags & bits) == value)
			continue;
		if ((err = vma_split_range(u, at, to)))
			return err;
		v = vma_at(u, at);
		v->flags = (v->flags & ~bits) | value;
		merge(u, v);
	}
	return hole;
}

bool vma_range_accessible(struct uvm *u, uint64_t start, uint64_t end)
{
	for (struct vma *v = vma_find(u, start); v && v->start < end; v = vma_next(u, v))
		if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
			return false;
	return true;
}

bool vma_range_has(struct uvm *u, uint64_t start, uint64_t end, unsigned int flags)
{
	for (struct vma *v = vma_find(u, start); v && v->start < end; v = vma_next(u, v))
		if (v->flags & flags)
			return true;
	return false;
}

int vma_set_lock_all(struct uvm *u, unsigned int lock)
{
	const unsigned int bits = VMA_LOCKED | VMA_LOCKONFAULT;
	struct vma *v;

	if (own(u))
		return -ENOMEM;
	for (v = vma_find(u, 0); v; v = vma_next(u, v)) {
		v->flags = (v->flags & ~bits) | lock;
		v = merge(u, v);
	}
	return 0;
}

int vma_protect(struct uvm *u, uint64_t start, uint64_t end, int prot)
{
	struct vma *v;
	uint64_t at = start;
	int err;

	if (own(u))
		return -ENOMEM;
	v = vma_find(u, start);
	while (at < end) {
		if (!v || v->start > at)
			return -ENOMEM; /* a hole */
		if ((prot & PROT_WRITE) && (v->flags & (VMA_SHARED | VMA_MAYWRITE)) == VMA_SHARED)
			return -EACCES; /* a shared mapping of an fd not open for writing */
		if ((prot & (PROT_WRITE | PROT_EXEC)) && (v->flags & VMA_VVAR))
			return -EACCES; /* the clock page: Linux's has neither VM_MAYWRITE nor
					   VM_MAYEXEC */
		if ((err = protect_part(u, v, at, v->end < end ? v->end : end, prot, &v)))
			return err;
		at = v->end < end ? v->end : end;
		v = vma_next(u, v);
	}
	return 0;
}

/* Where the free space below v ends: a mapping that grows down keeps its
 * guard gap free (Linux's vm_start_gap). */
static uint64_t start_gap(const struct vma *v)
{
	if (!(v->flags & VMA_GROWSDOWN))
		return v->start;
	return v->start > STACK_GUARD_GAP ? v->start - STACK_GUARD_GAP : 0;
}

/* Whether a mapping may go at [addr, addr + len): inside user space, free,
 * and clear of a stack's guard gap. */
static bool place_ok(struct uvm *u, uint64_t addr, uint64_t len)
{
	struct vma *v;

	if (!uvm_range_ok(addr, len))
		return false;
	v = vma_find(u, addr);
	return !v || addr + len <= start_gap(v);
}

uint64_t vma_place(struct uvm *u, uint64_t len, uint64_t hint)
{
	uint64_t floor = PAGE_ALIGN_UP(u->brk), top = u->mmap_base;
	struct list_head *p;

	hint = PAGE_ALIGN_UP(hint);
	if (hint && place_ok(u, hint, len))
		return hint;
	if (floor < USER_IMAGE_MIN)
		floor = USER_IMAGE_MIN;
	/* Top down: each gap lies between a vma's end and the top so far. */
	for (p = u->vt->vmas.prev;; p = p->prev) {
		struct vma *v = p == &u->vt->vmas ? NULL : list_entry(p, struct vma, node);
		uint64_t low = v && v->end > floor ? v->end : floor;
		if (top > low && top - low >= len)
			return top - len;
		if (!v)
			return 0;
		if (start_gap(v) < top)
			top = start_gap(v);
		if (top <= floor)
			return 0;
	}
}

/* Whether a mapping is one an access could use (Linux's
 * vma_is_accessible): a PROT_NONE guard below a stack needs no gap. */
static bool accessible(const struct vma *v)
{
	return v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
}

struct vma *vma_stack_grow(struct uvm *u, uint64_t va, uint64_t limit)
{
	struct vma *v, *prev;
	int64_t pages;

	va = PAGE_ALIGN_DOWN(va);
	if (va < USER_IMAGE_MIN || own(u))
		return NULL;
	v = vma_find(u, va); /* again: own() may have copied the table */
	prev = vma_prev(u, v);
	if (prev && !(prev->flags & VMA_GROWSDOWN) && accessible(prev) &&
	    va - prev->end < STACK_GUARD_GAP)
		return NULL;
	if (v->end - va > limit)
		return NULL;
	pages = vma_charge(v) ? (int64_t)((v->start - va) / PAGE_SIZE) : 0;
	if (!vm_commit_allowed(pages))
		return NULL;
	set_range(u, v, va, v->end);
	return v;
}

int vma_move(struct uvm *u, struct vma *v, uint64_t start, uint64_t len)
{
	struct vma *next;
	int err = 0;

	kassert(u->vt->refs == 1); /* the caller split v: the table is u's */
	/* A tracked v's pages and range move together under rmap_lock: a
	 * write-back finds each entry where v says. */
	if (v->rmap_pprev)
		rmap_lock();
	if (start != v->start)
		err = vm_move_range(u->space, v->start, start, v->end - v->start);
	if (!err) {
		unlink_vma(u, v);
		v->start = start;
		v->end = start + len;
	}
	if (v->rmap_pprev)
		rmap_unlock();
	if (err)
		return err;
	next = vma_find(u, start);
	link_before(u, v, next ? &next->node : &u->vt->vmas);
	merge(u, v);
	return 0;
}
