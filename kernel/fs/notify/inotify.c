/*
 * inotify (docs/inotify.md): watches on ramfs inodes, their events queued
 * on an inotify fd, read as struct inotify_event records.  The VFS and the
 * ramfs report events through fs/notify/fsnotify.h; this file keeps the
 * watches and turns the events into queued records; the fd and the three
 * system calls are fs/notify/inotify_user.c's.
 *
 * Locks: inotify_lock (global) protects every watch (its inode, mask and
 * wd), every inode's chain of watches and every group's list of them, and
 * the system-wide counts; a group's lock protects its event queue and
 * nests inside inotify_lock, and a wait queue's lock inside that.
 *
 * Lifetimes: a watch belongs to its group, which frees it when it is
 * removed (inotify_rm_watch, IN_ONESHOT, the group's end), when its
 * file is gone (fsnotify_unlinked: no name and no user but the watches)
 * or when its instance leaves its last mount (fsnotify_sb_unmount).  The
 * watches of an inode hold one reference on it together (Linux's mark
 * connector's), taken with the first and given back, after inotify_lock
 * is dropped, by whoever destroys the last (watch_destroy_locked hands it
 * over), so a holder of inotify_lock may use watch->inode.  A group
 * lives as long as its file; events hold no references at all (a name is
 * copied).
 */
#include "fs/file.h"
#include "fs/notify/fsnotify.h"
#include "fs/notify/inotify.h"
#include "fs/notify/inotify_group.h"
#include "fs/notify/dnotify.h"
#include "fs/proc/proc_sys.h"
#include "fs/vfs.h"
#include "lib/list.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/inotify.h>

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
	const size_t rec = INOTIFY_EVENT_SIZE;

	return len ? (uint32_t)((len + rec) / rec * rec) : 0;
}

void inotify_event_free(struct inotify_kevent *e)
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
			inotify_event_free(e);
		if (g->overflowed)
			return;
		e = g->overflow;
		g->overflowed = true;
	} else if (last && same_event(last, e)) {
		inotify_event_free(e);
		return;
	}
	list_add_tail(&e->link, &g->events);
	g->nevents++;
	__atomic_store_n(&g->bytes, g->bytes + INOTIFY_EVENT_SIZE + e->ev.len, __ATOMIC_RELAXED);
	wake_up(&g->wq);
}

struct inotify_kevent *inotify_dequeue_locked(struct inotify_group *g, struct inotify_event *ev)
{
	struct inotify_kevent *e = list_entry(g->events.next, struct inotify_kevent, link);

	list_del(&e->link);
	g->nevents--;
	__atomic_store_n(&g->bytes, g->bytes - INOTIFY_EVENT_SIZE - e->ev.len, __ATOMIC_RELAXED);
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

int inotify_watch_add(struct inotify_group *g, struct inode *ip, uint32_t mask)
{
	struct inotify_watch *spare = kmalloc(sizeof(*spare));
	bool used = false, first = false;
	int ret;

	spin_lock(&inotify_lock);
	ret = watch_set_locked(g, ip, mask, spare, &used, &first);
	spin_unlock(&inotify_lock);
	if (!used)
		kfree(spare); /* an update, or an error */
	if (!first)
		inode_put(ip); /* the first watch keeps it: the watches' */
	return ret;
}

int inotify_watch_rm(struct inotify_group *g, int wd)
{
	struct inotify_watch *w;
	struct inode *last = NULL;
	int err = -EINVAL; /* no such watch (Linux) */

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
	return err;
}

/* As Linux's fdinfo, without file handles. */
void inotify_watches_show(struct inotify_group *g, char *buf, size_t size)
{
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

/* ---- Groups ---- */

int inotify_group_new(struct inotify_group **out)
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
		inotify_event_free(g->overflow);
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

/* Every watch goes (IN_IGNORED to nobody), then the queue. */
void inotify_group_free(struct inotify_group *g)
{
	struct inotify_kevent *e, *n;
	struct inode *last;

	spin_lock(&inotify_lock);
	while (!list_empty(&g->watches)) {
		last = watch_destroy_locked(
		    list_entry(g->watches.next, struct inotify_watch, in_group));
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
			inotify_event_free(e);
	}
	inotify_event_free(g->overflow);
	kfree(g);
}
