/*
 * Open files: allocation and the reference count that fds, fork copies and
 * in-flight syscalls share.  The last put releases the file at once; its
 * memory waits for a grace period because lock-free fd lookups may still hold
 * the pointer and try (and fail) to take a reference.
 */
#include "fs/file.h"
#include "fs/event/eventpoll.h"
#include "fs/fasync.h"
#include "fs/locks/flock.h"
#include "fs/notify/fsnotify.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/locks/lease.h"
#include "fs/proc/proc_sys.h"
#include "fs/locks/reclock.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/heap.h"
#include "sched/grace.h"
#include <uapi/inotify.h>

static unsigned long live_files; /* atomic */

/*
 * /proc/sys/fs/file-max: the most open files the kernel will allocate.
 * Nothing limits them but memory here (Linux's own limit spares root, the
 * only user), so it is how many struct files the usable memory holds;
 * read-only.
 */
static long file_max_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	(void)row;
	return snprintk(buf, size, "%lu\n",
			(unsigned long)frame_total_count() * PAGE_SIZE / sizeof(struct file));
}
PROC_SYS_ROW(file_max_row, .path = "fs/file-max", .mode = 0444, .show = file_max_show);

/**
 * file_alloc - a new open file
 * @ops:   [in] what the file is (its operations table)
 * @flags: [in] O_ACCMODE | O_APPEND | O_NONBLOCK | O_ASYNC status flags
 * @priv:  [in] the implementation's state
 *
 * Returns the file with one reference, or NULL when memory runs out.
 */
struct file *file_alloc(const struct file_ops *ops, unsigned int flags, void *priv)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->refcount = 1;
	f->flags = flags;
	f->ops = ops;
	f->priv = priv;
	mutex_init(&f->pos_lock, "file_pos");
	list_init(&f->ep_links);
	__atomic_add_fetch(&live_files, 1, __ATOMIC_RELAXED);
	return f;
}

/* Acquire on success: the file's fields are read after the slot re-check. */
bool file_tryget(struct file *f)
{
	uint32_t old = __atomic_load_n(&f->refcount, __ATOMIC_RELAXED);

	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&f->refcount, &old, old + 1, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void file_free_after_grace(struct grace_head *head)
{
	kfree(container_of(head, struct file, grace));
}

/*
 * Acq-rel: every use of the file by other holders happens before release.
 * The struct itself waits for a grace period: a lock-free fd lookup that
 * loaded the pointer before the fd was closed may still try file_tryget.
 */
void file_put(struct file *f)
{
	if (__atomic_sub_fetch(&f->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	eventpoll_release(f); /* off every epoll first: they poll f's state */
	if (f->inode)
		fsnotify_file(f, file_can_write(f) ? IN_CLOSE_WRITE : IN_CLOSE_NOWRITE);
	dnotify_release(f); /* its watches use its owner state: before that goes */
	lease_release(f);   /* so does its lease; before release puts the inode */
	fasync_release(f);  /* off its object's list before release drops it */
	if (f->flocked)	    /* no one else can lock it now */
		flock_release(f);
	reclock_release(f); /* its open-file-description locks */
	if (f->ops && f->ops->release)
		f->ops->release(f);
	if (f->mnt_writer)
		__atomic_sub_fetch(&f->mnt->writers, 1, __ATOMIC_RELAXED);
	mnt_put(f->mnt);
	if (f->dir)
		inode_put(f->dir);
	kfree(f->name);
	__atomic_sub_fetch(&live_files, 1, __ATOMIC_RELAXED);
	grace_defer(&f->grace, file_free_after_grace);
}

unsigned long file_count(void)
{
	return __atomic_load_n(&live_files, __ATOMIC_RELAXED);
}
