/*
 * fdmap: the slots of one fd area, their free list and busy bitmaps (fdmap.h).
 * Pure data structure: the caller (fdtable.c) holds the lock around writes.
 */
#include "fdmap.h"

#define BITS_PER_LONG (8 * (unsigned int)sizeof(long))

static unsigned int words_for(unsigned int nbits)
{
	return (nbits + BITS_PER_LONG - 1) / BITS_PER_LONG;
}

/* Bytes of both bitmaps of a map of @size slots. */
static size_t bitmap_bytes(unsigned int size)
{
	return (size_t)(words_for(size) + words_for(words_for(size))) * sizeof(long);
}

static unsigned int min_uint(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/* Append slot @i at the tail of the free list: it will be reused last. */
static void free_list_append(struct fdmap *map, uint32_t i)
{
	struct fdmap_slot *slot = &map->slots[i];

	slot->link.next = FDMAP_NIL;
	slot->link.prev = map->free_tail;
	if (map->free_tail == FDMAP_NIL)
		map->free_head = i;
	else
		map->slots[map->free_tail].link.next = i;
	map->free_tail = i;
}

/* Take slot @i off the free list, wherever it sits: O(1) thanks to both links. */
static void free_list_unlink(struct fdmap *map, uint32_t i)
{
	uint32_t next = map->slots[i].link.next, prev = map->slots[i].link.prev;

	if (prev == FDMAP_NIL)
		map->free_head = next;
	else
		map->slots[prev].link.next = next;
	if (next == FDMAP_NIL)
		map->free_tail = prev;
	else
		map->slots[next].link.prev = prev;
}

static void bit_clear_busy(struct fdmap *map, unsigned int i)
{
	unsigned int w = i / BITS_PER_LONG;

	if (map->bits[w] == ~0UL) /* else its summary bit is clear already */
		map->full[w / BITS_PER_LONG] &= ~(1UL << (w % BITS_PER_LONG));
	map->bits[w] &= ~(1UL << (i % BITS_PER_LONG));
}

/* First index >= @w whose bit is clear in @words (nwords long), or >= nwords. */
static inline unsigned int first_zero_from(const unsigned long *words, unsigned int nwords,
					   unsigned int w)
{
	unsigned int k = w / BITS_PER_LONG;
	unsigned long word;

	if (w >= nwords * BITS_PER_LONG)
		return w;
	word = words[k] | ((1UL << (w % BITS_PER_LONG)) - 1);
	while (word == ~0UL) {
		if (++k >= nwords)
			return nwords * BITS_PER_LONG;
		word = words[k];
	}
	return k * BITS_PER_LONG + (unsigned int)__builtin_ctzl(~word);
}

/*
 * Lowest free index >= @start, or map->size if none.  The summary bitmap
 * skips 64 full words per probe, so a full map of 2^20 slots costs 256
 * probes.  The summary is kept lazily: an allocation that fills a word
 * leaves its bit clear (every allocation would pay for the check), and
 * the search sets it when it meets the full word, once per filling.
 * Padding bits past size stay clear, so the last word is never "full" and
 * a hit past the end is clamped to size.
 */
static unsigned int find_free(struct fdmap *map, unsigned int start)
{
	unsigned int nwords = words_for(map->size), w;

	if (start >= map->size)
		return map->size;
	w = first_zero_from(map->bits + start / BITS_PER_LONG, 1, start % BITS_PER_LONG);
	if (w < BITS_PER_LONG)
		return min_uint(start / BITS_PER_LONG * BITS_PER_LONG + w, map->size);
	for (w = start / BITS_PER_LONG + 1;; w++) {
		w = first_zero_from(map->full, words_for(nwords), w);
		if (w >= nwords)
			return map->size;
		if (map->bits[w] != ~0UL)
			break;
		map->full[w / BITS_PER_LONG] |= 1UL << (w % BITS_PER_LONG);
	}
	return min_uint(w * BITS_PER_LONG + (unsigned int)__builtin_ctzl(~map->bits[w]), map->size);
}

/* A map of @size slots with empty bitmaps and an empty free list; slots uninitialised. */
static struct fdmap *fdmap_new(unsigned int base, unsigned int size)
{
	struct fdmap *map;

	if (size == 0 || size > FDMAP_MAX_SIZE || base > (unsigned int)__INT_MAX__ - size)
		return NULL;
	map = kmalloc(sizeof(*map) + size * sizeof(struct fdmap_slot) + bitmap_bytes(size));
	if (!map)
		return NULL;
	map->base = base;
	map->size = size;
	map->busy = 0;
	map->lowest = 0;
	map->free_head = map->free_tail = FDMAP_NIL;
	map->slots = (struct fdmap_slot *)(map + 1);
	map->bits = (unsigned long *)(map->slots + size);
	map->full = map->bits + words_for(size);
	memset(map->bits, 0, bitmap_bytes(size));
	return map;
}

/* Put slot @i on the free list tail with no file: the state of every free slot. */
static void slot_make_free(struct fdmap *map, unsigned int i)
{
	map->slots[i].file = NULL;
	free_list_append(map, i);
}

/**
 * fdmap_alloc - allocate a map with every slot free, queued in index order
 * @base: [in] first fd of the area
 * @size: [in] number of slots (1 .. FDMAP_MAX_SIZE; base + size must fit an int)
 *
 * Returns the map, or NULL when memory runs out or the arguments are out of range.
 */
struct fdmap *fdmap_alloc(unsigned int base, unsigned int size)
{
	struct fdmap *map = fdmap_new(base, size);
	unsigned int i;

	if (!map)
		return NULL;
	for (i = 0; i < size; i++)
		slot_make_free(map, i);
	return map;
}

/**
 * fdmap_alloc_for_copy - allocate a map that fdmap_copy() will fill
 * @base: [in] first fd of the area (the source's)
 * @size: [in] number of slots, as fdmap_alloc()
 *
 * The slots and free list are left for fdmap_copy(), which sets every one:
 * fork and growth would otherwise build a free list only to rebuild it.
 * Until the copy succeeded the map may only be freed.  Returns the map or NULL.
 */
struct fdmap *fdmap_alloc_for_copy(unsigned int base, unsigned int size)
{
	return fdmap_new(base, size);
}

/* The map is one allocation: header, slots, then both bitmaps. */
void fdmap_free(struct fdmap *map)
{
	kfree(map);
}

static void fdmap_free_after_grace(struct grace_head *head)
{
	fdmap_free((struct fdmap *)((char *)head - offsetof(struct fdmap, grace)));
}

/* Readers found @map through a pointer that was just replaced (the caller
 * stored the new one first): free it once they are done. */
void fdmap_free_deferred(struct fdmap *map)
{
	grace_defer(&map->grace, fdmap_free_after_grace);
}

/*
 * Mark free slot @i busy with @flags.  Its file pointer is already NULL (every
 * free slot has one), so a lock-free reader sees "no file" before and after:
 * nothing here needs ordering against readers.
 */
static int fdmap_take(struct fdmap *map, unsigned int i, unsigned int flags)
{
	free_list_unlink(map, i);
	fdmap_mark_busy(map, i, flags);
	if (i == map->lowest)
		map->lowest++;
	return (int)(map->base + i);
}

/**
 * fdmap_alloc_exact - allocate one given fd
 * @map:   [in] the map
 * @fd:    [in] the fd, inside the map's area
 * @flags: [in] FDF_CLOEXEC / FDF_CLOFORK for the new fd
 *
 * Returns @fd, -EBUSY if it is already allocated, -EINVAL if outside the area.
 */
int fdmap_alloc_exact(struct fdmap *map, unsigned int fd, unsigned int flags)
{
	if (!fdmap_covers(map, fd))
		return -EINVAL;
	if (fdmap_busy(map, fd))
		return -EBUSY;
	return fdmap_take(map, fd - map->base, flags);
}

/**
 * fdmap_alloc_lowest - allocate the lowest free fd >= @start ("sequential")
 * @map:   [in] the map
 * @start: [in] smallest acceptable fd (below the area means from its start)
 * @limit: [in] first fd not allowed (RLIMIT_NOFILE); may lie past the area
 * @flags: [in] FDF_CLOEXEC / FDF_CLOFORK for the new fd
 *
 * Returns the fd, -EMFILE if the lowest free fd is >= @limit, or -ENOSPC when
 * every fd of the area from @start up is busy but @limit lies past it (grow).
 */
int fdmap_alloc_lowest(struct fdmap *map, unsigned int start, unsigned int limit,
		       unsigned int flags)
{
	unsigned int from = start > map->base ? start - map->base : 0, i;
	bool from_lowest = from <= map->lowest;

	if (from_lowest)
		from = map->lowest;
	i = find_free(map, from);
	if (from_lowest)
		map->lowest = i; /* nothing free in between: the hint moves up */
	if (i < map->size && map->base + i < limit)
		return fdmap_take(map, i, flags);
	return map->base + i >= limit ? -EMFILE : -ENOSPC;
}

/**
 * fdmap_release - free a busy fd, queueing it at the tail of the free list
 * @map: [in] the map
 * @fd:  [in] busy fd
 *
 * Returns the file that was installed (the caller drops its reference), or NULL.
 */
struct file *fdmap_release(struct fdmap *map, unsigned int fd)
{
	unsigned int i = fd - map->base;
	struct file *file = map->slots[i].file;

	/*
	 * Relaxed: no data is published by clearing.  A reader still holding
	 * the old pointer re-checks the slot after taking its reference
	 * (files_lookup), and the file itself is freed only after a grace
	 * period.  Atomic so the reader never sees a torn pointer.
	 */
	__atomic_store_n(&map->slots[i].file, NULL, __ATOMIC_RELAXED);
	bit_clear_busy(map, i);
	map->busy--;
	if (i < map->lowest)
		map->lowest = i;
	free_list_append(map, i);
	return file;
}

/**
 * fdmap_get_flags - flags of an fd
 * @map: [in] the map
 * @fd:  [in] fd inside the area
 *
 * Returns FDMAP_F_BUSY plus the fd's FDF_KEPT flags for a busy fd, 0 for a free one.
 */
unsigned int fdmap_get_flags(const struct fdmap *map, unsigned int fd)
{
	return fdmap_busy(map, fd) ? map->slots[fd - map->base].flags : 0;
}

/**
 * fdmap_set_flags - clear then set flags of a busy fd
 * @map:   [in] the map
 * @fd:    [in] fd inside the area
 * @clear: [in] flags to clear (FDMAP_F_BUSY is ignored: it can never be cleared)
 * @set:   [in] flags to set
 *
 * Returns 0, or -EBADF if @fd is free.  Readers never look at flags, so no ordering.
 */
int fdmap_set_flags(struct fdmap *map, unsigned int fd, unsigned int clear, unsigned int set)
{
	struct fdmap_slot *slot = &map->slots[fd - map->base];

	if (!fdmap_busy(map, fd))
		return -EBADF;
	slot->flags = (slot->flags & ~(clear & FDF_KEPT)) | (set & FDF_KEPT);
	return 0;
}

/**
 * fdmap_for_each_file - call @fn on every installed file, in fd order
 * @map:  [in] the map
 * @take: [in] clear each slot's file pointer (the slot stays busy) before the call
 * @fn:   [in] callback; a non-zero return stops the walk
 * @arg:  [in] passed to @fn
 */
void fdmap_for_each_file(struct fdmap *map, bool take,
			 int (*fn)(void *arg, struct file *file, unsigned int fd), void *arg)
{
	unsigned int w, i;

	for (w = 0; w < words_for(map->size); w++) {
		unsigned long busy = map->bits[w];

		for (; busy; busy &= busy - 1) {
			struct file *file;

			i = w * BITS_PER_LONG + (unsigned int)__builtin_ctzl(busy);
			file = map->slots[i].file;
			if (take) /* relaxed, as in fdmap_release() */
				__atomic_store_n(&map->slots[i].file, NULL, __ATOMIC_RELAXED);
			if (file && fn(arg, file, map->base + i))
				return;
		}
	}
}

/* Bits of the busy slots in word @w of @map whose flags include @flag; clear it if asked. */
static unsigned long word_flag_set(struct fdmap *map, unsigned int w, unsigned long busy,
				   unsigned int flag, bool clear)
{
	unsigned long found = 0;

	for (; busy; busy &= busy - 1) {
		unsigned int j = (unsigned int)__builtin_ctzl(busy);
		struct fdmap_slot *slot = &map->slots[w * BITS_PER_LONG + j];

		if (slot->flags & flag) {
			found |= 1UL << j;
			if (clear)
				slot->flags &= ~(flag & FDF_KEPT);
		}
	}
	return found;
}

/**
 * fdmap_next_flag_set - next group of busy fds whose flags include @flag
 * @map:   [in]     the map
 * @flag:  [in]     an FDF_KEPT bit to look for (FDMAP_F_BUSY: every busy fd)
 * @clear: [in]     clear @flag on the fds returned (never FDMAP_F_BUSY)
 * @pos:   [in/out] slot index to scan from; 0 starts a scan, updated on return
 * @base:  [out]    fd of bit 0 of @set (a multiple of the word size past the area base)
 * @set:   [out]    bit j set iff fd @base + j is busy with @flag; never 0
 *
 * Returns true if a group was found, false when the scan is over.
 */
bool fdmap_next_flag_set(struct fdmap *map, unsigned int flag, bool clear, unsigned int *pos,
			 unsigned int *base, unsigned long *set)
{
	unsigned int w, nwords = words_for(map->size);

	for (w = *pos / BITS_PER_LONG; w < nwords; w++) {
		unsigned long busy = map->bits[w];

		if (w == *pos / BITS_PER_LONG)
			busy &= ~0UL << (*pos % BITS_PER_LONG);
		busy = word_flag_set(map, w, busy, flag, clear);
		if (busy) {
			*pos = (w + 1) * BITS_PER_LONG;
			*base = map->base + w * BITS_PER_LONG;
			*set = busy;
			return true;
		}
	}
	*pos = nwords * BITS_PER_LONG;
	return false;
}

/**
 * fdmap_top_open_fd - highest busy fd
 * @map: [in] the map
 *
 * Returns the highest busy fd, or base - 1 when no fd is busy.
 */
int fdmap_top_open_fd(const struct fdmap *map)
{
	unsigned int w = words_for(map->size);

	while (w-- > 0)
		if (map->bits[w])
			return (int)(map->base + w * BITS_PER_LONG + BITS_PER_LONG - 1) -
			       __builtin_clzl(map->bits[w]);
	return (int)map->base - 1;
}

/**
 * fdmap_next_busy - the lowest busy fd >= @fd; safe without the lock
 * @map: [in] the map, loaded with acquire (or under the lock)
 * @fd:  [in] where to start
 *
 * Returns that fd, or -1 if none.  Lock-free callers get a hint: each bitmap
 * word is read atomically but may change at once, so they confirm with
 * fdmap_file().  O(size/64).
 */
int fdmap_next_busy(const struct fdmap *map, unsigned int fd)
{
	unsigned int i = fd < map->base ? 0 : fd - map->base;
	unsigned long word;

	for (; i < map->size; i = (i | (BITS_PER_LONG - 1)) + 1) {
		word = __atomic_load_n(&map->bits[i / BITS_PER_LONG], __ATOMIC_RELAXED);
		word &= ~0UL << (i % BITS_PER_LONG);
		if (word)
			return (int)(map->base + i - i % BITS_PER_LONG) + __builtin_ctzl(word);
	}
	return -1;
}

/* Does slot @i of @src go into the copy?  Fork skips CLOFORK and reserved fds. */
static bool copy_wanted(const struct fdmap *src, unsigned int i, int mode)
{
	const struct fdmap_slot *slot = &src->slots[i];

	if (mode == FDMAP_COPY_GROW)
		return true;
	return slot->file && (mode == FDMAP_COPY_UNSHARE || !(slot->flags & FDF_CLOFORK));
}

/* Copy the wanted busy slots of @src into the fresh @dst; returns how many. */
static int copy_busy(struct fdmap *dst, const struct fdmap *src, int mode)
{
	unsigned int w, i;

	for (w = 0; w < words_for(src->size); w++) {
		unsigned long busy = src->bits[w];

		for (; busy; busy &= busy - 1) {
			i = w * BITS_PER_LONG + (unsigned int)__builtin_ctzl(busy);
			if (!copy_wanted(src, i, mode))
				continue;
			dst->slots[i].file = src->slots[i].file;
			if (mode != FDMAP_COPY_GROW)
				file_get(dst->slots[i].file);
			fdmap_mark_busy(dst, i, src->slots[i].flags);
		}
	}
	return (int)dst->busy;
}

/* The busy slots of @src that copy_busy() skipped become free in @dst, in fd order. */
static void copy_dropped(struct fdmap *dst, const struct fdmap *src)
{
	unsigned int w, i;

	for (w = 0; w < words_for(src->size); w++) {
		unsigned long dropped = src->bits[w] & ~dst->bits[w];

		for (; dropped; dropped &= dropped - 1) {
			i = w * BITS_PER_LONG + (unsigned int)__builtin_ctzl(dropped);
			slot_make_free(dst, i);
		}
	}
}

/*
 * fdmap_copy's common case, a fork's copy of a map of the same size: the
 * slots (free links and all) and both bitmaps as they stand, so the free
 * list keeps its order without a walk; then the fds the copy skips go to
 * its tail in fd order.  Two memcpys and O(busy) work instead of a
 * rebuild slot by slot (its cost: docs/bench.md, fork_exit_wait).
 */
static int copy_same_size(struct fdmap *dst, const struct fdmap *src, int mode)
{
	unsigned int w, i;

	memcpy(dst->slots, src->slots, src->size * sizeof(*src->slots));
	memcpy(dst->bits, src->bits, bitmap_bytes(src->size));
	dst->busy = src->busy;
	dst->lowest = src->lowest;
	dst->free_head = src->free_head;
	dst->free_tail = src->free_tail;
	for (w = 0; w < words_for(src->size); w++) {
		unsigned long busy = src->bits[w];

		for (; busy; busy &= busy - 1) {
			i = w * BITS_PER_LONG + (unsigned int)__builtin_ctzl(busy);
			if (!copy_wanted(src, i, mode))
				fdmap_release(dst, dst->base + i); /* to the tail, in fd order */
			else if (mode != FDMAP_COPY_GROW)
				file_get(dst->slots[i].file);
		}
	}
	return (int)dst->busy;
}

/**
 * fdmap_copy - copy a map into a fresh one (grow, or fork a child)
 * @dst:  [in/out] map from fdmap_alloc() or fdmap_alloc_for_copy() with the
 *                 same base; may be larger or smaller
 * @src:  [in]     map to copy (read under its owner's lock)
 * @mode: [in]     FDMAP_COPY_GROW, FDMAP_COPY_FORK (skip CLOFORK and
 *                 reserved fds, file_get() each copied file), or
 *                 FDMAP_COPY_UNSHARE (the same, CLOFORK fds copied too)
 *
 * The free list of @dst keeps @src's order, then the fds the copy skipped, then
 * slots past @src's size: fds released long ago are still reused first.
 * Returns the number of busy fds copied, or -ENOSPC (nothing changed) when a
 * busy fd of @src lies past @dst's size, -EINVAL when the bases differ.
 */
int fdmap_copy(struct fdmap *dst, const struct fdmap *src, int mode)
{
	unsigned int i, used = (unsigned int)(fdmap_top_open_fd(src) + 1) - src->base;
	int count;

	if (dst->base != src->base)
		return -EINVAL;
	if (used > dst->size)
		return -ENOSPC;
	if (dst->size == src->size)
		return copy_same_size(dst, src, mode);
	memset(dst->bits, 0, bitmap_bytes(dst->size));
	dst->free_head = dst->free_tail = FDMAP_NIL;
	dst->lowest = 0;
	dst->busy = 0; /* copy_busy counts */
	count = copy_busy(dst, src, mode);
	for (i = src->free_head; i != FDMAP_NIL; i = src->slots[i].link.next)
		if (i < dst->size)
			slot_make_free(dst, i);
	copy_dropped(dst, src);
	for (i = src->size; i < dst->size; i++)
		slot_make_free(dst, i);
	return count;
}
