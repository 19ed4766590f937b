/*
 * io_uring's registered files: the direct descriptors.  A ring's table is
 * one fdmap (fd/fdmap.h, the seed's structure, of which the
 * non-sequential fd area is made) of exactly as many slots as were
 * registered, slot i being direct descriptor i: a private descriptor
 * space beside the process's table, which never disturbs its lowest-fd
 * rule.  IORING_FILE_INDEX_ALLOC takes the head of the map's free list,
 * O(1), as O_NONSEQFD does in the process's table; a FILE_ALLOC_RANGE
 * narrower than the table takes the lowest free slot of the range (the
 * map's bitmap search).  A busy slot always holds a file.  docs/async.md.
 *
 * Errors and their order are Linux's (io_uring/rsrc.c, filetable.c,
 * io_uring_register(2)).  A request on a direct descriptor takes its own
 * reference to the slot's file at its issue, so a slot changed or the
 * table dropped meanwhile never pulls a file from under a running call.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_rsrc.h"
#include "fd/fdmap.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* Every ring's slots together, so that rings times RLIMIT_NOFILE cannot
 * exhaust the heap: 16 MiB of maps and 8 MiB of tags (ENOMEM beyond). */
#define FIXED_SLOTS_MAX (1UL << 20)

static unsigned long fixed_slots; /* atomic: the slots of every live table */

unsigned long io_fixed_slot_count(void)
{
	return __atomic_load_n(&fixed_slots, __ATOMIC_RELAXED);
}

static bool slots_charge(uint32_t nr)
{
	if (__atomic_add_fetch(&fixed_slots, nr, __ATOMIC_RELAXED) <= FIXED_SLOTS_MAX)
		return true;
	__atomic_sub_fetch(&fixed_slots, nr, __ATOMIC_RELAXED);
	return false;
}

/* A new table of nr empty slots, charged, or NULL (ENOMEM). */
static bool table_alloc(struct io_ftable *t, uint32_t nr)
{
	if (!slots_charge(nr))
		return false;
	t->map = fdmap_alloc(0, nr);
	t->tags = t->map ? kzalloc(nr * sizeof(*t->tags)) : NULL;
	if (!t->tags) {
		if (t->map)
			fdmap_free(t->map);
		__atomic_sub_fetch(&fixed_slots, nr, __ATOMIC_RELAXED);
		return false;
	}
	t->alloc_off = 0;
	t->alloc_end = nr;
	return true;
}

/* A removed file: its reference goes, and its tag's CQE (FILES2,
 * UPDATE2) is posted when the ring is still there to read it. */
static void slot_drop(struct io_ring *ring, struct file *f, uint64_t tag, bool post)
{
	if (f)
		file_put(f);
	if (f && tag && post)
		io_post_cqe(ring, tag, 0, 0, true);
}

/* Frees a table no one reaches any more (detached, or never published). */
static void table_free(struct io_ring *ring, struct io_ftable *t, bool post)
{
	for (uint32_t i = 0; i < t->map->size; i++)
		if (fdmap_busy(t->map, i))
			slot_drop(ring, fdmap_release(t->map, i), t->tags[i], post);
	__atomic_sub_fetch(&fixed_slots, t->map->size, __ATOMIC_RELAXED);
	fdmap_free(t->map);
	kfree(t->tags);
	*t = (struct io_ftable){0};
}

/* Empties slot i (files_lock): its file and tag, for slot_drop. */
static struct file *slot_clear(struct io_ftable *t, uint32_t i, uint64_t *tag)
{
	*tag = t->tags[i];
	t->tags[i] = 0;
	return fdmap_busy(t->map, i) ? fdmap_release(t->map, i) : NULL;
}

/* Puts f (the table's reference now) in slot i, returning the file it
 * replaces (files_lock), whose tag goes to *tag. */
static struct file *slot_set(struct io_ftable *t, uint32_t i, struct file *f, uint64_t tag,
			     uint64_t *old_tag)
{
	bool busy = fdmap_busy(t->map, i); /* busy: a file, or slot_alloc's */
	struct file *old = busy ? fdmap_file(t->map, i) : NULL;

	*old_tag = t->tags[i];
	if (!busy)
		(void)fdmap_alloc_exact(t->map, i, 0);
	fdmap_install(t->map, i, f);
	t->tags[i] = tag;
	return old;
}

/* The file on the caller's fd, for a slot, or NULL (-EBADF) for none
 * (O_PATH ones included, as Linux's fget) and for an io_uring, which
 * could hold itself alive. */
static struct file *file_for_slot(int fd)
{
	struct file *f = files_lookup(current()->files, fd);

	if (f && io_ring_of(f)) {
		file_put(f);
		f = NULL;
	}
	return f;
}

/* REGISTER_FILES, FILES2: nr fds (-1, or ufds NULL: an empty slot) with
 * their tags (utags may be NULL).  All or nothing. */
int io_files_register(struct io_ring *ring, const int32_t *ufds, const uint64_t *utags, uint32_t nr)
{
	struct io_ftable t;
	uint64_t tag = 0;
	int32_t fd = -1;
	int err = 0;

	if (ring->files.map)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > IORING_MAX_FIXED_FILES || nr > files_get_nofile(current()->files))
		return -EMFILE;
	if (!table_alloc(&t, nr))
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !err; i++) {
		struct file *f;
		uint64_t none;

		if ((utags && copy_from_user(&tag, &utags[i], sizeof(tag))) ||
		    (ufds && copy_from_user(&fd, &ufds[i], sizeof(fd)))) {
			err = -EFAULT;
		} else if (!ufds || fd == -1) {
			err = tag ? -EINVAL : 0; /* a tag needs a file */
		} else if (!(f = file_for_slot(fd))) {
			err = -EBADF;
		} else {
			slot_set(&t, i, f, tag, &none);
		}
	}
	if (err) {
		memset(t.tags, 0, nr * sizeof(*t.tags)); /* Linux: no tag CQEs */
		table_free(ring, &t, false);
		return err;
	}
	spin_lock_task(&ring->files_lock);
	ring->files = t;
	spin_unlock_task(&ring->files_lock);
	return 0;
}

/* Detaches the table and frees it: UNREGISTER_FILES and the ring's end. */
static int files_drop(struct io_ring *ring, bool post)
{
	struct io_ftable t;

	spin_lock_task(&ring->files_lock);
	t = ring->files;
	ring->files = (struct io_ftable){0};
	spin_unlock_task(&ring->files_lock);
	if (!t.map)
		return -ENXIO;
	table_free(ring, &t, post);
	return 0;
}

int io_files_unregister(struct io_ring *ring)
{
	return files_drop(ring, true);
}

void io_files_release(struct io_ring *ring)
{
	(void)files_drop(ring, false);
}

/*
 * FILES_UPDATE, FILES_UPDATE2: slots off.. from nr fds (-1 empties,
 * IORING_REGISTER_FILES_SKIP leaves), each slot emptied before its new
 * fd is looked up, as Linux.  The number of entries done, or the error
 * of the first if none was.  The caller holds submit_lock (checked), so
 * the table stays: unregistered or replaced by a smaller one meanwhile,
 * its slots would be written past its end; the ops that install or
 * close slots take files_lock too.
 */
int io_files_update(struct io_ring *ring, uint32_t off, const int32_t *ufds, const uint64_t *utags,
		    uint32_t nr)
{
	struct io_ftable *t = &ring->files;
	uint32_t done;
	int err = 0;

	kassert(mutex_held(&ring->submit_lock));
	if (off + nr < off)
		return -EOVERFLOW;
	if (!t->map)
		return -ENXIO;
	if (off + nr > t->map->size)
		return -EINVAL;
	for (done = 0; done < nr; done++) {
		uint64_t tag = 0, old_tag;
		struct file *f, *old;
		int32_t fd;

		if ((utags && copy_from_user(&tag, &utags[done], sizeof(tag))) ||
		    copy_from_user(&fd, &ufds[done], sizeof(fd))) {
			err = -EFAULT;
			break;
		}
		if ((fd == IORING_REGISTER_FILES_SKIP || fd == -1) && tag) {
			err = -EINVAL;
			break;
		}
		if (fd == IORING_REGISTER_FILES_SKIP)
			continue;
		spin_lock_task(&ring->files_lock);
		old = slot_clear(t, off + done, &old_tag);
		spin_unlock_task(&ring->files_lock);
		slot_drop(ring, old, old_tag, true);
		if (fd == -1)
			continue;
		if (!(f = file_for_slot(fd))) {
			err = -EBADF;
			break;
		}
		spin_lock_task(&ring->files_lock);
		old = slot_set(t, off + done, f, tag, &old_tag);
		spin_unlock_task(&ring->files_lock);
		slot_drop(ring, old, old_tag, true); /* a direct open got there first */
	}
	return done ? (int)done : err;
}

int io_files_alloc_range(struct io_ring *ring, const struct io_uring_file_index_range *urange)
{
	struct io_uring_file_index_range r;
	uint32_t end;

	if (copy_from_user(&r, urange, sizeof(r)))
		return -EFAULT;
	if (__builtin_add_overflow(r.off, r.len, &end))
		return -EOVERFLOW;
	if (r.resv || end > (ring->files.map ? ring->files.map->size : 0))
		return -EINVAL;
	spin_lock_task(&ring->files_lock);
	ring->files.alloc_off = r.off;
	ring->files.alloc_end = end;
	spin_unlock_task(&ring->files_lock);
	return 0;
}

struct file *io_fixed_get(struct io_ring *ring, uint32_t index)
{
	struct file *f = NULL;

	spin_lock_task(&ring->files_lock);
	if (ring->files.map && (f = fdmap_file(ring->files.map, index)))
		file_get(f);
	spin_unlock_task(&ring->files_lock);
	return f;
}

/* A free slot of the allocation range (files_lock), or -ENFILE. */
static int slot_alloc(struct io_ftable *t)
{
	int i;

	if (!t->map || t->alloc_off >= t->alloc_end)
		return -ENFILE;
	if (t->alloc_off == 0 && t->alloc_end == t->map->size)
		i = fdmap_alloc_free(t->map, 0);
	else
		i = fdmap_alloc_lowest(t->map, t->alloc_off, t->alloc_end, 0);
	return i < 0 ? -ENFILE : i; /* busy without a file until slot_set */
}

/*
 * The file an OPENAT, ACCEPT or SOCKET made into direct descriptor
 * file_index (1-based; IORING_FILE_INDEX_ALLOC: a free slot).  Takes
 * over f's reference.  0, the slot allocated, or -ENFILE (none free or
 * no table, for ALLOC), -ENXIO (no table), -EINVAL (past the table).
 */
long io_fixed_install(struct io_ring *ring, uint32_t file_index, struct file *f)
{
	bool alloc = file_index == IORING_FILE_INDEX_ALLOC;
	struct io_ftable *t = &ring->files;
	struct file *old = NULL;
	uint64_t old_tag = 0;
	long res;

	spin_lock_task(&ring->files_lock);
	if (alloc)
		res = slot_alloc(t);
	else
		res = !t->map			       ? -ENXIO
		      : file_index - 1 >= t->map->size ? -EINVAL
						       : (long)(file_index - 1);
	if (res >= 0)
		old = slot_set(t, (uint32_t)res, f, 0, &old_tag);
	spin_unlock_task(&ring->files_lock);
	if (res < 0) {
		file_put(f);
		return res;
	}
	slot_drop(ring, old, old_tag, true);
	return alloc ? res : 0;
}

/* Linux's order: no table ENXIO first; then per fd EFAULT, EBADF, ENFILE
 * (no free slot), and EFAULT writing the slot back, which gives the slot
 * up again. */
long io_files_update_alloc(struct io_ring *ring, int32_t *ufds, uint32_t nr)
{
	uint32_t done;
	long res = 0;
	bool table;

	spin_lock_task(&ring->files_lock);
	table = ring->files.map != NULL;
	spin_unlock_task(&ring->files_lock);
	if (!table)
		return -ENXIO;
	for (done = 0; done < nr; done++) {
		struct file *f;
		int32_t fd;

		if (copy_from_user(&fd, &ufds[done], sizeof(fd))) {
			res = -EFAULT;
			break;
		}
		if (!(f = file_for_slot(fd))) {
			res = -EBADF;
			break;
		}
		if ((res = io_fixed_install(ring, IORING_FILE_INDEX_ALLOC, f)) < 0)
			break;
		fd = (int32_t)res; /* the slot */
		if (copy_to_user(&ufds[done], &fd, sizeof(fd))) {
			io_fixed_remove(ring, (uint32_t)fd);
			res = -EFAULT;
			break;
		}
	}
	return done ? (long)done : res;
}

/* CLOSE of direct descriptor index: 0, -ENXIO, -EINVAL, -EBADF (empty). */
long io_fixed_remove(struct io_ring *ring, uint32_t index)
{
	struct io_ftable *t = &ring->files;
	struct file *old = NULL;
	uint64_t tag = 0;
	long res;

	spin_lock_task(&ring->files_lock);
	res = !t->map ? -ENXIO : index >= t->map->size ? -EINVAL : 0;
	if (!res && !(old = slot_clear(t, index, &tag)))
		res = -EBADF;
	spin_unlock_task(&ring->files_lock);
	slot_drop(ring, old, tag, true);
	return res;
}
