/*
 * flock(): whole-file advisory locks owned by open file descriptions.
 * One list for the whole system, searched linearly: it holds at most one
 * lock per open file, and locks are few in practice.  Linux's semantics,
 * including its non-atomic conversion: a file changing its lock type
 * drops the old lock first, so a failed LOCK_NB upgrade leaves it with
 * none.
 */
#include "fs/locks/flock.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/*
 * A lock: file holds it on key, LOCK_SH or LOCK_EX.  Lifetime: the entry
 * holds no reference to file; it is removed by LOCK_UN, a conversion, or
 * flock_release() when file's last reference goes, so it never outlives
 * the file (nor key, which that file keeps alive).
 */
struct flock_entry {
	struct list_head link; /* on flock_list */
	const void *key;       /* what is locked: the inode, or the file itself */
	struct file *file;
	int type;
};

/* Protects flock_list and every file's flocked bit. */
static struct spinlock flock_lock = SPINLOCK_INIT("flock");
static struct list_head flock_list = LIST_HEAD_INIT(flock_list);
static unsigned long flock_entries; /* under flock_lock */
/* Tasks waiting for a lock; woken whenever one is released. */
static struct wait_queue flock_wait = {SPINLOCK_INIT("flock_wait"),
				       LIST_HEAD_INIT(flock_wait.sleepers)};

static struct flock_entry *find_own(struct file *f)
{
	struct flock_entry *e;

	list_for_each_entry(e, &flock_list, link) if (e->file == f) return e;
	return NULL;
}

static bool conflicts(struct file *f, int type)
{
	const void *key = file_lock_key(f);
	struct flock_entry *e;

	list_for_each_entry(e, &flock_list,
			    link) if (e->key == key && e->file != f &&
				      (type == LOCK_EX || e->type == LOCK_EX)) return true;
	return false;
}

/* Removes e (flock_lock held); the caller frees it and wakes waiters. */
static void unlink_entry(struct flock_entry *e)
{
	list_del(&e->link);
	e->file->flocked = false;
	flock_entries--;
}

/*
 * One attempt: f gets a lock of type (LOCK_SH, LOCK_EX), or loses its own
 * (LOCK_UN).  *spare is a free entry the attempt may take (then NULL);
 * *dropped gets an entry removed, for the caller to free.  0 or
 * -EWOULDBLOCK.
 */
static int flock_try(struct file *f, int type, struct flock_entry **spare,
		     struct flock_entry **dropped)
{
	struct flock_entry *e;
	int err = 0;

	spin_lock(&flock_lock);
	e = find_own(f);
	if (e && e->type == type)
		goto out;
	if (e) {
		unlink_entry(e);
		*dropped = e;
	}
	if (type == LOCK_UN)
		goto out;
	if (conflicts(f, type)) {
		err = -EWOULDBLOCK;
		goto out;
	}
	e = *spare;
	*spare = NULL;
	*e = (struct flock_entry){.key = file_lock_key(f), .file = f, .type = type};
	list_add_tail(&e->link, &flock_list);
	f->flocked = true;
	flock_entries++;
out:
	spin_unlock(&flock_lock);
	return err;
}

/* f's lock becomes type, waiting for it unless nonblock: 0, -EWOULDBLOCK,
 * -ERESTARTSYS (a signal) or -ENOMEM. */
static int flock_file(struct file *f, int type, bool nonblock)
{
	struct flock_entry *spare = NULL, *dropped = NULL;
	int err;

	if (type != LOCK_UN && !(spare = kmalloc(sizeof(*spare))))
		return -ENOMEM;
	err = flock_try(f, type, &spare, &dropped);
	if (dropped)
		wake_up(&flock_wait);
	kfree(dropped);
	/* f's own lock is gone now: later attempts drop nothing. */
	if (err && !nonblock)
		err = wait_event_interruptible(&flock_wait, !flock_try(f, type, &spare, &dropped));
	kfree(spare);
	return err;
}

void flock_release(struct file *f)
{
	struct flock_entry *e;

	spin_lock(&flock_lock);
	if ((e = find_own(f)))
		unlink_entry(e);
	spin_unlock(&flock_lock);
	if (e)
		wake_up(&flock_wait);
	kfree(e);
}

unsigned long flock_count(void)
{
	return __atomic_load_n(&flock_entries, __ATOMIC_RELAXED);
}

SYSCALL_DEFINE2(flock, int, fd, unsigned int, op)
{
	unsigned int type = op & ~LOCK_NB;
	struct file *f;
	int err;

	if (op & LOCK_MAND)
		return 0; /* Linux ignores these obsolete locks */
	if (type != LOCK_SH && type != LOCK_EX && type != LOCK_UN)
		return -EINVAL;
	if (!(f = files_lookup(current()->files, fd)))
		return -EBADF;
	err = flock_file(f, (int)type, op & LOCK_NB);
	file_put(f);
	return err;
}
