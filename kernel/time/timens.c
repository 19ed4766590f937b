/*
 * Time namespaces (time/timens.h), as Linux's kernel/time/namespace.c:
 * unshare(CLONE_NEWTIME) makes a namespace for the caller's children to
 * come, whose offsets /proc/<pid>/timens_offsets sets until a task enters
 * it (a child forked into it, setns); from then on they are fixed.  A task
 * in a namespace other than the initial one reads its clocks through the
 * system calls (its [vvar] is a page whose clocks all say so), which add
 * the offsets; absolute sleeps and timers on its clocks take them off
 * (clock_wall_offset and its kin).
 */
#include "time/timens.h"
#include "arch/x86_64/timer.h"
#include "fs/nsfs.h"
#include "fs/proc/proc_sys.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/vdso.h"
#include "proc/cred.h"
#include "proc/nsproxy.h"
#include "proc/group.h"
#include "proc/task.h"
#include "proc/user_namespace.h"
#include "mm/uvm.h"
#include "sched/ktimer.h"
#include <uapi/capability.h>
#include <uapi/errno.h>
#include <uapi/time.h>

#define KTIME_SEC_MAX (KTIME_MAX / NSEC_PER_SEC)

struct time_namespace {
	struct ns_common ns;
	int refs;
	struct user_namespace *owner; /* referenced; NULL: the initial one */
	/* ns added to CLOCK_MONOTONIC's and CLOCK_BOOTTIME's readings:
	 * written under timens_lock while !frozen, constant after. */
	int64_t monotonic, boottime;
	bool frozen; /* a task entered it (timens_lock) */
};

static const struct ns_ops timens_ops;
struct time_namespace init_time_ns = {.ns = {NS_TIME_INUM, &timens_ops}, .refs = 1, .frozen = true};
unsigned long timens_live;				      /* atomic: but the initial one */
static struct spinlock timens_lock = SPINLOCK_INIT("timens"); /* offsets and frozen */

struct time_namespace *timens_copy(struct time_namespace *old, struct user_namespace *owner)
{
	struct time_namespace *ns = kzalloc(sizeof(*ns));

	if (!ns)
		return NULL;
	ns->ns = (struct ns_common){nsfs_alloc_inum(), &timens_ops};
	user_ns_get(ns->owner = owner);
	ns->refs = 1;
	spin_lock(&timens_lock);
	ns->monotonic = old->monotonic;
	ns->boottime = old->boottime;
	spin_unlock(&timens_lock);
	__atomic_add_fetch(&timens_live, 1, __ATOMIC_RELAXED);
	return ns;
}

void timens_get(struct time_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
}

void timens_put(struct time_namespace *ns)
{
	if (__atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL))
		return;
	user_ns_put(ns->owner);
	kfree(ns);
	__atomic_sub_fetch(&timens_live, 1, __ATOMIC_RELAXED);
}

struct ns_common *timens_common(struct time_namespace *ns)
{
	return &ns->ns;
}

unsigned long timens_count(void)
{
	return __atomic_load_n(&timens_live, __ATOMIC_RELAXED);
}

/* The caller's namespace is frozen (it is in it): no lock to read. */
int64_t timens_offset_of(int clk)
{
	const struct time_namespace *ns = current_nsproxy()->time;

	switch (clk) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
		return ns->monotonic;
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		return ns->boottime;
	}
	return 0;
}

void timens_enter(struct time_namespace *ns, struct uvm *u)
{
	spin_lock(&timens_lock);
	ns->frozen = true;
	spin_unlock(&timens_lock);
	if (u)
		vdso_set_timens(u, ns != &init_time_ns);
}

static struct time_namespace *to_timens(struct ns_common *ns)
{
	return container_of(ns, struct time_namespace, ns);
}

void timens_show_offsets(struct ns_common *common, char *buf, size_t size)
{
	struct time_namespace *ns = to_timens(common);

	spin_lock(&timens_lock);
	int64_t mono = ns->monotonic, boot = ns->boottime;
	spin_unlock(&timens_lock);
	/* Linux's format: the name, seconds and ns in columns */
	snprintk(buf, size, "monotonic  %10ld %9ld\nboottime   %10ld %9ld\n", mono / NSEC_PER_SEC,
		 mono % NSEC_PER_SEC, boot / NSEC_PER_SEC, boot % NSEC_PER_SEC);
}

/* One "<clock> <seconds> <ns>" line (its end at *end): 0 and the clock
 * and offset, or -EINVAL. */
static int parse_offset(const char *p, const char *end, int *clk, int64_t *sec, int64_t *nsec)
{
	char word[10] = {0};
	size_t n = 0;

	while (p < end && *p == ' ')
		p++;
	while (p < end && *p != ' ' && n < sizeof(word) - 1)
		word[n++] = *p++;
	if (!strcmp(word, "monotonic") || !strcmp(word, "1"))
		*clk = CLOCK_MONOTONIC;
	else if (!strcmp(word, "boottime") || !strcmp(word, "7"))
		*clk = CLOCK_BOOTTIME;
	else
		return -EINVAL;
	long v[2];
	for (int i = 0; i < 2; i++) {
		size_t used;
		if (proc_sys_parse_long(p, (size_t)(end - p), &v[i], &used))
			return -EINVAL;
		p += used;
	}
	if (p != end || v[1] < 0 || v[1] >= NSEC_PER_SEC)
		return -EINVAL;
	*sec = v[0], *nsec = v[1];
	return 0;
}

/* The clock with the offset stays within [0, KTIME_SEC_MAX / 2] s
 * (Linux's: KTIME_MAX stays far enough away): 0 or -ERANGE. */
static int check_range(int clk, int64_t sec, int64_t nsec)
{
	(void)clk; /* BOOTTIME is MONOTONIC here: no suspend */
	int64_t now = (int64_t)clock_monotonic_ns();

	if (sec > KTIME_SEC_MAX || sec < -KTIME_SEC_MAX)
		return -ERANGE;
	int64_t s = now / NSEC_PER_SEC + sec + (now % NSEC_PER_SEC + nsec) / NSEC_PER_SEC;
	return s < 0 || s > KTIME_SEC_MAX / 2 ? -ERANGE : 0;
}

long timens_write_offsets(struct ns_common *common, const char *text, size_t len)
{
	struct time_namespace *ns = to_timens(common);
	int clk[2];
	int64_t sec[2], nsec[2];
	const char *p = text, *end = text + len, *eol;
	int n = 0, err;

	while (p < end && n < 2) {
		for (eol = p; eol < end && *eol != '\n'; eol++)
			;
		if ((err = parse_offset(p, eol, &clk[n], &sec[n], &nsec[n])))
			return err;
		n++;
		p = eol < end ? eol + 1 : end;
	}
	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	for (int i = 0; i < n; i++)
		if ((err = check_range(clk[i], sec[i], nsec[i])))
			return err;
	spin_lock(&timens_lock);
	err = ns->frozen ? -EACCES : 0;
	for (int i = 0; i < n && !err; i++)
		*(clk[i] == CLOCK_MONOTONIC ? &ns->monotonic : &ns->boottime) =
		    sec[i] * NSEC_PER_SEC + nsec[i];
	spin_unlock(&timens_lock);
	return err ? err : (long)(p - text);
}

static void timens_get_common(struct ns_common *ns)
{
	timens_get(to_timens(ns));
}

static void timens_put_common(struct ns_common *ns)
{
	timens_put(to_timens(ns));
}

/* setns: Linux's timens_install: a single-threaded caller (EUSERS) with
 * CAP_SYS_ADMIN (over ns's owner and its own user namespace) enters ns
 * at once, and its children will too. */
static int timens_install(struct ns_common *common)
{
	struct time_namespace *ns = to_timens(common);
	struct task *t = current();
	struct nsproxy *n;

	if (__atomic_load_n(&t->group->live, __ATOMIC_ACQUIRE) > 1 ||
	    __atomic_load_n(&t->uvm->users, __ATOMIC_ACQUIRE) > 1)
		return -EUSERS; /* Linux's current_is_single_threaded */
	if (!ns_may_install(common))
		return -EPERM;
	if (!(n = nsproxy_copy_current()))
		return -ENOMEM;
	timens_get(ns);
	timens_get(ns);
	timens_put(n->time);
	timens_put(n->time_for_children);
	n->time = n->time_for_children = ns;
	timens_enter(ns, t->uvm);
	nsproxy_switch(n);
	return 0;
}

static struct user_namespace *timens_owner(struct ns_common *ns)
{
	return to_timens(ns)->owner;
}

static const struct ns_ops timens_ops = {
    .kind = NS_TIME,
    .get = timens_get_common,
    .put = timens_put_common,
    .install = timens_install,
    .owner = timens_owner,
};
