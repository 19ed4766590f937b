/*
 * inotify (docs/inotify.md): watches on ramfs inodes, their events queued
 * on an inotify fd, read as struct inotify_event records.  The VFS and the
 * ramfs report events through fs/notify/fsnotify.h; this file turns them into
 * queued records, and holds the three system calls and the fd.
 *
 * Locks: inotify_lock (global) protects every watch (its inode, mask and
 * wd), every inode's chain of watches and every group's list of them, and
 * the system-wide counts; a group's lock protects its event queue and
 * nests inside inotify_lock, and a wait queue's lock inside that.
 *
 * Lifetimes: a watch belongs to its group, which frees it when it is
 * removed (inotify_rm_watch, IN_ONESHOT, the group's release), when its
 * file is gone (fsnotify_unlinked: no name and no user but the watches)
 * or when its instance leaves its last mount (fsnotify_sb_unmount).  The
 * watches of an inode hold one reference on it together (Linux's mark
 * connector's), taken with the first and given back, after inotify_lock
 * is dropped, by whoever destroys the last (watch_destroy_locked hands it
 * over), so a holder of inotify_lock may use watch->inode.  A group
 * lives as long as its file; events hold no references at all (a name is
 * copied).
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fs/notify/fsnotify.h"
#include "fs/notify/inotify.h"
#include "fs/notify/dnotify.h"
#include "fs/event/poll.h"
#include "fs/proc/proc_sys.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/list.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>
#include <uapi/ioctl.h>
#include <uapi/poll.h>

#define EVENT_SIZE  sizeof(struct inotify_event)
#define IN_FD_FLAGS (IN_CLOEXEC | IN_CLOFORK)
#define WATCH_FLAGS                                                                                \
	(IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_CREATE | IN_MASK_ADD | IN_ONESHOT)
#define ALWAYS_SENT (IN_IGNORED | IN_Q_OVERFLOW | IN_UNMOUNT) /* whatever the mask */

/* The limits of /proc/sys/fs/inotify (Linux's defaults; counted for all
 * users together here, not per user: docs/security.md),
 * written there by root (atomically), read when they apply. */
int inotify_max_user_instances = 128;
int inotify_max_user_watches = 8192;
int inotify_max_queued_events = 16384;

#define INOTIFY_ROW(row, file, var)                                                                \
	PROC_SYS_ROW(row, .path = "fs/inotify/" file, .mode = 0644, .show = proc_sys_int_show,     \
		     .store = proc_sys_int_store, .data = &var, .min = 0, .max = INT32_MAX)
INOTIFY_ROW(instances_row, "max_user_instances", inotify_max_user_instances);
INOTIFY_ROW(watches_row, "max_user_watches", inotify_max_user_watches);
INOTIFY_ROW(events_row, "max_queued_events", inotify_max_queued_events);

/* A limit's value now (a negative one never is: the row's bounds). */
static unsigned int limit(const int *var)
{
	return (unsigned int)__atomic_load_n(var, __ATOMIC_RELAXED);
}

struct inotify_watch {
	struct inotify_watch *next_on_inode; /* the inode's chain */
	struct list_head in_group;	     /* group->watches */
	struct inotify_group *group;	     /* constant: the group frees the watch */
	struct inode *inode;		     /* NULL once detached */
	uint32_t mask;			     /* IN_* events and IN_ONESHOT, IN_EXCL_UNLINK */
	int wd;
};

/* A queued event: its record and name (len bytes, NUL-padded). */
struct inotify_kevent {
	struct list_head link;
	struct inotify_event ev;
	char name[];
};

struct inotify_group {
	/* Protects events, nevents, bytes and the overflow event's place;
	 * woken on wq. */
	struct spinlock lock;
	struct list_head events; /* struct inotify_kevent, oldest first */
	unsigned int nevents;	 /* queued; at most max_events, + the overflow event */
	unsigned int max_events; /* inotify_max_queued_events when created */
	size_t bytes;		 /* FIONREAD: the records and their names (atomic reads) */
	/* IN_Q_OVERFLOW, made with the group so that it can always be
	 * queued; queued (overflowed) at most once at a time. */
	struct inotify_kevent *overflow;
	bool overflowed;
	struct wait_queue wq; /* readers, pollers, epoll */
	/* Under inotify_lock. */
	struct list_head watches; /* struct inotify_watch */
	int last_wd;		  /* wds count up from 1, as Linux's idr */
};

static struct spinlock inotify_lock = SPINLOCK_INIT("inotify");
static unsigned int nr_groups, nr_watches; /* inotify_lock */
static unsigned long live_events;	   /* atomic: leak accounting */
static uint32_t last_cookie;		   /* atomic */

unsigned long inotify_watch_count(void)
{
	return __atomic_load_n(&nr_watches, __ATOMIC_RELAXED);
}

unsigned long inotify_event_count(void)
{
	return __atomic_load_n(&live_events, __ATOMIC_RELAXED);
}

uint32_t fsnotify_cookie(void)
{
	uint32_t c;

	while (!(c = __atomic_add_fetch(&last_cookie, 1, __ATOMIC_RELAXED)))
		;
	return c;
}

void fsnotify_move(struct inode *from, const char *fname, size_t flen, struct inode *to,
		   const char *tname, size_t tlen, struct inode *ip)
{
	uint32_t cookie = fsnotify_cookie();

	if (from == to)
		fsnotify_name(from, ip, FSN_RENAME, fname, flen, 0);
	fsnotify_name(from, ip, IN_MOVED_FROM, fname, flen, cookie);
	fsnotify_name(to, ip, IN_MOVED_TO, tname, tlen, cookie);
	fsnotify_inode(ip, IN_MOVE_SELF);
}

/* ---- The event queue ---- */

/* Linux's record length: the name with its NUL, rounded up to a record. */
static uint32_t padded_len(size_t len)
{
	return len ? (uint32_t)((len + 1 + EVENT_SIZE - 1) / EVENT_SIZE * EVENT_SIZE) : 0;
}

static void free_event(struct inotify_kevent *e)
{
	kfree(e);
	__atomic_sub_fetch(&live_events, 1, __ATOMIC_RELAXED);
}

static struct inotify_kevent *new_event(int wd, uint32_t mask, uint32_t cookie, const char *name,
					size_t len)
{
	uint32_t plen = padded_len(len);
	struct inotify_kevent *e = kzalloc(sizeof(*e) + plen);

	if (!e)
		return NULL;
	e->ev = (struct inotify_event){wd, mask, cookie, plen};
	memcpy(e->name, name, len);
	__atomic_add_fetch(&live_events, 1, __ATOMIC_RELAXED);
	return e;
}

static bool same_event(const struct inotify_kevent *a, const struct inotify_kevent *b)
{
	return a->ev.wd == b->ev.wd && a->ev.mask == b->ev.mask && a->ev.cookie == b->ev.cookie &&
	       a->ev.len == b->ev.len && !memcmp(a->name, b->name, a->ev.len);
}

/* Appends e to g's queue (g->lock held), as Linux's fsnotify_add_event:
 * a full queue (or no memory for e) gets the one IN_Q_OVERFLOW event if
 * it is not queued already, and e is lost; e repeating the last event is
 * merged away. */
static void queue_locked(struct inotify_group *g, struct inotify_kevent *e)
{
	struct inotify_kevent *last =
	    list_empty(&g->events) ? NULL : list_entry(g->events.prev, struct inotify_kevent, link);

	if (!e || g->nevents >= g->max_events) {
		if (e)
			free_event(e);
		if (g->overflowed)
			return;
		e = g->overflow;
		g->overflowed = true;
	} else if (last && same_event(last, e)) {
		free_event(e);
		return;
	}
	list_add_tail(&e->link, &g->events);
	g->nevents++;
	__atomic_store_n(&g->bytes, g->bytes + EVENT_SIZE + e->ev.len, __ATOMIC_RELAXED);
	wake_up(&g->wq);
}

/* Takes the oldest event off g's queue (g->lock held, queue not empty):
 * the caller frees it, unless it is the overflow event (NULL then). */
static struct inotify_kevent *dequeue_locked(struct inotify_group *g, struct inotify_event *ev)
{
	struct inotify_kevent *e = list_entry(g->events.next, struct inotify_kevent, link);

	list_del(&e->link);
	g->nevents--;
	__atomic_store_n(&g->bytes, g->bytes - EVENT_SIZE - e->ev.len, __ATOMIC_RELAXED);
	*ev = e->ev;
	if (e != g->overflow)
		return e;
	g->overflowed = false;
	return NULL;
}

static void queue_event(struct inotify_group *g, int wd, uint32_t mask, uint32_t cookie,
			const char *name, size_t len)
{
	struct inotify_kevent *e = new_event(wd, mask, cookie, name, len);

	spin_lock(&g->lock);
	queue_locked(g, e);
	spin_unlock(&g->lock);
}

/* ---- Watches ---- */

/* Takes w off its inode's chain and its group's list and frees it, after
 * queueing IN_IGNORED for it (inotify_lock held).  Returns its inode if
 * that was its last watch: the watches' reference, which the caller puts
 * once inotify_lock is dropped; else NULL. */
static struct inode *watch_destroy_locked(struct inotify_watch *w)
{
	struct inode *ip = w->inode;
	struct inotify_watch **pp;

	for (pp = &ip->watches; *pp != w; pp = &(*pp)->next_on_inode)
		;
	__atomic_store_n(pp, w->next_on_inode, __ATOMIC_RELAXED);
	list_del(&w->in_group);
	queue_event(w->group, w->wd, IN_IGNORED, 0, "", 0);
	nr_watches--;
	kfree(w);
	if (ip->watches)
		return NULL;
	__atomic_sub_fetch(&ip->sb->watched, 1, __ATOMIC_RELAXED);
	return ip;
}

/* The reference watch_destroy_locked handed over, with no lock held. */
static void put_watches_ref(struct inode *ip)
{
	if (ip)
		inode_put(ip);
}

/* Delivers an event to ip's watches (inotify_lock held): each watch whose
 * mask asks for it gets the event with name (its subject's, for a
 * directory watch); IN_ONESHOT watches go after their first.  Returns ip
 * if that took its last watch (see watch_destroy_locked), else NULL. */
static struct inode *deliver_locked(struct inode *ip, uint32_t mask, uint32_t cookie,
				    const char *name, size_t len, bool unlinked_child)
{
	struct inotify_watch *w, *next;
	struct inode *last = NULL;

	for (w = ip->watches; w; w = next) {
		next = w->next_on_inode;
		if (!(w->mask & mask & IN_ALL_EVENTS))
			continue;
		if (unlinked_child && (w->mask & IN_EXCL_UNLINK))
			continue;
		queue_event(w->group, w->wd, mask, cookie, name, len);
		if (w->mask & IN_ONESHOT)
			last = watch_destroy_locked(w);
	}
	return last;
}

static uint32_t isdir_bit(const struct inode *ip)
{
	return ip && S_ISDIR(ip->mode) ? IN_ISDIR : 0;
}

/* Each hook delivers to inotify's watches, then to dnotify's (outside
 * inotify_lock: the signal path's locks are not taken under it). */
void __fsnotify_inode(struct inode *ip, uint32_t mask)
{
	/* inotify never reported IN_ISDIR with IN_MOVE_SELF (nor with
	 * IN_DELETE_SELF): Linux masks it out for compatibility. */
	uint32_t self = mask & IN_MOVE_SELF ? 0 : isdir_bit(ip);
	struct inode *last;

	spin_lock(&inotify_lock);
	last = deliver_locked(ip, mask | self, 0, "", 0, false);
	spin_unlock(&inotify_lock);
	dnotify_event(ip, mask | isdir_bit(ip));
	put_watches_ref(last);
}

void __fsnotify_name(struct inode *dir, uint32_t mask, const char *name, size_t len,
		     uint32_t cookie)
{
	struct inode *last;

	spin_lock(&inotify_lock);
	last = deliver_locked(dir, mask, cookie, name, len, false);
	spin_unlock(&inotify_lock);
	dnotify_event(dir, mask);
	put_watches_ref(last);
}

bool fsnotify_any(void)
{
	return __atomic_load_n(&nr_watches, __ATOMIC_RELAXED) != 0 || dnotify_any();
}

/* For a directory reached without a name: its parent (referenced) and its
 * name there, into name (NAME_MAX + 1 bytes); NULL for the root. */
static struct inode *parent_of_dir(struct inode *ip, char *name)
{
	struct inode *parent = dir_parent(ip);

	if (parent != ip && dir_name_of(parent, ip, name, NAME_MAX + 1) >= 0)
		return parent;
	inode_put(parent);
	return NULL;
}

/* ip's directory's watches with its name, then its own; IN_EXCL_UNLINK
 * watches of the directory skip a file no name leads to any more. */
void __fsnotify_parent(struct inode *ip, struct inode *dir, const char *name, uint32_t mask)
{
	bool unlinked = __atomic_load_n(&ip->nlink, __ATOMIC_RELAXED) == 0;
	struct inode *parent = NULL, *last_dir = NULL, *last;
	char buf[NAME_MAX + 1];

	if (!dir && S_ISDIR(ip->mode) && (parent = parent_of_dir(ip, buf))) {
		dir = parent;
		name = buf;
	}
	mask |= isdir_bit(ip);
	spin_lock(&inotify_lock); /* the directory first, as Linux */
	if (dir && name)
		last_dir = deliver_locked(dir, mask, 0, name, strlen(name), unlinked);
	last = deliver_locked(ip, mask, 0, "", 0, false);
	spin_unlock(&inotify_lock);
	if (dir && name)
		dnotify_event(dir, mask);
	dnotify_event(ip, mask);
	put_watches_ref(last_dir);
	put_watches_ref(last);
	if (parent)
		inode_put(parent);
}

/* Every watch on ip gets event (whatever its mask: IN_UNMOUNT) unless 0,
 * then all go (inotify_lock held); the watches' reference is returned. */
static struct inode *end_watches_locked(struct inode *ip, uint32_t event)
{
	struct inode *last = NULL;

	for (struct inotify_watch *w = ip->watches; w && event; w = w->next_on_inode)
		queue_event(w->group, w->wd, event, 0, "", 0);
	while (ip->watches)
		last = watch_destroy_locked(ip->watches);
	return last;
}

void __fsnotify_unlinked(struct inode *ip)
{
	struct inode *last = NULL;

	spin_lock(&inotify_lock);
	/* Still nothing but the watches' reference: a new user (a lookup
	 * by number racing) keeps them until it puts the inode. */
	if (ip->watches && __atomic_load_n(&ip->refcount, __ATOMIC_ACQUIRE) == 1 &&
	    !__atomic_load_n(&ip->nlink, __ATOMIC_RELAXED)) {
		last = deliver_locked(ip, IN_DELETE_SELF, 0, "", 0, false); /* no IN_ISDIR */
		last = end_watches_locked(ip, 0) ?: last;
	}
	spin_unlock(&inotify_lock);
	put_watches_ref(last);
}

/* One inode of sb that inotify watches, referenced, or NULL. */
static struct inode *next_watched(struct super_block *sb)
{
	struct inode *ip, *found = NULL;

	spin_lock(&sb->inodes_lock);
	list_for_each_entry(ip, &sb->inodes, sb_link)
	{
		if (__atomic_load_n(&ip->watches, __ATOMIC_RELAXED)) {
			inode_get(ip);
			found = ip;
			break;
		}
	}
	spin_unlock(&sb->inodes_lock);
	return found;
}

void __fsnotify_sb_unmount(struct super_block *sb)
{
	struct inode *ip, *last;

	while ((ip = next_watched(sb))) {
		spin_lock(&inotify_lock);
		last = end_watches_locked(ip, IN_UNMOUNT);
		spin_unlock(&inotify_lock);
		put_watches_ref(last);
		inode_put(ip);
	}
}

/* g's watch on ip, or NULL (inotify_lock held). */
static struct inotify_watch *watch_on_locked(struct inotify_group *g, struct inode *ip)
{
	struct inotify_watch *w;

	for (w = ip->watches; w; w = w->next_on_inode)
		if (w->group == g)
			return w;
	return NULL;
}

/* Adds or updates g's watch on ip (inotify_lock held): its wd, -EEXIST
 * (IN_MASK_CREATE), -ENOSPC (max_user_watches), -ENOMEM. */
static int watch_set_locked(struct inotify_group *g, struct inode *ip, uint32_t mask,
			    struct inotify_watch *spare, bool *used, bool *first)
{
	struct inotify_watch *w = watch_on_locked(g, ip);
	uint32_t keep = mask & (IN_ALL_EVENTS | IN_ONESHOT | IN_EXCL_UNLINK);

	if (w) {
		if (mask & IN_MASK_CREATE)
			return -EEXIST;
		w->mask = (mask & IN_MASK_ADD) ? w->mask | keep : keep;
		return w->wd;
	}
	if (nr_watches >= limit(&inotify_max_user_watches))
		return -ENOSPC;
	if (!spare)
		return -ENOMEM;
	*spare = (struct inotify_watch){.group = g, .inode = ip, .mask = keep, .wd = ++g->last_wd};
	if ((*first = !ip->watches))
		__atomic_add_fetch(&ip->sb->watched, 1, __ATOMIC_RELAXED);
	spare->next_on_inode = ip->watches;
	__atomic_store_n(&ip->watches, spare, __ATOMIC_RELEASE);
	list_add_tail(&spare->in_group, &g->watches);
	nr_watches++;
	*used = true;
	return spare->wd;
}

/* ---- The inotify fd ---- */

/* Copies whole events while they fit (EINVAL if the first does not), or
 * waits for one.  Each is taken off under the lock and copied out after. */
static long inotify_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct inotify_group *g = f->priv;
	struct inotify_kevent *e;
	struct inotify_event ev;
	size_t done = 0;
	int err;

	(void)pos;
	for (;;) {
		spin_lock(&g->lock);
		if (!list_empty(&g->events))
			break;
		spin_unlock(&g->lock);
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if ((err = wait_event_interruptible(
			 &g->wq, __atomic_load_n(&g->bytes, __ATOMIC_RELAXED) != 0)))
			return err;
	}
	while (!list_empty(&g->events)) {
		e = list_entry(g->events.next, struct inotify_kevent, link);
		if (EVENT_SIZE + e->ev.len > iov_iter_count(to))
			break;
		e = dequeue_locked(g, &ev);
		spin_unlock(&g->lock);
		err = copy_to_iter_full(&ev, EVENT_SIZE, to) ||
		      (ev.len && copy_to_iter_full(e->name, ev.len, to));
		if (e)
			free_event(e);
		if (err) /* the event is lost, as Linux's */
			return done ? (long)done : -EFAULT;
		done += EVENT_SIZE + ev.len;
		spin_lock(&g->lock);
	}
	spin_unlock(&g->lock);
	return done ? (long)done : -EINVAL; /* the buffer is smaller than the next event */
}

static unsigned inotify_poll(struct file *f, struct poll_table *pt)
{
	struct inotify_group *g = f->priv;

	poll_wait(f, &g->wq, pt); /* g lives as long as f */
	return __atomic_load_n(&g->bytes, __ATOMIC_RELAXED) ? POLLIN | POLLRDNORM : 0;
}

static long inotify_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct inotify_group *g = f->priv;
	int n;

	if (cmd != FIONREAD)
		return -ENOTTY; /* FIONBIO is the VFS's */
	spin_lock(&g->lock);
	n = (int)g->bytes;
	spin_unlock(&g->lock);
	return copy_to_user((void *)arg, &n, sizeof(n)) ? -EFAULT : 0;
}

/* One "inotify" line per watch, as Linux's fdinfo (no file handles). */
static void inotify_fdinfo(struct file *f, char *buf, size_t size)
{
	struct inotify_group *g = f->priv;
	struct inotify_watch *w;
	size_t at = 0;

	spin_lock(&inotify_lock);
	list_for_each_entry(w, &g->watches, in_group)
	{
		if (!w->inode || at >= size)
			continue;
		at += snprintk(buf + at, size - at,
			       "inotify wd:%x ino:%lx sdev:%x mask:%x ignored_mask:0\n", w->wd,
			       w->inode->ino, 0x10, w->mask);
	}
	spin_unlock(&inotify_lock);
}

/* The last reference: every watch goes (IN_IGNORED to nobody), then the
 * queue. */
static void inotify_release(struct file *f)
{
	struct inotify_group *g = f->priv;
	struct inotify_kevent *e, *n;

	struct inode *last;

	spin_lock(&inotify_lock);
	while (!list_empty(&g->watches)) {
		last = watch_destroy_locked(list_entry(g->watches.next, struct inotify_watch, in_group));
		if (last) { /* its put may take inotify_lock (fsnotify_unlinked) */
			spin_unlock(&inotify_lock);
			inode_put(last);
			spin_lock(&inotify_lock);
		}
	}
	nr_groups--;
	spin_unlock(&inotify_lock);
	list_for_each_entry_safe(e, n, &g->events, link)
	{
		if (e != g->overflow)
			free_event(e);
	}
	free_event(g->overflow);
	kfree(g);
}

static const struct file_ops inotify_ops = {
    .anon_name = "anon_inode:inotify",
    .read_iter = inotify_read,
    .poll = inotify_poll,
    .ioctl = inotify_ioctl,
    .show_fdinfo = inotify_fdinfo,
    .release = inotify_release,
};

/* The group of inotify fd fd, its file referenced in *out: 0, -EBADF,
 * -EINVAL (not an inotify fd). */
static int inotify_lookup(int fd, struct file **out)
{
	struct file *f = files_lookup(current()->files, fd);

	if (!f)
		return -EBADF;
	if (f->ops != &inotify_ops) {
		file_put(f);
		return -EINVAL;
	}
	*out = f;
	return 0;
}

/* ---- The system calls ---- */

/* A new group, counted against max_user_instances: -EMFILE, -ENOMEM. */
static int group_new(struct inotify_group **out)
{
	struct inotify_group *g = kzalloc(sizeof(*g));
	int err = 0;

	if (g && !(g->overflow = new_event(-1, IN_Q_OVERFLOW, 0, "", 0))) {
		kfree(g);
		g = NULL;
	}
	if (!g)
		return -ENOMEM;
	spin_lock(&inotify_lock);
	if (nr_groups >= limit(&inotify_max_user_instances))
		err = -EMFILE;
	else
		nr_groups++;
	g->max_events = limit(&inotify_max_queued_events);
	spin_unlock(&inotify_lock);
	if (err) {
		free_event(g->overflow);
		kfree(g);
		return err;
	}
	spin_init(&g->lock, "inotify_group");
	list_init(&g->events);
	list_init(&g->watches);
	wait_queue_init(&g->wq, "inotify_wq");
	*out = g;
	return 0;
}

SYSCALL_DEFINE1(inotify_init1, int, flags)
{
	struct inotify_group *g;
	struct file *f;
	int err, fd;

	if (flags & ~(IN_NONBLOCK | IN_FD_FLAGS))
		return -EINVAL;
	if ((err = group_new(&g)))
		return err;
	if (!(f = file_alloc(&inotify_ops, O_RDONLY | (flags & IN_NONBLOCK), g))) {
		inotify_release(&(struct file){.priv = g}); /* a group without a file yet */
		return -ENOMEM;
	}
	fd = fd_install_new(f, flags & IN_FD_FLAGS); /* same bits as O_CLOEXEC, O_CLOFORK */
	if (fd < 0)
		file_put(f); /* its release frees g */
	return fd;
}

SYSCALL_DEFINE0(inotify_init)
{
	return do_sys_inotify_init1(0);
}

SYSCALL_DEFINE3(inotify_add_watch, int, fd, const char *, upath, uint32_t, mask)
{
	struct inotify_watch *spare;
	struct inode *ip;
	struct file *f;
	long err;

	bool used = false, first = false;

	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		return -EINVAL;
	if (!(mask & IN_ALL_EVENTS))
		return -EINVAL; /* nothing to watch */
	if ((err = inotify_lookup(fd, &f)))
		return err;
	err = upath_lookup(AT_FDCWD, upath, !(mask & IN_DONT_FOLLOW), &ip);
	if (!err && (mask & IN_ONLYDIR) && !inode_is_dir(ip)) {
		inode_put(ip);
		err = -ENOTDIR;
	}
	if (!err) {
		spare = kmalloc(sizeof(*spare));
		spin_lock(&inotify_lock);
		err = watch_set_locked(f->priv, ip, mask, spare, &used, &first);
		spin_unlock(&inotify_lock);
		if (!used)
			kfree(spare); /* an update, or an error */
		if (!first)
			inode_put(ip); /* the first watch keeps it: the watches' */
	}
	file_put(f);
	return err;
}

SYSCALL_DEFINE2(inotify_rm_watch, int, fd, int, wd)
{
	struct inotify_group *g;
	struct inotify_watch *w;
	struct inode *last = NULL;
	struct file *f;
	int err;

	if ((err = inotify_lookup(fd, &f)))
		return err;
	g = f->priv;
	err = -EINVAL; /* no such watch (Linux) */
	spin_lock(&inotify_lock);
	list_for_each_entry(w, &g->watches, in_group)
	{
		if (w->wd == wd) {
			last = watch_destroy_locked(w);
			err = 0;
			break;
		}
	}
	spin_unlock(&inotify_lock);
	put_watches_ref(last);
	file_put(f);
	return err;
}
