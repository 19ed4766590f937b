/*
 * The page index of a ramfs regular file: a radix tree of 64-slot nodes
 * (Linux's xarray for a mapping's folios), page number to entry.  A file
 * of 64 pages needs one node, of a GiB three levels, and the largest
 * (MAX_LFS_FILESIZE, 2^51 pages) nine; a hole costs nothing, so a file
 * written only at 4 GiB holds one page and a node per level.  Nodes are
 * never left empty: taking a node's last entry frees it, and its parent
 * if that empties too.  The caller holds the inode's lock for each call.
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/ramfs_priv.h"
#include "mm/heap.h"

#define SLOT_BITS  RAMFS_INDEX_BITS
#define SLOTS	   (1U << SLOT_BITS)
#define MAX_HEIGHT ((64 + SLOT_BITS - 1) / SLOT_BITS)

/* One level: below a leaf, page entries; above, child nodes. */
struct ramfs_index_node {
	union {
		struct ramfs_index_node *child;
		uint64_t entry;
	} slot[SLOTS];
};

/* Which slot of a node at level l (1 = leaf) index idx goes through. */
static unsigned slot_of(size_t idx, unsigned l)
{
	return (idx >> (SLOT_BITS * (l - 1))) & (SLOTS - 1);
}

/* Whether a tree of height h reaches index idx. */
static bool reaches(unsigned h, size_t idx)
{
	return h >= MAX_HEIGHT || !(idx >> (SLOT_BITS * h));
}

uint64_t ramfs_index_get(const struct ramfs_index *t, size_t idx)
{
	const struct ramfs_index_node *n = t->root;
	unsigned l = t->height;

	if (!n || !reaches(l, idx))
		return 0;
	for (; l > 1; l--)
		if (!(n = n->slot[slot_of(idx, l)].child))
			return 0;
	return n->slot[slot_of(idx, 1)].entry;
}

uint64_t *ramfs_index_slot(struct ramfs_index *t, size_t idx)
{
	struct ramfs_index_node **pp = &t->root;

	if (!t->root)
		t->height = 1;
	while (!reaches(t->height, idx)) { /* a new root above the old */
		struct ramfs_index_node *n = kzalloc(sizeof(*n));
		if (!n)
			return NULL;
		n->slot[0].child = t->root;
		t->root = n;
		t->height++;
	}
	for (unsigned l = t->height;; l--) {
		/* A node allocated here stays empty if a lower one fails:
		 * ramfs_index_free frees it with the rest. */
		if (!*pp && !(*pp = kzalloc(sizeof(**pp))))
			return NULL;
		if (l == 1)
			return &(*pp)->slot[slot_of(idx, 1)].entry;
		pp = &(*pp)->slot[slot_of(idx, l)].child;
	}
}

static bool node_empty(const struct ramfs_index_node *n)
{
	for (unsigned i = 0; i < SLOTS; i++)
		if (n->slot[i].entry)
			return false;
	return true;
}

uint64_t ramfs_index_take(struct ramfs_index *t, size_t idx)
{
	struct ramfs_index_node *path[MAX_HEIGHT + 1];
	unsigned h = t->height, l;
	uint64_t e;

	if (!t->root || !reaches(h, idx))
		return 0;
	path[h] = t->root;
	for (l = h; l > 1; l--)
		if (!(path[l - 1] = path[l]->slot[slot_of(idx, l)].child))
			return 0;
	e = path[1]->slot[slot_of(idx, 1)].entry;
	path[1]->slot[slot_of(idx, 1)].entry = 0;
	for (l = 1; l <= h && node_empty(path[l]); l++) {
		kfree(path[l]);
		if (l < h)
			path[l + 1]->slot[slot_of(idx, l + 1)].child = NULL;
		else
			t->root = NULL;
	}
	return e;
}

/* The first index in [idx, end) with an entry under n, a node at level l
 * whose first index is base; SIZE_MAX if none. */
static size_t next_under(const struct ramfs_index_node *n, unsigned l, size_t base, size_t idx,
			 size_t end)
{
	unsigned shift = SLOT_BITS * (l - 1);
	size_t i = idx > base ? (idx - base) >> shift : 0;

	for (; i < SLOTS; i++) {
		size_t first = base + (i << shift), r;
		if (first >= end)
			break;
		if (!n->slot[i].entry)
			continue;
		if (l == 1)
			return first;
		r = next_under(n->slot[i].child, l - 1, first, idx, end);
		if (r != SIZE_MAX)
			return r;
	}
	return SIZE_MAX;
}

size_t ramfs_index_next(const struct ramfs_index *t, size_t idx, size_t end)
{
	size_t r;

	if (!t->root || idx >= end || !reaches(t->height, idx))
		return end;
	r = next_under(t->root, t->height, 0, idx, end);
	return r < end ? r : end;
}

static void free_under(struct ramfs_index_node *n, unsigned l)
{
	if (l > 1)
		for (unsigned i = 0; i < SLOTS; i++)
			if (n->slot[i].child)
				free_under(n->slot[i].child, l - 1);
	kfree(n);
}

void ramfs_index_free(struct ramfs_index *t)
{
	if (t->root)
		free_under(t->root, t->height);
	t->root = NULL;
	t->height = 0;
}
