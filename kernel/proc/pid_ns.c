/*
 * PID namespaces (pid_ns.h): the namespaces, the numbers tasks have in
 * them, the one translation between global pids and those numbers, and
 * a namespace's init (its reaper, and the kill of the namespace when it
 * dies).
 *
 * Locks: pidns_lock guards the list of numbers, each namespace's next_nr
 * and dead; it is a leaf (taken inside proc_lock and the signal locks,
 * never around them).  Only tasks outside the initial namespace have
 * numbers on the list, so the initial namespace's translations are the
 * identity and cost nothing; a nested one's walk the list (TASK_MAX
 * entries at most).
 */
#include "proc/pid_ns.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/nsproxy.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

static const struct ns_ops pid_ns_ops;

struct pid_namespace init_pid_ns = {.ns = {NS_PID_INUM, &pid_ns_ops}, .refs = 1};

static struct spinlock pidns_lock = SPINLOCK_INIT("pidns");
static struct list_head numbers = LIST_HEAD_INIT(numbers);
static unsigned long live_pid_ns; /* atomic: namespaces but the initial one */

struct pid_namespace *task_pid_ns(const struct task *t)
{
	return t->pidnums ? t->pidnums->ns : &init_pid_ns;
}

struct pid_namespace *current_pid_ns(void)
{
	return task_pid_ns(current());
}

void pid_ns_get(struct pid_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
}

void pid_ns_put(struct pid_namespace *ns)
{
	while (ns && !__atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL)) {
		struct pid_namespace *parent = ns->parent;

		user_ns_put(ns->owner);
		kfree(ns);
		__atomic_sub_fetch(&live_pid_ns, 1, __ATOMIC_RELAXED);
		ns = parent; /* the child's reference on it, dropped without recursing */
	}
}

struct pid_namespace *pid_ns_create(struct pid_namespace *parent, struct user_namespace *owner,
				    int *err)
{
	struct pid_namespace *ns;

	*err = -ENOSPC;
	if (parent->level >= MAX_PID_NS_LEVEL)
		return NULL;
	*err = -ENOMEM;
	if (!(ns = kzalloc(sizeof(*ns))))
		return NULL;
	ns->ns = (struct ns_common){nsfs_alloc_inum(), &pid_ns_ops};
	ns->refs = 1;
	ns->level = parent->level + 1;
	pid_ns_get(ns->parent = parent);
	user_ns_get(ns->owner = owner);
	ns->next_nr = 1;
	__atomic_add_fetch(&live_pid_ns, 1, __ATOMIC_RELAXED);
	*err = 0;
	return ns;
}

/* ns's ancestor at level (ns itself at its own), or NULL below it. */
static const struct pid_namespace *ancestor_at(const struct pid_namespace *ns, int level)
{
	if (level > ns->level)
		return NULL;
	while (ns->level > level)
		ns = ns->parent;
	return ns;
}

bool pid_ns_within(const struct pid_namespace *ns, const struct pid_namespace *anc)
{
	return ancestor_at(ns, anc->level) == anc;
}

unsigned long pid_ns_count(void)
{
	return __atomic_load_n(&live_pid_ns, __ATOMIC_RELAXED);
}

/* ---- numbers ---- */

/* n's number in ns, 0 if none. */
static int nr_in(const struct pid_numbers *n, const struct pid_namespace *ns)
{
	return pid_ns_within(n->ns, ns) ? n->nr[ns->level] : 0;
}

int pid_nr_ns(int pid, const struct pid_namespace *ns)
{
	struct pid_numbers *n;
	int nr = 0;

	if (ns == &init_pid_ns)
		return pid;
	spin_lock(&pidns_lock);
	list_for_each_entry(n, &numbers, link) if (n->pid == pid)
	{
		nr = nr_in(n, ns);
		break;
	}
	spin_unlock(&pidns_lock);
	return nr;
}

/* pid_vnr's path for a caller outside the initial namespace. */
int pid_vnr_numbered(int pid)
{
	return pid_nr_ns(pid, current_pid_ns());
}

int task_nr(const struct task *t)
{
	return t->pidnums ? t->pidnums->nr[t->pidnums->ns->level] : t->pid;
}

/* The numbers numbered nr in ns, or NULL (pidns_lock held). */
static struct pid_numbers *numbers_of_locked(int nr, const struct pid_namespace *ns)
{
	struct pid_numbers *n;

	list_for_each_entry(n, &numbers, link) if (nr_in(n, ns) == nr) return n;
	return NULL;
}

int pid_from_nr_ns(int nr, const struct pid_namespace *ns)
{
	struct pid_numbers *n;
	int pid;

	if (ns == &init_pid_ns)
		return nr;
	if (nr <= 0)
		return 0;
	spin_lock(&pidns_lock);
	pid = (n = numbers_of_locked(nr, ns)) ? n->pid : 0;
	spin_unlock(&pidns_lock);
	return pid;
}

int pid_from_vnr(int nr)
{
	return pid_from_nr_ns(nr, current_pid_ns());
}

void pid_ns_append_nrs(char *buf, size_t size, size_t *len, const char *name, int pid,
		       const struct pid_namespace *ns)
{
	appendk(buf, size, len, "%s:", name);
	for (int level = 0; level <= ns->level; level++)
		appendk(buf, size, len, "\t%d", pid_nr_ns(pid, ancestor_at(ns, level)));
	appendk(buf, size, len, "\n");
}

/* A free number in ns, counting up from its next_nr and wrapping to 2 (1
 * is its init's, given once), or 0 (pidns_lock held).  Bounded as
 * task.c's allocator: the list has fewer entries than TASK_MAX. */
static int alloc_nr_locked(struct pid_namespace *ns)
{
	for (int tries = 0; tries <= TASK_MAX; tries++) {
		int nr = ns->next_nr < PID_MAX_DEFAULT ? ns->next_nr : 2;

		ns->next_nr = nr + 1;
		if (!numbers_of_locked(nr, ns))
			return nr;
	}
	return 0;
}

/* Whether ns or an ancestor no longer takes processes (pidns_lock held). */
static bool ns_dead_locked(const struct pid_namespace *ns)
{
	for (; ns; ns = ns->parent)
		if (ns->dead)
			return true;
	return false;
}

/* clone3's set_tid (Linux's alloc_pid checks, from ns's level up to the
 * initial namespace's): each number below pid_max, 1 in a namespace
 * without an init yet, and the caller allowed to choose (CAP_SYS_ADMIN
 * or CAP_CHECKPOINT_RESTORE over the namespace's owner).  0, -EINVAL,
 * -EPERM. */
static int check_set_tid(const struct pid_namespace *ns, const int *set_tid, int n)
{
	if (n > ns->level + 1)
		return -EINVAL;
	for (int i = 0; i < n; i++, ns = ns->parent) {
		const struct user_namespace *owner = ns->owner ? ns->owner : &init_user_ns;

		if (set_tid[i] < 1 || set_tid[i] >= task_pid_max())
			return -EINVAL;
		if (set_tid[i] != 1 && ns->level && !__atomic_load_n(&ns->reaper, __ATOMIC_RELAXED))
			return -EINVAL;
		if (!ns_capable(owner, CAP_SYS_ADMIN) && !ns_capable(owner, CAP_CHECKPOINT_RESTORE))
			return -EPERM;
	}
	return 0;
}

/* n's number in a (pidns_lock held): the one set_tid asks for (-EEXIST
 * if taken), else the next free one (-EAGAIN if none). */
static int take_nr_locked(struct pid_namespace *a, int want)
{
	if (want)
		return numbers_of_locked(want, a) ? -EEXIST : want;
	return alloc_nr_locked(a) ?: -EAGAIN;
}

int pid_numbers_attach(struct task *child, struct pid_namespace *ns, const int *set_tid, int ntid)
{
	struct pid_numbers *n;
	int err = check_set_tid(ns, set_tid, ntid), nr;

	/* The global number last, as the set_tid array ends with it. */
	if (!err && ntid == ns->level + 1)
		err = task_set_pid(child, set_tid[ns->level]);
	if (err || ns == &init_pid_ns)
		return err;
	if (!(n = kzalloc(sizeof(*n))))
		return -ENOMEM;
	n->pid = n->nr[0] = child->pid;
	spin_lock(&pidns_lock);
	if (ns_dead_locked(ns))
		err = -ENOMEM; /* as Linux's alloc_pid once PIDNS_ADDING is gone */
	for (struct pid_namespace *a = ns; !err && a->level > 0; a = a->parent) {
		int i = ns->level - a->level; /* set_tid[i] is for a */

		if ((nr = take_nr_locked(a, i < ntid ? set_tid[i] : 0)) < 0)
			err = nr;
		else
			n->nr[a->level] = nr;
	}
	if (!err) {
		pid_ns_get(n->ns = ns);
		list_add_tail(&n->link, &numbers);
		child->pidnums = n;
	}
	spin_unlock(&pidns_lock);
	if (err)
		kfree(n);
	return err;
}

void pid_numbers_free(struct task *t)
{
	struct pid_numbers *n = t->pidnums;

	if (!n)
		return;
	spin_lock(&pidns_lock);
	list_del(&n->link);
	if (n->nr[n->ns->level] == 1)
		n->ns->dead = true; /* its init is gone, or never started (Linux's free_pid) */
	spin_unlock(&pidns_lock);
	t->pidnums = NULL;
	pid_ns_put(n->ns);
	kfree(n);
}

void pid_numbers_swap_locked(struct task *a, struct task *b)
{
	struct pid_numbers *n = a->pidnums;

	spin_lock(&pidns_lock);
	if ((a->pidnums = b->pidnums))
		a->pidnums->pid = a->pidnums->nr[0] = a->pid;
	if ((b->pidnums = n))
		n->pid = n->nr[0] = b->pid;
	spin_unlock(&pidns_lock);
}

/* ---- the namespace's init ---- */

void pid_ns_new_process_locked(struct task *child)
{
	struct pid_numbers *n = child->pidnums;

	if (n && n->nr[n->ns->level] == 1)
		n->ns->reaper = child->group;
}

struct thread_group *pid_ns_reaper_locked(struct thread_group *g)
{
	for (struct pid_namespace *ns = task_pid_ns(g->leader); ns->level; ns = ns->parent)
		if (ns->reaper && ns->reaper != g)
			return ns->reaper;
	return NULL;
}

bool pid_ns_is_reaper(const struct thread_group *g)
{
	struct pid_namespace *ns = task_pid_ns(g->leader);

	return ns->level && __atomic_load_n(&ns->reaper, __ATOMIC_RELAXED) == g;
}

void pid_ns_reaper_gone_locked(struct thread_group *g)
{
	struct pid_namespace *ns = task_pid_ns(g->leader);

	if (ns->reaper == g)
		ns->reaper = NULL;
}

/* Kills a process of ns but g (task_for_each's function). */
struct zap {
	struct pid_namespace *ns;
	struct thread_group *keep;
};

static bool zap_one(struct task *t, void *arg)
{
	struct zap *z = arg;

	if (t->group != z->keep && task_is_leader(t) && t->group->state == GROUP_LIVE &&
	    pid_ns_within(task_pid_ns(t), z->ns))
		signal_send_process_locked(t->group, SIGKILL, 0);
	return true;
}

void pid_ns_zap(struct thread_group *g)
{
	struct zap z = {task_pid_ns(g->leader), g};

	spin_lock(&pidns_lock);
	z.ns->dead = true; /* no fork in it from now on */
	spin_unlock(&pidns_lock);
	task_for_each(zap_one, &z);
	reap_all_children();
}

/* ---- nsfs ---- */

static struct pid_namespace *to_pid_ns(struct ns_common *ns)
{
	return container_of(ns, struct pid_namespace, ns);
}

static void pid_ns_get_common(struct ns_common *ns)
{
	pid_ns_get(to_pid_ns(ns));
}

static void pid_ns_put_common(struct ns_common *ns)
{
	pid_ns_put(to_pid_ns(ns));
}

int pid_ns_may_enter(struct ns_common *common)
{
	if (!ns_may_install(common))
		return -EPERM;
	return pid_ns_within(to_pid_ns(common), current_pid_ns()) ? 0 : -EINVAL;
}

/* setns: the caller's children go to ns (Linux's pidns_install). */
static int pid_ns_install(struct ns_common *common)
{
	struct pid_namespace *ns = to_pid_ns(common);
	struct nsproxy *n;
	int err = pid_ns_may_enter(common);

	if (err)
		return err;
	if (!(n = nsproxy_copy_current()))
		return -ENOMEM;
	pid_ns_get(ns);
	pid_ns_put(n->pid_ns_for_children);
	n->pid_ns_for_children = ns;
	nsproxy_switch(n);
	return 0;
}

static struct user_namespace *pid_ns_owner(struct ns_common *common)
{
	return to_pid_ns(common)->owner;
}

/* NS_GET_PARENT: the parent, referenced, if the caller's namespace is it
 * or one of its ancestors; else (and for the initial one) EPERM, as
 * Linux's pidns_get_parent. */
static struct ns_common *pid_ns_parent(struct ns_common *common, int *err)
{
	struct pid_namespace *parent = to_pid_ns(common)->parent;

	if (!parent || !pid_ns_within(parent, current_pid_ns())) {
		*err = -EPERM;
		return NULL;
	}
	pid_ns_get(parent);
	return &parent->ns;
}

static const struct ns_ops pid_ns_ops = {
    .kind = NS_PID,
    .get = pid_ns_get_common,
    .put = pid_ns_put_common,
    .install = pid_ns_install,
    .parent = pid_ns_parent,
    .owner = pid_ns_owner,
};
