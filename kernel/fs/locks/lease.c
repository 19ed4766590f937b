/*
 * File leases (fs/locks/lease.h, docs/locks.md "Leases"), as Linux's fs/locks.c
 * keeps them: at most one per open file description, chained on the
 * file's inode; a conflicting open marks them breaking, signals their
 * holders and waits until they are gone or downgraded, or until their
 * break time passes and the kernel breaks them itself.
 *
 * Locks: lease_lock protects every inode's chain, every lease's fields,
 * gen and the count.  It is taken with no other lock held and nests
 * outside fasync_lock and proc_lock (a break signals under it); nothing
 * sleeps or touches user memory under it.
 *
 * Lifetimes: a lease holds no reference.  Its file is alive while it is
 * chained: the file's last reference removes it (lease_release, from
 * file_put, before the file lets its inode go), so the inode outlives its
 * chain too.  Breakers wait on their own stack.  Bound: one lease per
 * open file description, so the open files bound them.
 */
#include "fs/locks/lease.h"
#include "arch/x86_64/timer.h"
#include "fs/fasync.h"
#include "fs/file.h"
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define NS_PER_SEC 1000000000ull

struct lease {
	struct lease *next; /* the inode's chain */
	struct file *file;  /* the holder: see above */
	int fd;		    /* si_fd of the break signal: the last F_SETLEASE's fd */
	int type;	    /* F_RDLCK or F_WRLCK */
	/* A breaker wants it gone (Linux's FL_UNLOCK_PENDING) or made a
	 * read lease (FL_DOWNGRADE_PENDING), by the monotonic time in the
	 * matching *_at (0: no time limit). */
	bool unlock_pending, downgrade_pending;
	uint64_t unlock_at, downgrade_at;
};

/* /proc/sys/fs/leases-enable: 0 refuses new leases (EINVAL), as Linux;
 * /proc/sys/fs/lease-break-time: seconds a holder has to answer a break
 * (0 or less: no limit).  Any int, as Linux's proc_dointvec. */
static int leases_enable = 1;
static int lease_break_time = 45;
PROC_SYS_ROW(leases_enable_row, .path = "fs/leases-enable", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &leases_enable, .min = INT32_MIN,
	     .max = INT32_MAX);
PROC_SYS_ROW(lease_break_time_row, .path = "fs/lease-break-time", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &lease_break_time,
	     .min = INT32_MIN, .max = INT32_MAX);

static struct spinlock lease_lock = SPINLOCK_INIT("lease");
static unsigned long nr_leases; /* lease_lock; atomic reads */
/* Bumped whenever a lease goes or is downgraded: a breaker re-checks. */
static unsigned long gen;
/* Every breaker waiting; woken when gen moves. */
static struct wait_queue lease_wait = {SPINLOCK_INIT("lease_wait"),
				       LIST_HEAD_INIT(lease_wait.sleepers)};

unsigned long lease_count(void)
{
	return __atomic_load_n(&nr_leases, __ATOMIC_RELAXED);
}

/* f's lease on ip, as the link that points to it, or NULL (lease_lock). */
static struct lease **find_locked(struct inode *ip, struct file *f)
{
	struct lease **pp, *l;

	for (pp = &ip->leases; (l = *pp); pp = &l->next)
		if (l->file == f)
			return pp;
	return NULL;
}

/*
 * *pp becomes a lease of type (F_RDLCK, F_WRLCK) or goes (F_UNLCK), the
 * breaks it answers no longer pending (Linux's lease_modify); a lease that
 * goes takes its file's owner and signal with it, as on Linux.  Waking the
 * breakers is the caller's, after it drops lease_lock.
 */
static void modify_locked(struct lease **pp, int type)
{
	struct lease *l = *pp;

	gen++;
	l->type = type;
	if (type != F_WRLCK) {
		l->downgrade_pending = false;
		l->downgrade_at = 0;
	}
	if (type != F_UNLCK)
		return;
	fasync_disown(l->file);
	__atomic_store_n(pp, l->next, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_leases, nr_leases - 1, __ATOMIC_RELAXED);
	kfree(l);
}

static bool past(uint64_t at, uint64_t now)
{
	return at && now >= at;
}

/* Breaks whose holders did not answer in time are done by force (Linux's
 * time_out_leases): whether anything changed (lease_lock held). */
static bool time_out_locked(struct inode *ip)
{
	uint64_t now = clock_monotonic_ns();
	unsigned long before = gen;
	struct lease **pp = &ip->leases, *l;

	while ((l = *pp)) {
		if (l->downgrade_pending && past(l->downgrade_at, now))
			modify_locked(pp, F_RDLCK);
		if (l->unlock_pending && past(l->unlock_at, now))
			modify_locked(pp, F_UNLCK);
		else
			pp = &l->next;
	}
	return gen != before;
}

static void wake_if(bool changed)
{
	if (changed)
		wake_up(&lease_wait);
}

/* A write lease conflicts with every open, a read lease with writers. */
static bool conflicts(const struct lease *l, bool want_write)
{
	return want_write || l->type == F_WRLCK;
}

static bool any_conflict_locked(struct inode *ip, bool want_write)
{
	for (struct lease *l = ip->leases; l; l = l->next)
		if (conflicts(l, want_write))
			return true;
	return false;
}

/*
 * Whether f may hold a lease of type given the other opens of its inode
 * (Linux's check_conflicting_open): a read lease wants no writer (f
 * itself included), a write lease no open but f: -EAGAIN otherwise.
 */
static int check_opens(struct file *f, int type)
{
	struct inode *ip = f->inode;
	int32_t writers = __atomic_load_n(&ip->writecount, __ATOMIC_RELAXED);
	int32_t readers = __atomic_load_n(&ip->readcount, __ATOMIC_RELAXED);

	if (type == F_RDLCK)
		return writers > 0 ? -EAGAIN : 0;
	if (writers != (file_can_write(f) ? 1 : 0) ||
	    readers != (file_can_read(f) && !file_can_write(f) ? 1 : 0))
		return -EAGAIN;
	return 0;
}

/*
 * Sets f's lease to type (lease_lock held), from spare when f has none
 * (*used then): Linux's generic_add_lease.  Another holder's lease keeps
 * out a write lease, and a read lease while it is being broken for a
 * writer; f's own lease changes type; a new one needs leases-enable.
 */
static int add_locked(struct file *f, int fd, int type, struct lease *spare, bool *used)
{
	struct inode *ip = f->inode;
	struct lease **mine = NULL, **pp, *l;
	int err;

	if ((err = check_opens(f, type)))
		return err;
	for (pp = &ip->leases; (l = *pp); pp = &l->next) {
		if (l->file == f)
			mine = pp;
		else if (type == F_WRLCK || l->unlock_pending)
			return -EAGAIN;
	}
	if (mine) {
		modify_locked(mine, type);
		(*mine)->fd = fd;
	} else {
		if (!__atomic_load_n(&leases_enable, __ATOMIC_RELAXED))
			return -EINVAL;
		*spare = (struct lease){.next = ip->leases, .file = f, .fd = fd, .type = type};
		__atomic_store_n(&ip->leases, spare, __ATOMIC_RELAXED);
		/* An open racing with us took its counts before looking for
		 * leases (lease_break): look at the counts again after the
		 * lease is visible. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if ((err = check_opens(f, type))) {
			__atomic_store_n(&ip->leases, spare->next, __ATOMIC_RELAXED);
			return err;
		}
		__atomic_store_n(&nr_leases, nr_leases + 1, __ATOMIC_RELAXED);
		*used = true;
	}
	fasync_own_default(f); /* prepared: cannot fail */
	return 0;
}

/* F_SETLEASE F_UNLCK: -EAGAIN when f holds no lease. */
static long remove_lease(struct file *f)
{
	struct inode *ip = f->inode;
	struct lease **pp;

	spin_lock(&lease_lock);
	pp = find_locked(ip, f);
	if (pp)
		modify_locked(pp, F_UNLCK);
	spin_unlock(&lease_lock);
	wake_if(pp != NULL);
	return pp ? 0 : -EAGAIN;
}

long lease_setlease(struct file *f, int fd, unsigned long arg)
{
	struct inode *ip = f->inode;
	int type = (int)arg; /* Linux reads an int */
	struct lease *spare;
	bool used = false, changed;
	long err;

	/* Linux's order: the type, the owner, the file's type. */
	if (type != F_UNLCK && type != F_RDLCK && type != F_WRLCK)
		return -EINVAL;
	if (!ip)
		return -EINVAL;
	if (ip->uid != cred_current()->fsuid && !capable(CAP_LEASE))
		return -EACCES;
	if (!inode_is_reg(ip)) /* directories too */
		return -EINVAL;
	if (type == F_UNLCK)
		return remove_lease(f);
	if (!(spare = kmalloc(sizeof(*spare))))
		return -ENOMEM;
	if ((err = fasync_prepare(f))) {
		kfree(spare);
		return err;
	}
	spin_lock(&lease_lock);
	changed = time_out_locked(ip);
	err = add_locked(f, fd, type, spare, &used);
	changed |= err == 0;
	spin_unlock(&lease_lock);
	wake_if(changed);
	if (!used)
		kfree(spare);
	return err;
}

/* What a pending break asks of l, else its type (Linux's target_leasetype). */
static int target_type(const struct lease *l)
{
	return l->unlock_pending ? F_UNLCK : l->downgrade_pending ? F_RDLCK : l->type;
}

long lease_getlease(struct file *f)
{
	struct inode *ip = f->inode;
	struct lease **pp;
	bool changed;
	int type = F_UNLCK;

	if (!ip || !__atomic_load_n(&ip->leases, __ATOMIC_RELAXED))
		return F_UNLCK;
	spin_lock(&lease_lock);
	changed = time_out_locked(ip);
	if ((pp = find_locked(ip, f)))
		type = target_type(*pp);
	spin_unlock(&lease_lock);
	wake_if(changed);
	return type;
}

/*
 * Marks the leases a breaker conflicts with and signals their holders,
 * each once per kind of break (lease_lock held): a writer wants them
 * gone, a reader wants write leases downgraded, by deadline.
 */
static void start_breaks_locked(struct inode *ip, bool want_write, uint64_t deadline)
{
	for (struct lease *l = ip->leases; l; l = l->next) {
		if (!conflicts(l, want_write))
			continue;
		if (want_write) {
			if (l->unlock_pending)
				continue;
			l->unlock_pending = true;
			l->unlock_at = deadline;
		} else {
			if (l->unlock_pending || l->downgrade_pending)
				continue;
			l->downgrade_pending = true;
			l->downgrade_at = deadline;
		}
		fasync_signal(l->file, l->fd, POLL_MSG);
	}
}

/* The earliest time a conflicting lease will be broken by force, or 0
 * when none has a time limit (lease_lock held). */
static uint64_t next_timeout_locked(struct inode *ip, bool want_write)
{
	uint64_t first = 0;

	for (struct lease *l = ip->leases; l; l = l->next) {
		if (!conflicts(l, want_write))
			continue;
		uint64_t at = l->unlock_pending ? l->unlock_at : l->downgrade_at;
		if (l->unlock_pending && l->downgrade_pending && l->downgrade_at &&
		    (!at || l->downgrade_at < at))
			at = l->downgrade_at;
		if (at && (!first || at < first))
			first = at;
	}
	return first;
}

/* Sleeps until gen leaves seen, deadline passes (0: none) or a signal
 * comes: -ERESTARTSYS for the signal, else 0. */
static int wait_for_change(unsigned long seen, uint64_t deadline)
{
	DEFINE_WAIT(we);
	int err = 0;

	prepare_to_wait(&lease_wait, &we);
	if (deadline)
		sched_arm_deadline(deadline);
	if (__atomic_load_n(&gen, __ATOMIC_RELAXED) == seen && !signal_pending() &&
	    (!deadline || clock_monotonic_ns() < deadline))
		schedule();
	if (deadline)
		sched_disarm_deadline();
	finish_wait(&lease_wait, &we);
	if (signal_pending())
		err = -ERESTARTSYS;
	return err;
}

int __lease_break(struct inode *ip, unsigned int flags)
{
	bool want_write = (flags & O_ACCMODE) != O_RDONLY, changed;
	int secs = __atomic_load_n(&lease_break_time, __ATOMIC_RELAXED), err = 0;
	uint64_t deadline = secs > 0 ? clock_monotonic_ns() + (uint64_t)secs * NS_PER_SEC : 0;
	unsigned long seen;

	might_sleep();
	spin_lock(&lease_lock);
	changed = time_out_locked(ip);
	if (any_conflict_locked(ip, want_write)) {
		start_breaks_locked(ip, want_write, deadline);
		if (flags & O_NONBLOCK)
			err = -EWOULDBLOCK;
	}
	while (!err && any_conflict_locked(ip, want_write)) {
		uint64_t until = next_timeout_locked(ip, want_write);

		seen = gen;
		spin_unlock(&lease_lock);
		wake_if(changed);
		err = wait_for_change(seen, until);
		spin_lock(&lease_lock);
		changed = time_out_locked(ip);
	}
	spin_unlock(&lease_lock);
	wake_if(changed);
	return err;
}

void lease_release(struct file *f)
{
	struct inode *ip = f->inode;
	struct lease **pp;

	/* A lease of f is chained before f's last reference goes. */
	if (!ip || !__atomic_load_n(&ip->leases, __ATOMIC_RELAXED))
		return;
	spin_lock(&lease_lock);
	if ((pp = find_locked(ip, f)))
		modify_locked(pp, F_UNLCK);
	spin_unlock(&lease_lock);
	wake_if(pp != NULL);
}
