/*
 * AF_UNIX files in flight (see unix_gc.h): the per-user count behind
 * ETOOMANYREFS, and the garbage collector, Linux's unix_gc in our terms.
 *
 * A unix socket is a candidate when every reference to its file is held
 * by SCM_RIGHTS sets (its file's count equals its inflight count).  The
 * references found in candidates' queues are taken off each candidate's
 * count; a candidate with some left is held from outside (by the queue of
 * a socket with an fd, or by a set on its way), so it is reachable, and so
 * is every candidate in its queue, and so on.  The candidates left can
 * never be received: the sets in their queues are dropped, which drops
 * the last references to their files, and the files go.
 *
 * Why the picture holds still while unix_gc_lock is held: a candidate has
 * no fd, so nobody can receive from its queue, and its file gains a
 * reference only when a receiver installs it, which first waits at
 * unix_gc_barrier(); sets are charged and uncharged under the lock.
 * Queues may still grow (a send by name), but a set found late only makes
 * sockets look reachable, never garbage.
 */
#include "net/unix_gc.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "net/scm.h"
#include "net/socket.h"
#include "proc/task.h"
#include <uapi/errno.h>

/*
 * Protects inflight_list, user_inflight, gc_running and every socket's
 * inflight, gc_link, gc_refs and gc_candidate.  Taken before socket locks
 * (a collection scans queues under it), so never under one.
 */
static struct spinlock unix_gc_lock = SPINLOCK_INIT("unix_gc");
/* Unix sockets with inflight > 0, by gc_link (a collection's lists meanwhile). */
static struct list_head inflight_list = LIST_HEAD_INIT(inflight_list);
/* Files in flight, every user's together (Linux counts per user). */
static unsigned long user_inflight;
static bool gc_running; /* a collection is scanning or freeing */

/* The unix socket behind f, or NULL. */
static struct socket *unix_sock_of(struct file *f)
{
	struct socket *sk = sock_of_file(f);

	return sk && sk->fam == &unix_family ? sk : NULL;
}

/* Under the lock: would n more files in flight pass limit? */
static bool over_limit(unsigned int n, unsigned long limit)
{
	return user_inflight + n > limit;
}

/*
 * The limit is the sender's RLIMIT_NOFILE against everything its user has
 * in flight, as Linux's too_many_unix_fds, but without Linux's exemption
 * for CAP_SYS_RESOURCE / CAP_SYS_ADMIN: the count here is one for every
 * user (not Linux's per user), which the exemption would leave unbounded.
 */
int unix_inflight_charge(const struct scm_fds *fds)
{
	unsigned long limit = files_get_nofile(current()->files);
	bool over;

	spin_lock(&unix_gc_lock);
	over = over_limit(fds->n, limit);
	spin_unlock(&unix_gc_lock);
	if (over)
		unix_gc(); /* garbage counts against the limit until collected */
	spin_lock(&unix_gc_lock);
	over = over_limit(fds->n, limit);
	if (!over) {
		user_inflight += fds->n;
		for (unsigned int i = 0; i < fds->n; i++) {
			struct socket *sk = unix_sock_of(fds->files[i]);
			if (sk && sk->inflight++ == 0)
				list_add_tail(&sk->gc_link, &inflight_list);
		}
	}
	spin_unlock(&unix_gc_lock);
	return over ? -ETOOMANYREFS : 0;
}

void unix_inflight_uncharge(const struct scm_fds *fds)
{
	spin_lock(&unix_gc_lock);
	user_inflight -= fds->n;
	for (unsigned int i = 0; i < fds->n; i++) {
		struct socket *sk = unix_sock_of(fds->files[i]);
		if (sk && --sk->inflight == 0)
			list_del(&sk->gc_link);
	}
	spin_unlock(&unix_gc_lock);
}

void unix_gc_barrier(void)
{
	spin_lock(&unix_gc_lock);
	spin_unlock(&unix_gc_lock);
}

static void move_tail(struct list_head *entry, struct list_head *head)
{
	list_del(entry);
	list_add_tail(entry, head);
}

/* Moves the sockets whose file only sets hold to cand, counting those. */
static void gc_pick_candidates(struct list_head *cand)
{
	struct socket *sk, *next;

	list_for_each_entry_safe(sk, next, &inflight_list, gc_link)
	{
		if (file_refcount(sk->file) != sk->inflight)
			continue;
		sk->gc_candidate = true;
		sk->gc_refs = sk->inflight;
		move_tail(&sk->gc_link, cand);
	}
}

/* gc_fds: a candidate's queue holds these references, not the outside. */
static bool gc_unref(struct scm_fds *fds, void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < fds->n; i++) {
		struct socket *c = unix_sock_of(fds->files[i]);
		if (c && c->gc_candidate)
			c->gc_refs--;
	}
	return false;
}

/* gc_fds: a reachable queue makes the candidates in it reachable (onto
 * the list arg, to scan in turn). */
static bool gc_reach(struct scm_fds *fds, void *arg)
{
	for (unsigned int i = 0; i < fds->n; i++) {
		struct socket *c = unix_sock_of(fds->files[i]);
		if (c && c->gc_candidate) {
			c->gc_candidate = false;
			move_tail(&c->gc_link, arg);
		}
	}
	return false;
}

/* gc_fds: a garbage queue's sets go to the list arg, to be freed. */
static bool gc_take(struct scm_fds *fds, void *arg)
{
	list_add_tail(&fds->link, arg);
	return true;
}

/* Puts the reachable candidates back on inflight_list; garbage stays. */
static void gc_keep_reachable(struct list_head *cand)
{
	struct list_head todo = LIST_HEAD_INIT(todo);
	struct socket *sk, *next;

	list_for_each_entry_safe(sk, next, cand, gc_link)
	{
		if (sk->gc_refs) {
			sk->gc_candidate = false;
			move_tail(&sk->gc_link, &todo);
		}
	}
	while (!list_empty(&todo)) {
		sk = list_first_entry(&todo, struct socket, gc_link);
		move_tail(&sk->gc_link, &inflight_list);
		sk->proto->gc_fds(sk, gc_reach, &todo);
	}
}

void unix_gc(void)
{
	struct list_head cand = LIST_HEAD_INIT(cand), sets = LIST_HEAD_INIT(sets);
	struct socket *sk, *next;

	spin_lock(&unix_gc_lock);
	if (gc_running || list_empty(&inflight_list)) {
		spin_unlock(&unix_gc_lock);
		return;
	}
	gc_running = true;
	gc_pick_candidates(&cand);
	list_for_each_entry(sk, &cand, gc_link) sk->proto->gc_fds(sk, gc_unref, NULL);
	gc_keep_reachable(&cand);
	list_for_each_entry_safe(sk, next, &cand, gc_link)
	{
		sk->proto->gc_fds(sk, gc_take, &sets);
		sk->gc_candidate = false;
		move_tail(&sk->gc_link, &inflight_list);
	}
	spin_unlock(&unix_gc_lock);
	/*
	 * Every garbage queue is emptied before any set is freed, so the
	 * releases this causes find nothing more to drop: no recursion.
	 */
	scm_free_list(&sets);
	spin_lock(&unix_gc_lock);
	gc_running = false;
	spin_unlock(&unix_gc_lock);
}
