/*
 * dnotify (fs/notify/dnotify.h, docs/inotify.md): fcntl(F_NOTIFY) watches, one
 * per open directory file and files table (Linux's dnotify_struct, keyed
 * the same way), chained on the directory's inode; fs/notify/inotify.c's hooks
 * report each event here, and a watch that asked for it makes its file's
 * owner get its signal (fs/fasync.c).
 *
 * Locks: dnotify_lock protects every inode's chain and every watch's
 * fields, and the count; it nests outside fasync_lock and proc_lock (the
 * signal is sent under it).
 *
 * Lifetimes: a watch holds no reference.  Its file is alive while it
 * exists: the files table it is keyed on holds an fd of the file, and
 * closing any fd of the file in that table (dnotify_close, from
 * files_put_closed) removes it; the file's release removes any left
 * (dnotify_release), before the file lets its inode go.  The files table
 * is only compared, never used.  Bounded by the fds: a file has at most
 * one watch per files table holding it.
 */
#include "fs/notify/dnotify.h"
#include "fs/fasync.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

#define WATCHED (IN_ALL_EVENTS | FSN_RENAME)

struct dnotify_watch {
	struct dnotify_watch *next;	 /* the directory's chain */
	struct file *file;		 /* the watching open directory: see above */
	const struct files_table *owner; /* the table it was asked through: compared only */
	int fd;				 /* si_fd: the last fd that asked */
	uint32_t mask;			 /* IN_* events and FSN_RENAME */
	bool multishot;			 /* DN_MULTISHOT: stays after an event */
};

static struct spinlock dnotify_lock = SPINLOCK_INIT("dnotify");
static unsigned long nr_watches; /* dnotify_lock; atomic reads */

unsigned long dnotify_count(void)
{
	return __atomic_load_n(&nr_watches, __ATOMIC_RELAXED);
}

bool dnotify_any(void)
{
	return dnotify_count() != 0;
}

/* DN_* to the events that make them (Linux's convert_arg). */
static uint32_t events_of(unsigned int arg)
{
	return (arg & DN_ACCESS ? IN_ACCESS : 0) | (arg & DN_MODIFY ? IN_MODIFY : 0) |
	       (arg & DN_CREATE ? IN_CREATE | IN_MOVED_TO : 0) |
	       (arg & DN_DELETE ? IN_DELETE | IN_MOVED_FROM : 0) |
	       (arg & DN_RENAME ? FSN_RENAME : 0) | (arg & DN_ATTRIB ? IN_ATTRIB : 0);
}

/* Unchains *pp and frees it (dnotify_lock held). */
static void watch_free_locked(struct dnotify_watch **pp)
{
	struct dnotify_watch *w = *pp;

	__atomic_store_n(pp, w->next, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_watches, nr_watches - 1, __ATOMIC_RELAXED);
	kfree(w);
}

/* Removes f's watches on its directory: the one owner has, or all when
 * owner is NULL. */
static void remove_watches(struct file *f, const struct files_table *owner)
{
	struct dnotify_watch **pp, *w;

	if (!f->inode || !__atomic_load_n(&f->inode->dnotify, __ATOMIC_RELAXED))
		return;
	spin_lock(&dnotify_lock);
	for (pp = &f->inode->dnotify; (w = *pp);) {
		if (w->file == f && (!owner || w->owner == owner))
			watch_free_locked(pp);
		else
			pp = &w->next;
	}
	spin_unlock(&dnotify_lock);
}

void dnotify_close(struct file *f, struct files_table *files)
{
	remove_watches(f, files);
}

void dnotify_release(struct file *f)
{
	remove_watches(f, NULL);
}

void __dnotify_event(struct inode *dir, uint32_t mask)
{
	struct dnotify_watch **pp, *w;

	spin_lock(&dnotify_lock);
	for (pp = &dir->dnotify; (w = *pp);) {
		if (!(w->mask & mask & WATCHED)) {
			pp = &w->next;
			continue;
		}
		fasync_signal(w->file, w->fd, POLL_MSG);
		if (w->multishot)
			pp = &w->next;
		else
			watch_free_locked(pp);
	}
	spin_unlock(&dnotify_lock);
}

/* Adds mask to the watch f has for files on ip, or makes one from spare
 * (*used then); fd becomes its si_fd (dnotify_lock held). */
static void watch_set_locked(struct inode *ip, struct file *f, const struct files_table *files,
			     int fd, unsigned int arg, struct dnotify_watch *spare, bool *used)
{
	struct dnotify_watch *w;

	for (w = ip->dnotify; w; w = w->next) {
		if (w->file == f && w->owner == files) {
			w->fd = fd;
			w->mask |= events_of(arg);
			w->multishot |= (arg & DN_MULTISHOT) != 0;
			return;
		}
	}
	*spare = (struct dnotify_watch){.next = ip->dnotify,
					.file = f,
					.owner = files,
					.fd = fd,
					.mask = events_of(arg),
					.multishot = (arg & DN_MULTISHOT) != 0};
	__atomic_store_n(&ip->dnotify, spare, __ATOMIC_RELEASE);
	__atomic_store_n(&nr_watches, nr_watches + 1, __ATOMIC_RELAXED);
	*used = true;
}

long dnotify_fcntl(struct file *f, int fd, unsigned int arg)
{
	struct files_table *files = current()->files;
	struct dnotify_watch *spare;
	struct file *now;
	bool used = false;
	int err;

	if (!(arg & ~DN_MULTISHOT)) { /* 0: the watch goes, on any file */
		dnotify_close(f, files);
		return 0;
	}
	if (!f->inode || !inode_is_dir(f->inode))
		return -ENOTDIR;
	if (!(spare = kmalloc(sizeof(*spare))))
		return -ENOMEM;
	if ((err = fasync_own_default(f))) {
		kfree(spare);
		return err;
	}
	files_note_close_state(files); /* before the watch exists: files' closes find it */
	spin_lock(&dnotify_lock);
	watch_set_locked(f->inode, f, files, fd, arg, spare, &used);
	spin_unlock(&dnotify_lock);
	if (!used)
		kfree(spare);
	/* Another thread may have closed fd meanwhile, after its close
	 * removed the watch: then it must not stay (Linux's f != filp). */
	now = files_lookup_raw(files, fd);
	if (now)
		file_put(now); /* compared, never used */
	if (now != f)
		dnotify_close(f, files);
	return 0;
}
