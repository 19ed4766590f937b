/*
 * Credentials (see cred.h): the object's life -- sharing, copy on write,
 * freeing a grace period after the last reference -- the one privilege
 * test, capable(), group membership and execve's transition.
 */
#include "proc/cred.h"
#include "proc/nproc.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/user_namespace.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/uvm.h"
#include "sched/mutex.h"

/* Live creds and group lists, for the leak check (atomic). */
static unsigned long nr_creds;

/* The first process's: root, no supplementary group, every capability
 * (Linux's init_cred).  Static: its count never reaches 0. */
static struct group_info no_groups = {.refs = 1, .ngroups = 0};
static struct cred init_cred = {
    .refs = 1,
    .groups = &no_groups,
    .cap_permitted = CAP_VALID_MASK,
    .cap_effective = CAP_VALID_MASK,
    .cap_bset = CAP_VALID_MASK,
    .user_ns = &init_user_ns,
};

/* Before the first task and in kernel tasks: the kernel's own, root's;
 * while an io_uring request runs with a personality, its creds. */
const struct cred *cred_current(void)
{
	struct task *t = current();

	if (t && t->cred_override)
		return t->cred_override;
	return t && t->group ? task_cred(t) : &init_cred;
}

const struct cred *task_cred(const struct task *t)
{
	return group_cred(t->group);
}

const struct cred *group_cred(const struct thread_group *g)
{
	return __atomic_load_n(&g->cred, __ATOMIC_ACQUIRE);
}

static bool ref_unless_zero(int *refs)
{
	int n = __atomic_load_n(refs, __ATOMIC_RELAXED);

	while (n > 0)
		if (__atomic_compare_exchange_n(refs, &n, n + 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * A reference on t's creds.  The pointer was read without a lock, so its
 * last reference may have gone meanwhile (a commit replaced it): the
 * object is still there until a grace period ends, but dying; read the
 * group's pointer again, which then is the newer one.
 */
static const struct cred *group_cred_get(const struct thread_group *g)
{
	const struct cred *c;

	do
		c = __atomic_load_n(&g->cred, __ATOMIC_ACQUIRE);
	while (!ref_unless_zero((int *)&c->refs));
	return c;
}

const struct cred *cred_get_task(const struct task *t)
{
	return group_cred_get(t->group);
}

void cred_get(const struct cred *c)
{
	__atomic_add_fetch((int *)&c->refs, 1, __ATOMIC_RELAXED);
}

const struct cred *cred_get_current(void)
{
	const struct cred *c = current()->cred_override;

	if (!c)
		return cred_get_task(current());
	cred_get(c); /* the request running keeps it alive meanwhile */
	return c;
}

void groups_put(struct group_info *gi)
{
	if (__atomic_sub_fetch(&gi->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		kfree(gi);
		__atomic_sub_fetch(&nr_creds, 1, __ATOMIC_RELAXED);
	}
}

static void cred_free(struct grace_head *head)
{
	struct cred *c = (struct cred *)((char *)head - offsetof(struct cred, grace));

	groups_put(c->groups);
	user_ns_put(c->user_ns);
	kfree(c);
	__atomic_sub_fetch(&nr_creds, 1, __ATOMIC_RELAXED);
}

/* The last reference frees after a grace period: lock-free readers
 * (task_cred) may still look at it. */
void cred_put(const struct cred *c)
{
	struct cred *m = (struct cred *)c;

	if (c && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0)
		grace_defer(&m->grace, cred_free);
}

/* A private copy of old with one reference; NULL on ENOMEM. */
static struct cred *cred_copy(const struct cred *old)
{
	struct cred *c = kmalloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *old;
	c->refs = 1;
	__atomic_add_fetch(&c->groups->refs, 1, __ATOMIC_RELAXED);
	user_ns_get(c->user_ns);
	__atomic_add_fetch(&nr_creds, 1, __ATOMIC_RELAXED);
	return c;
}

struct cred *cred_dup_current(void)
{
	const struct cred *old = cred_get_current();
	struct cred *c = cred_copy(old);

	cred_put(old);
	return c;
}

void cred_group_set(struct thread_group *g, struct cred *c)
{
	cred_put(g->cred);
	g->cred = c;
}

uint32_t cred_root_uid(const struct cred *c)
{
	return make_kuid(c->user_ns, 0);
}

struct cred *cred_prepare(void)
{
	struct thread_group *g = current()->group;
	struct cred *c;

	mutex_lock(&g->cred_lock);
	/* Under cred_lock no one else replaces g->cred. */
	if (!(c = cred_copy(g->cred)))
		mutex_unlock(&g->cred_lock);
	return c;
}

/* Linux's cred_cap_issubset: whether subset's capabilities are within
 * set's -- in one namespace, its permitted set within set's; in a
 * namespace below set's, one that set's effective uid owns (or an
 * ancestor of it below set's does), where set has them all anyway. */
static bool cap_subset(const struct cred *set, const struct cred *subset)
{
	const struct user_namespace *ns;

	if (set->user_ns == subset->user_ns)
		return !(subset->cap_permitted & ~set->cap_permitted);
	for (ns = subset->user_ns; ns->level > set->user_ns->level; ns = ns->parent)
		if (ns->parent == set->user_ns && ns->owner == set->euid)
			return true;
	return false;
}

/*
 * Linux's commit_creds: a process whose effective or file-system ids
 * change, or whose capabilities grow, stops being dumpable (core dumps,
 * PR_GET_DUMPABLE: suid_dumpable's default, 0) and forgets the
 * parent-death signals its threads asked for.
 */
static void identity_changed(struct thread_group *g, const struct cred *old, const struct cred *new)
{
	struct task *t;

	if (old->euid == new->euid && old->egid == new->egid && old->fsuid == new->fsuid &&
	    old->fsgid == new->fsgid &&cap_subset(old, new))
		return;
	spin_lock(&proc_lock); /* the thread list; t->uvm is swapped under it */
	list_for_each_entry(t, &g->threads, group_link)
	{
		__atomic_store_n(&t->pdeath_signal, 0, __ATOMIC_RELAXED);
		if (t->uvm)
			__atomic_store_n(&t->uvm->dumpable, 0, __ATOMIC_RELAXED);
	}
	spin_unlock(&proc_lock);
}

/* g's tasks count for its new real uid from now on (proc/nproc.h); the
 * caller is flagged if that user is past its RLIMIT_NPROC. */
static void real_uid_changed(struct thread_group *g, uint32_t uid)
{
	uint64_t limit = rlimit_soft(g, RLIMIT_NPROC);

	spin_lock(&proc_lock);
	current()->nproc_exceeded = uid != 0 && (uint64_t)nproc_tasks_locked(uid) > limit;
	nproc_move_locked(g, uid);
	spin_unlock(&proc_lock);
}

/* new replaces g's creds (cred_lock held, released here). */
static void publish(struct thread_group *g, struct cred *new)
{
	const struct cred *old = g->cred;

	__atomic_store_n(&g->cred, new, __ATOMIC_RELEASE);
	if (new->uid != old->uid)
		real_uid_changed(g, new->uid);
	identity_changed(g, old, new);
	mutex_unlock(&g->cred_lock);
	cred_put(old);
}

void cred_commit(struct cred *new)
{
	publish(current()->group, new);
}

/* Frees a copy no one else has seen: no grace period to wait for. */
static void discard(struct cred *c)
{
	cred_free(&c->grace);
}

void cred_abort(struct cred *new)
{
	mutex_unlock(&current()->group->cred_lock);
	discard(new);
}

void cred_group_init(struct thread_group *g, const struct thread_group *parent)
{
	mutex_init(&g->cred_lock, "cred_lock");
	if (parent) {
		g->cred = group_cred_get(parent);
	} else {
		cred_get(&init_cred);
		g->cred = &init_cred;
	}
}

void cred_group_free(struct thread_group *g)
{
	cred_put(g->cred);
	g->cred = NULL;
}

bool capable(int cap)
{
	return ns_capable(&init_user_ns, cap);
}

bool cred_same_owner(const struct task *t)
{
	const struct cred *c = cred_current(), *tc = task_cred(t);

	return c->euid == tc->euid || c->euid == tc->uid;
}

bool ptrace_may_access_locked(const struct task *t, bool fscreds)
{
	const struct cred *c = cred_current(), *tc = task_cred(t);
	uint32_t uid = fscreds ? c->fsuid : c->uid, gid = fscreds ? c->fsgid : c->gid;

	if (t->group == current()->group)
		return true;
	/* Linux's ptrace_has_cap: over t's user namespace. */
	if (cred_ns_capable(c, tc->user_ns, CAP_SYS_PTRACE))
		return true;
	if (!(uid == tc->uid && uid == tc->euid && uid == tc->suid && gid == tc->gid &&
	      gid == tc->egid && gid == tc->sgid))
		return false;
	if (t->uvm && __atomic_load_n(&t->uvm->dumpable, __ATOMIC_RELAXED) != 1)
		return false;
	/* commoncap's rule: t, in the caller's namespace, has no capability
	 * the caller lacks (its effective set with fscreds, else its
	 * permitted set); in another, the caller needs CAP_SYS_PTRACE over
	 * it, which it has over a namespace it owns. */
	if (c->user_ns != tc->user_ns)
		return false;
	return !(tc->cap_permitted & ~(fscreds ? c->cap_effective : c->cap_permitted));
}

static bool groups_search(const struct group_info *gi, uint32_t gid)
{
	int lo = 0, hi = gi->ngroups;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (gi->gid[mid] == gid)
			return true;
		if (gi->gid[mid] < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool cred_in_group(const struct cred *c, uint32_t gid)
{
	return gid == c->fsgid || groups_search(c->groups, gid);
}

bool cred_in_egroup(const struct cred *c, uint32_t gid)
{
	return gid == c->egid || groups_search(c->groups, gid);
}

struct group_info *groups_alloc(int n)
{
	struct group_info *gi = kmalloc(sizeof(*gi) + (size_t)n * sizeof(gi->gid[0]));

	if (!gi)
		return NULL;
	gi->refs = 1;
	gi->ngroups = n;
	__atomic_add_fetch(&nr_creds, 1, __ATOMIC_RELAXED);
	return gi;
}

/* Heap sort: no recursion, no allocation, O(n log n) for 65536 gids. */
static void sift_down(uint32_t *a, int i, int n)
{
	for (int child; (child = 2 * i + 1) < n; i = child) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[i] >= a[child])
			return;
		uint32_t t = a[i];
		a[i] = a[child];
		a[child] = t;
	}
}

void groups_sort(struct group_info *gi)
{
	uint32_t *a = gi->gid;
	int n = gi->ngroups;

	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(a, i, n);
	for (int end = n - 1; end > 0; end--) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}

void cred_set_groups(struct cred *new, struct group_info *gi)
{
	groups_put(new->groups);
	new->groups = gi;
}

/*
 * Linux's cap_bprm_creds_from_file without file capabilities: the file's
 * set-id bits give their ids; root (real or effective, after them; not
 * with SECBIT_NOROOT) gets its bounding and inheritable sets as
 * permitted, effective too when the effective uid is 0; anyone else keeps
 * only the ambient set, which a set-id program clears.  An unsafe exec
 * gains nothing.  The saved and file-system ids become the effective
 * ones.  Everything but the reference count and the group list is
 * written; returns AT_SECURE.
 */
static bool exec_compute(const struct cred *old, const struct exec_ids *file, unsigned unsafe,
			 struct cred *out)
{
	bool root = !(old->securebits & SECBIT_NOROOT), effective, setid;
	uint32_t root_uid = cred_root_uid(old);

	out->uid = old->uid, out->gid = old->gid;
	out->euid = file->setuid ? file->uid : old->euid;
	out->egid = file->setgid ? file->gid : old->egid;
	out->cap_inheritable = old->cap_inheritable;
	out->cap_bset = old->cap_bset;
	out->cap_ambient = old->cap_ambient;
	out->cap_permitted = 0;
	if (root && (out->euid == root_uid || out->uid == root_uid))
		out->cap_permitted = old->cap_bset | old->cap_inheritable;
	effective = root && out->euid == root_uid;
	setid = out->euid != old->uid || out->egid != old->gid;
	if ((setid || (out->cap_permitted & ~old->cap_permitted)) && unsafe) {
		if ((unsafe & EXEC_UNSAFE_NNP) || !(old->cap_effective & CAP_TO_MASK(CAP_SETUID)))
			out->euid = out->uid, out->egid = out->gid;
		out->cap_permitted &= old->cap_permitted;
	}
	out->suid = out->fsuid = out->euid;
	out->sgid = out->fsgid = out->egid;
	if (setid)
		out->cap_ambient = 0;
	out->cap_permitted |= out->cap_ambient;
	out->cap_effective = effective ? out->cap_permitted : out->cap_ambient;
	out->securebits = old->securebits & ~SECBIT_KEEP_CAPS;
	return setid ||
	       (out->uid != root_uid && (effective || (out->cap_permitted & ~out->cap_ambient)));
}

struct cred *cred_exec_prepare(struct task *t, const struct exec_ids *file, unsigned unsafe,
			       bool *secure)
{
	const struct cred *old = cred_get_task(t);
	struct cred *new = cred_copy(old);

	if (new)
		*secure = exec_compute(old, file, unsafe, new);
	cred_put(old);
	return new;
}

static bool cred_same(const struct cred *a, const struct cred *b)
{
	return a->uid == b->uid && a->euid == b->euid && a->suid == b->suid &&
	       a->fsuid == b->fsuid && a->gid == b->gid && a->egid == b->egid &&
	       a->sgid == b->sgid && a->fsgid == b->fsgid && a->groups == b->groups &&
	       a->cap_inheritable == b->cap_inheritable && a->cap_permitted == b->cap_permitted &&
	       a->cap_effective == b->cap_effective && a->cap_bset == b->cap_bset &&
	       a->cap_ambient == b->cap_ambient && a->securebits == b->securebits &&
	       a->user_ns == b->user_ns;
}

bool cred_exec_commit(struct task *t, struct cred *new, const struct exec_ids *file,
		      unsigned unsafe)
{
	struct thread_group *g = t->group;
	const struct cred *old;
	bool secure;

	mutex_lock(&g->cred_lock);
	old = g->cred;
	if (new->groups != old->groups) { /* replaced since cred_exec_prepare */
		__atomic_add_fetch(&old->groups->refs, 1, __ATOMIC_RELAXED);
		groups_put(new->groups);
		new->groups = old->groups;
	}
	secure = exec_compute(old, file, unsafe, new);
	if (cred_same(old, new)) { /* the common case: nothing to publish */
		mutex_unlock(&g->cred_lock);
		discard(new);
	} else {
		publish(g, new);
	}
	return secure;
}

unsigned long cred_count(void)
{
	return __atomic_load_n(&nr_creds, __ATOMIC_RELAXED);
}
