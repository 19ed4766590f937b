/*
 * io_uring's registered rings (IORING_REGISTER_RING_FDS): a task keeps up
 * to IO_RINGFD_MAX of its rings' files in a table of its own, and
 * io_uring_enter with IORING_ENTER_REGISTERED_RING (or io_uring_register
 * with IORING_REGISTER_USE_REGISTERED_RING) names one by its index
 * rather than an fd: no lookup in the files table, no reference.  Per
 * task, as Linux's (io_uring_task): a thread or a child has a table of
 * its own, empty; the task's exit and exec drop it.  Only the task
 * itself reads or changes its table, so no lock.  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring.h"
#include "async/io_uring_int.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* A free index from start to end (excluded) given f: the index, or
 * -EBUSY. */
static int ringfd_add(struct file **t, struct file *f, uint32_t start, uint32_t end)
{
	for (uint32_t i = start; i < end; i++)
		if (!t[i]) {
			t[i] = f;
			return (int)i;
		}
	return -EBUSY;
}

/* One entry: ring fd up->data at index up->offset (-1: the first free);
 * the index, or Linux's -errno (EINVAL, EBADF, EOPNOTSUPP for a file
 * that is no ring, EBUSY). */
static int ringfd_register_one(struct file **t, const struct io_uring_rsrc_update *up)
{
	uint32_t start = 0, end = IO_RINGFD_MAX;
	struct file *f;
	int idx;

	if (up->resv)
		return -EINVAL;
	if (up->offset != UINT32_MAX) {
		if (up->offset >= IO_RINGFD_MAX)
			return -EINVAL;
		start = up->offset;
		end = start + 1;
	}
	if (!(f = files_lookup(current()->files, (int)up->data)))
		return -EBADF;
	if (!io_ring_of(f)) {
		file_put(f);
		return -EOPNOTSUPP;
	}
	if ((idx = ringfd_add(t, f, start, end)) < 0) /* the table takes f's reference */
		file_put(f);
	return idx;
}

/* REGISTER_RING_FDS: nr entries, each index written back to its offset;
 * how many were registered, or the first one's -errno. */
int io_ringfd_register(struct io_uring_rsrc_update *uarg, uint32_t nr)
{
	struct task *task = current();
	struct io_uring_rsrc_update up;
	uint32_t i;
	int ret = 0;

	if (!nr || nr > IO_RINGFD_MAX)
		return -EINVAL;
	if (!task->uring_rings &&
	    !(task->uring_rings = kzalloc(IO_RINGFD_MAX * sizeof(struct file *))))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (copy_from_user(&up, &uarg[i], sizeof(up))) {
			ret = -EFAULT;
			break;
		}
		if ((ret = ringfd_register_one(task->uring_rings, &up)) < 0)
			break;
		up.offset = (uint32_t)ret;
		if (copy_to_user(&uarg[i], &up, sizeof(up))) {
			file_put(task->uring_rings[up.offset]);
			task->uring_rings[up.offset] = NULL;
			ret = -EFAULT;
			break;
		}
	}
	return i ? (int)i : ret;
}

/* UNREGISTER_RING_FDS: nr entries, each an index (data and resv 0);
 * an empty index is no error.  How many, or the first one's -errno. */
int io_ringfd_unregister(const struct io_uring_rsrc_update *uarg, uint32_t nr)
{
	struct file **t = current()->uring_rings;
	struct io_uring_rsrc_update up;
	uint32_t i;
	int ret = 0;

	if (!nr || nr > IO_RINGFD_MAX)
		return -EINVAL;
	if (!t)
		return 0;
	for (i = 0; i < nr; i++) {
		if (copy_from_user(&up, &uarg[i], sizeof(up))) {
			ret = -EFAULT;
			break;
		}
		if (up.resv || up.data || up.offset >= IO_RINGFD_MAX) {
			ret = -EINVAL;
			break;
		}
		if (t[up.offset]) {
			file_put(t[up.offset]);
			t[up.offset] = NULL;
		}
	}
	return i ? (int)i : ret;
}

struct file *io_ringfd_get(unsigned int index, long *err)
{
	struct file **t = current()->uring_rings;

	if (index >= IO_RINGFD_MAX) {
		*err = -EINVAL;
		return NULL;
	}
	*err = -EBADF;
	return t ? t[index] : NULL;
}

void io_uring_task_exit(struct task *t)
{
	struct file **rings = t->uring_rings;

	if (!rings)
		return;
	t->uring_rings = NULL;
	for (int i = 0; i < IO_RINGFD_MAX; i++)
		if (rings[i])
			file_put(rings[i]);
	kfree(rings);
}
