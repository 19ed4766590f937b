/*
 * fdmap: one area of file descriptors [base, base + size), after Davide
 * Libenzi's fdmap v2.  O(1) free-list, exact and lookup; bitmap lowest-free.
 *
 * Every slot is free (on the free list) or busy (carries flags and a file
 * pointer, NULL while the fd is reserved but not installed).  Writers hold the
 * owner's lock (fdtable.c); fdmap_file() alone is safe without it.  See
 * docs/fdmap.md for the invariants.
 */
#ifndef FS_FDMAP_H
#define FS_FDMAP_H

#include "fdflags.h"
#include "fdmap_port.h"

/*
 * struct file's reference count is kernel/fs/file.h's (a fake in
 * tests/unit; fdmap_port.h brings either): file_get takes a reference;
 * file_put drops one (the last frees the file, after a grace period, since
 * lock-free readers may still hold the pointer); file_tryget takes one
 * unless the count already reached zero (true on success; it must act as
 * an acquire barrier).
 */

/*
 * A slot's flags: the fd flags it keeps (FDF_CLOEXEC, FDF_CLOFORK:
 * fdflags.h) and FDMAP_F_BUSY.
 */
#define FDMAP_F_BUSY (1u << 3) /* slot allocated; never cleared by set_flags */
_Static_assert(!(FDMAP_F_BUSY & FDF_ALL), "FDMAP_F_BUSY is no fd flag");

/* fdmap_copy() modes. */
#define FDMAP_COPY_GROW 0 /* same table, bigger map: copy every busy slot as is */
#define FDMAP_COPY_FORK 1 /* child: skip CLOFORK and reserved fds, file_get() the rest */
#define FDMAP_COPY_UNSHARE                                                                         \
	2 /* private copy of a shared table: skip reserved fds, file_get() the rest */

/* Largest map: enough for NR_OPEN_MAX and NONSEQ_FD_MAX with room to spare. */
#define FDMAP_MAX_SIZE (1u << 24)

#define FDMAP_NIL UINT32_MAX /* end of the free list */

/*
 * One fd.  16 bytes: lock-free readers look only at @file, so the free-list
 * links never alias a pointer a reader could dereference.
 */
struct fdmap_slot {
	struct file *file; /* busy: installed file or NULL (reserved); free: NULL */
	union {
		uint32_t flags; /* busy: FDMAP_F_BUSY | FDF_KEPT bits */
		struct {
			uint32_t next, prev; /* free: neighbours on the free list, or FDMAP_NIL */
		} link;
	};
};

/*
 * The map.  base and size never change once it is published, so a reader
 * that loaded the map pointer may use them freely.  Everything else is
 * written only under the owner's lock.
 */
struct fdmap {
	unsigned int base;	  /* first fd of the area */
	unsigned int size;	  /* number of slots */
	unsigned int busy;	  /* busy slots (reserved ones included) */
	unsigned int lowest;	  /* no free slot below this index (a hint for lowest-free) */
	uint32_t free_head;	  /* allocated first (FDMAP_NIL when the list is empty) */
	uint32_t free_tail;	  /* released slots go here: reused last */
	unsigned long *bits;	  /* bit i set iff slot i is busy */
	unsigned long *full;	  /* bit w set only if bits[w] is all ones (lowest-free summary,
				   * set lazily by the search: fdmap.c find_free) */
	struct fdmap_slot *slots; /* size slots */
	struct grace_head grace;  /* waits for a grace period once replaced */
};

/* Allocate a map covering [base, base + size) with every slot free in index order. */
struct fdmap *fdmap_alloc(unsigned int base, unsigned int size);
/* A map for fdmap_copy() to fill (its slots uninitialised until then). */
struct fdmap *fdmap_alloc_for_copy(unsigned int base, unsigned int size);
/* Free a map no reader can hold any more. */
void fdmap_free(struct fdmap *map);
/* Free a map after a grace period (grace_defer): lock-free readers that
 * loaded the pointer before it was replaced may still read it. */
void fdmap_free_deferred(struct fdmap *map);

int fdmap_alloc_exact(struct fdmap *map, unsigned int fd, unsigned int flags);
int fdmap_alloc_lowest(struct fdmap *map, unsigned int start, unsigned int limit,
		       unsigned int flags);
struct file *fdmap_release(struct fdmap *map, unsigned int fd);
unsigned int fdmap_get_flags(const struct fdmap *map, unsigned int fd);
int fdmap_set_flags(struct fdmap *map, unsigned int fd, unsigned int clear, unsigned int set);
void fdmap_for_each_file(struct fdmap *map, bool take,
			 int (*fn)(void *arg, struct file *file, unsigned int fd), void *arg);
bool fdmap_next_flag_set(struct fdmap *map, unsigned int flag, bool clear, unsigned int *pos,
			 unsigned int *base, unsigned long *set);
int fdmap_top_open_fd(const struct fdmap *map);
int fdmap_next_busy(const struct fdmap *map, unsigned int fd);
int fdmap_copy(struct fdmap *dst, const struct fdmap *src, int mode);

/**
 * fdmap_file - the file installed on @fd; safe without the lock
 * @map: [in] the map, loaded with acquire (or under the lock)
 * @fd:  [in] any fd
 *
 * Returns the file (no reference taken), or NULL if @fd is outside the area,
 * free, or reserved but not installed.  Inline: every fd lookup runs it.
 */
static inline struct file *fdmap_file(const struct fdmap *map, unsigned int fd)
{
	unsigned int i = fd - map->base;

	if (i >= map->size)
		return NULL;
	/* Acquire pairs with the release in fdmap_install(): the file's fields are visible. */
	return __atomic_load_n(&map->slots[i].file, __ATOMIC_ACQUIRE);
}

/* fdmap_install by slot index. */
static inline void fdmap_install_slot(struct fdmap *map, unsigned int i, struct file *file)
{
	/*
	 * Release: whoever set the file up wrote its fields before this store,
	 * and a reader's acquire load in fdmap_file() must see them.  A reader
	 * sees the old pointer or the new one, never a mix.
	 */
	__atomic_store_n(&map->slots[i].file, file, __ATOMIC_RELEASE);
}

/**
 * fdmap_install - store a file on a busy fd
 * @map:  [in] the map
 * @fd:   [in] busy fd (reserved, or installed: then the caller handles the old file)
 * @file: [in] the file; the map takes over the caller's reference
 *
 * Inline: every fd creation runs it under the files lock.
 */
static inline void fdmap_install(struct fdmap *map, unsigned int fd, struct file *file)
{
	fdmap_install_slot(map, fd - map->base, file);
}

/*
 * Free slot @i, already off the free list, becomes busy with @flags: its
 * busy bit, its flags, the count.  The bit is one bts on the bitmap taken
 * as a string of bits, as Linux's __set_bit (not atomic: under the lock):
 * the word index, shift and or it replaces needed three more registers,
 * which cost the non-sequential dup's leaf a saved register (docs/bench.md).
 * The operand names the whole bitmap, which the bit may be anywhere in.
 */
static inline void fdmap_mark_busy(struct fdmap *map, unsigned int i, unsigned int flags)
{
	asm("btsl %1, %0"
	    : "+m"(*(unsigned long(*)[FDMAP_MAX_SIZE / (8 * sizeof(long))]) map->bits)
	    : "r"(i));
	map->slots[i].flags = FDMAP_F_BUSY | (flags & FDF_KEPT);
	map->busy++;
}

/*
 * The head of the free list, which must not be empty, made busy with
 * @flags; returns its slot index.  Inline, the whole of a non-sequential
 * allocation: the seed's cheapest fd path calls nothing (docs/bench.md).
 * The lowest hint stays where it is: taking a slot never puts a free one
 * below it.
 */
static inline unsigned int fdmap_take_head(struct fdmap *map, unsigned int flags)
{
	uint32_t i = map->free_head, next = map->slots[i].link.next;

	map->free_head = next;
	if (next == FDMAP_NIL)
		map->free_tail = FDMAP_NIL;
	else
		map->slots[next].link.prev = FDMAP_NIL;
	fdmap_mark_busy(map, i, flags);
	return i;
}

/**
 * fdmap_alloc_free - allocate the fd at the head of the free list ("non-sequential")
 * @map:   [in] the map
 * @flags: [in] FDF_CLOEXEC / FDF_CLOFORK for the new fd
 *
 * Returns the fd (reserved: no file yet), or -ENOSPC if the free list is empty.
 */
static inline int fdmap_alloc_free(struct fdmap *map, unsigned int flags)
{
	if (map->free_head == FDMAP_NIL)
		return -ENOSPC;
	return (int)(map->base + fdmap_take_head(map, flags));
}

/* Does @fd fall inside the area @map covers? */
static inline bool fdmap_covers(const struct fdmap *map, unsigned int fd)
{
	return fd - map->base < map->size;
}

/* Is @fd (inside the area) allocated? */
static inline bool fdmap_busy(const struct fdmap *map, unsigned int fd)
{
	unsigned int i = fd - map->base;

	return (map->bits[i / (8 * sizeof(long))] >> (i % (8 * sizeof(long)))) & 1;
}

#endif
