/*
 * Record locks (reclock.h): the lock table, its split-and-merge rules, the
 * waits of F_SETLKW and their deadlock check.  One spinlock guards it all,
 * as Linux's file_lock_lock once did: lock operations are short and rare
 * next to reads and writes, and one lock keeps the deadlock walk, which
 * crosses files, simple.  docs/locks.md.
 */
#include "fs/locks/reclock.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/group.h"
#include "proc/task.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define BUCKETS	      64 /* hash chains, by lock key */
#define DEADLOCK_HOPS 10 /* owners followed before giving up, as Linux */

/*
 * A granted lock.  Lifetime: it holds no reference.  POSIX locks go when
 * their owner closes any fd of the file (reclock_close: a files table is
 * destroyed only after closing all its fds, so a lock never outlives its
 * owner), OFD locks when their file's last reference goes
 * (reclock_release), so neither outlives the key either: the inode is kept
 * by the open files, and a keyless file is the key itself.
 */
struct reclock {
	struct list_head link; /* on its key's chain */
	const void *key;       /* file_lock_key(): the inode, or the file itself */
	const void *owner;     /* a files table (POSIX) or a struct file (OFD) */
	int64_t start, end;    /* inclusive */
	int type;	       /* F_RDLCK or F_WRLCK */
	int pid;	       /* the setter's process id (F_GETLK's l_pid) */
	bool ofd;
};

/* A task asleep in F_SETLKW, for the deadlock walk: on the stack of the
 * waiting task, which removes it before it returns. */
struct reclock_waiter {
	struct list_head link; /* on waiters */
	const void *key, *owner;
	struct reclock_req req;
};

/*
 * Protects the chains, waiters, live and gen.  Taken with no other lock
 * held (wake-ups come after it is dropped); nothing sleeps or touches user
 * memory under it.
 */
static struct spinlock reclock_lock = SPINLOCK_INIT("reclock");
static struct list_head chains[BUCKETS];
static struct list_head waiters = LIST_HEAD_INIT(waiters);
static unsigned long live; /* locks in the table; read without the lock for leak counts */
/* Bumped whenever a lock goes or shrinks: a sleeper re-tries when it moved. */
static unsigned long gen;
/* Every F_SETLKW sleeper; woken when gen moves. */
static struct wait_queue reclock_wait = {SPINLOCK_INIT("reclock_wait"),
					 LIST_HEAD_INIT(reclock_wait.sleepers)};

void reclock_init(void)
{
	for (int i = 0; i < BUCKETS; i++)
		list_init(&chains[i]);
}

static struct list_head *chain_of(const void *key)
{
	uintptr_t h = (uintptr_t)key >> 6;

	return &chains[(h ^ (h >> 6)) % BUCKETS];
}

static const void *owner_of(struct file *f, bool ofd)
{
	return ofd ? (const void *)f : (const void *)current()->files;
}

static bool overlap(const struct reclock *l, int64_t start, int64_t end)
{
	return l->start <= end && start <= l->end;
}

/* Under reclock_lock: a lock of another owner that conflicts with a
 * request of type over [start, end], or NULL. */
static struct reclock *find_conflict(const void *key, const void *owner, int type, int64_t start,
				     int64_t end)
{
	struct reclock *l;

	list_for_each_entry(l, chain_of(key),
			    link) if (l->key == key && l->owner != owner &&
				      overlap(l, start, end) &&
				      (type == F_WRLCK || l->type == F_WRLCK)) return l;
	return NULL;
}

/*
 * Under reclock_lock: would owner waiting for blocker close a cycle?  Each
 * hop goes from a POSIX owner to the owner of a lock its sleeping thread
 * waits for; OFD owners are never followed (Linux: they cannot deadlock
 * detectably, since any thread may release them).
 */
static bool would_deadlock(const void *owner, const struct reclock *blocker)
{
	for (int hop = 0; hop < DEADLOCK_HOPS && blocker && !blocker->ofd; hop++) {
		struct reclock_waiter *w, *next = NULL;

		if (blocker->owner == owner)
			return true;
		list_for_each_entry(w, &waiters, link) if (w->owner == blocker->owner)
		{
			next = w;
			break;
		}
		if (!next)
			return false;
		blocker = find_conflict(next->key, next->owner, next->req.type, next->req.start,
					next->req.end);
	}
	return false;
}

/*
 * Under reclock_lock: puts l on chain in order of start, so that F_GETLK
 * reports the lowest conflicting range first, as Linux's sorted lists do.
 */
static void chain_insert(struct list_head *chain, struct reclock *l)
{
	struct reclock *at;

	list_for_each_entry(at, chain, link) if (at->start > l->start) break;
	list_insert_between(&l->link, at->link.prev, &at->link);
}

static void live_add(long n)
{
	__atomic_add_fetch(&live, (unsigned long)n, __ATOMIC_RELAXED);
}

static void unlink_lock(struct reclock *l, struct list_head *dead)
{
	list_del(&l->link);
	list_add_tail(&l->link, dead);
	live_add(-1);
}

/* After the lock is dropped: frees what an operation removed. */
static void free_dead(struct list_head *dead)
{
	struct reclock *l, *n;

	list_for_each_entry_safe(l, n, dead, link) kfree(l);
}

/* Whether l (of the same owner) touches [start, end] or lies right beside it. */
static bool touches(const struct reclock *l, int64_t start, int64_t end)
{
	return l->start <= (end == RECLOCK_EOF ? end : end + 1) &&
	       (start == 0 ? 0 : start - 1) <= l->end;
}

/*
 * Under reclock_lock: how many locks applying want adds (apply's rules,
 * counted): the new one, plus a split's tail, less those merged into it
 * or covered.  Own locks never overlap, so at most one is split.
 */
static long growth(const struct reclock *want)
{
	long n = want->type != F_UNLCK;
	struct reclock *l;

	list_for_each_entry(l, chain_of(want->key), link)
	{
		if (l->key != want->key || l->owner != want->owner)
			continue;
		if (l->type == want->type && touches(l, want->start, want->end))
			n--;
		else if (l->start < want->start && l->end > want->end)
			n++;
		else if (l->start >= want->start && l->end <= want->end)
			n--;
	}
	return n;
}

/*
 * Under reclock_lock, with the room checked: owner's locks on key take
 * req's type over its range.  Locks of the same type that overlap or
 * touch it merge into the new one; others are cut back, or split, around
 * it.  spare[0] becomes the new lock, spare[1] a split's tail (each used
 * is set to NULL); removed locks go to dead.  Returns whether any lock
 * went or shrank (waiters may now get theirs).
 */
static bool apply(struct reclock *want, struct reclock **spare, struct list_head *dead)
{
	struct list_head *chain = chain_of(want->key);
	struct reclock *l, *n;
	bool freed = false;

	list_for_each_entry_safe(l, n, chain, link)
	{
		if (l->key != want->key || l->owner != want->owner)
			continue;
		if (l->type == want->type && touches(l, want->start, want->end)) {
			want->start = l->start < want->start ? l->start : want->start;
			want->end = l->end > want->end ? l->end : want->end;
			unlink_lock(l, dead);
			continue;
		}
		if (!overlap(l, want->start, want->end))
			continue;
		freed = true; /* a lock changes type or gives up bytes */
		if (l->start < want->start && l->end > want->end) {
			struct reclock *tail = spare[1];

			spare[1] = NULL;
			*tail = *l;
			tail->start = want->end + 1;
			chain_insert(chain, tail);
			live_add(1);
			l->end = want->start - 1;
		} else if (l->start < want->start) {
			l->end = want->start - 1;
		} else if (l->end > want->end) {
			/* its start moves on: back into order (seeing it
			 * again below changes nothing, it no longer overlaps) */
			list_del(&l->link);
			l->start = want->end + 1;
			chain_insert(chain, l);
		} else {
			unlink_lock(l, dead);
		}
	}
	if (want->type != F_UNLCK) {
		struct reclock *l = spare[0];

		spare[0] = NULL;
		*l = *want;
		chain_insert(chain, l);
		live_add(1);
	}
	return freed;
}

/*
 * One attempt at want (owner, key, range, type filled in): 0, -EAGAIN
 * with *blocked set when another owner's lock conflicts (deadlock true
 * when waiting would close a cycle), or -ENOLCK.
 */
static int try_set(struct reclock *want, struct reclock **spare, bool *deadlock)
{
	struct reclock *conflict = NULL;
	struct list_head dead = LIST_HEAD_INIT(dead);
	bool freed = false;
	int err = 0;

	spin_lock(&reclock_lock);
	if (want->type != F_UNLCK)
		conflict =
		    find_conflict(want->key, want->owner, want->type, want->start, want->end);
	if (conflict) {
		err = -EAGAIN;
		*deadlock = !want->ofd && would_deadlock(want->owner, conflict);
	} else if ((long)live + growth(want) > RECLOCK_MAX) {
		err = -ENOLCK;
	} else if ((freed = apply(want, spare, &dead))) {
		gen++;
	}
	spin_unlock(&reclock_lock);
	if (freed)
		wake_up(&reclock_wait);
	free_dead(&dead);
	return err;
}

static unsigned long gen_now(void)
{
	return __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
}

/* Sleeps until a lock goes after seen was read: 0 or -ERESTARTSYS.  w is
 * on the waiters list meanwhile, for other owners' deadlock walks. */
static int wait_change(struct reclock_waiter *w, unsigned long seen)
{
	int err;

	spin_lock(&reclock_lock);
	list_add_tail(&w->link, &waiters);
	spin_unlock(&reclock_lock);
	err = wait_event_interruptible(&reclock_wait, gen_now() != seen);
	spin_lock(&reclock_lock);
	list_del(&w->link);
	spin_unlock(&reclock_lock);
	return err;
}

int reclock_set(struct file *f, bool ofd, const struct reclock_req *req, bool wait)
{
	struct reclock want = {.key = file_lock_key(f), .owner = owner_of(f, ofd)};
	struct reclock_waiter w = {.key = want.key, .owner = want.owner, .req = *req};
	struct reclock *spare[2] = {kmalloc(sizeof(struct reclock)),
				    kmalloc(sizeof(struct reclock))};
	bool deadlock = false;
	int err = -ENOMEM;

	if (!spare[0] || !spare[1])
		goto out;
	if (!ofd) /* before the lock exists: its owner's closes must find it */
		files_note_close_state(current()->files);
	for (;;) {
		unsigned long seen = gen_now();

		want.start = req->start;
		want.end = req->end;
		want.type = req->type;
		want.pid = ofd ? -1 : current()->group->tgid;
		want.ofd = ofd;
		err = try_set(&want, spare, &deadlock);
		if (err != -EAGAIN || !wait)
			break;
		if (deadlock) {
			err = -EDEADLK;
			break;
		}
		if ((err = wait_change(&w, seen)))
			break;
	}
out:
	kfree(spare[0]);
	kfree(spare[1]);
	return err;
}

/* Under reclock_lock: owner's own lock overlapping [start, end], or NULL. */
static struct reclock *find_own(const void *key, const void *owner, int64_t start, int64_t end)
{
	struct reclock *l;

	list_for_each_entry(l, chain_of(key), link) if (l->key == key && l->owner == owner &&
							overlap(l, start, end)) return l;
	return NULL;
}

void reclock_test(struct file *f, bool ofd, struct reclock_req *req)
{
	const void *key = file_lock_key(f), *owner = owner_of(f, ofd);
	struct reclock *l;

	spin_lock(&reclock_lock);
	if (req->type == F_UNLCK) /* F_OFD_GETLK's question: what does this file hold? */
		l = find_own(key, owner, req->start, req->end);
	else
		l = find_conflict(key, owner, req->type, req->start, req->end);
	if (l)
		*req = (struct reclock_req){
		    .start = l->start, .end = l->end, .type = l->type, .pid = l->ofd ? -1 : l->pid};
	else
		req->type = F_UNLCK;
	spin_unlock(&reclock_lock);
}

/* Removes the locks on key that match (owner, or any when NULL; ofd). */
static void remove_matching(const void *key, const void *owner, bool ofd)
{
	struct reclock *l, *n;
	struct list_head dead = LIST_HEAD_INIT(dead);

	spin_lock(&reclock_lock);
	list_for_each_entry_safe(l, n, chain_of(key),
				 link) if (l->key == key && (!owner || l->owner == owner) &&
					   l->ofd == ofd) unlink_lock(l, &dead);
	if (!list_empty(&dead))
		gen++;
	spin_unlock(&reclock_lock);
	if (list_empty(&dead))
		return;
	wake_up(&reclock_wait);
	free_dead(&dead);
}

void reclock_close(struct file *f, struct files_table *files)
{
	/* A lock set by another thread racing with this close is caught by
	 * the setter's re-check of its fd (fcntl_lock.c). */
	if (__atomic_load_n(&live, __ATOMIC_RELAXED))
		remove_matching(file_lock_key(f), files, false);
}

void reclock_release(struct file *f)
{
	if (!__atomic_load_n(&live, __ATOMIC_RELAXED))
		return;
	remove_matching(file_lock_key(f), f, true);
	if (!f->inode) /* f is its own key: every POSIX lock on it goes too */
		remove_matching(f, NULL, false);
}

unsigned long reclock_count(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}
