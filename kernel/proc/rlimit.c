/* Resource limits (see rlimit.h) and their system calls.  Limits are
 * written under rlimit_lock and read with atomic loads, so a reader in the
 * tick (RLIMIT_CPU) or a signal sender takes no lock. */
#include "proc/rlimit.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fdtable.h"
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>

#define STACK_SOFT   (8UL << 20) /* the stack may grow that far (mm) */
#define MEMLOCK_SOFT (8UL << 20) /* Linux's default since 5.16 */
#define MSGQUEUE_DEF 819200	 /* Linux's */

/* Protects every group's rlim[] against concurrent setters (readers use
 * atomic loads: a soft and a hard limit are each one word). */
static struct spinlock rlimit_lock = SPINLOCK_INIT("rlimit");

/* The first process's limits, Linux's init_task defaults. */
static struct rlimit default_limit(unsigned int res)
{
	switch (res) {
	case RLIMIT_STACK:
		return (struct rlimit){STACK_SOFT, RLIM_INFINITY};
	case RLIMIT_CORE:
		return (struct rlimit){0, RLIM_INFINITY};
	case RLIMIT_NPROC: /* Linux's max_threads / 2: a user leaves root half */
		return (struct rlimit){TASK_MAX / 2, TASK_MAX / 2};
	case RLIMIT_MEMLOCK:
		return (struct rlimit){MEMLOCK_SOFT, MEMLOCK_SOFT};
	case RLIMIT_SIGPENDING:
		return (struct rlimit){SIGPENDING_MAX, SIGPENDING_MAX};
	case RLIMIT_MSGQUEUE:
		return (struct rlimit){MSGQUEUE_DEF, MSGQUEUE_DEF};
	case RLIMIT_NICE:
	case RLIMIT_RTPRIO:
		return (struct rlimit){0, 0};
	}
	return (struct rlimit){RLIM_INFINITY, RLIM_INFINITY};
}

/* The highest hard limit the kernel lets even root set: the tasks and
 * queued signals it can hold; the rest unbounded, as Linux for root. */
static uint64_t hard_ceiling(unsigned int res)
{
	return res == RLIMIT_NPROC	  ? TASK_MAX
	       : res == RLIMIT_SIGPENDING ? SIGPENDING_MAX
					  : RLIM_INFINITY;
}

void rlimit_inherit(struct thread_group *g, const struct thread_group *parent)
{
	for (unsigned int res = 0; res < RLIM_NLIMITS; res++) {
		if (!parent) {
			g->rlim[res] = default_limit(res);
			continue;
		}
		g->rlim[res].rlim_cur =
		    __atomic_load_n(&parent->rlim[res].rlim_cur, __ATOMIC_RELAXED);
		g->rlim[res].rlim_max =
		    __atomic_load_n(&parent->rlim[res].rlim_max, __ATOMIC_RELAXED);
	}
}

uint64_t rlimit_soft(const struct thread_group *g, unsigned int res)
{
	return __atomic_load_n(&g->rlim[res].rlim_cur, __ATOMIC_RELAXED);
}

/* The caller's RLIMIT_FSIZE, RLIM_INFINITY for a kernel thread. */
static uint64_t fsize_limit(void)
{
	struct thread_group *g = current()->group;

	return g ? rlimit_soft(g, RLIMIT_FSIZE) : RLIM_INFINITY;
}

/* SIGXFSZ to the caller, from itself (Linux's send_sig, SI_USER). */
static long fsize_exceeded(void)
{
	struct sig_info info = {.code = SI_USER};

	info.kill.pid = pid_vnr(current()->group->tgid);
	info.kill.uid = signal_sender_uid();
	signal_send_info(current(), SIGXFSZ, &info);
	return -EFBIG;
}

long rlimit_fsize_write(uint64_t pos, size_t *len)
{
	uint64_t limit = fsize_limit();

	if (limit == RLIM_INFINITY || !*len)
		return 0;
	if (pos >= limit)
		return fsize_exceeded();
	if (*len > limit - pos)
		*len = limit - pos;
	return 0;
}

long rlimit_fsize_grow(uint64_t size)
{
	uint64_t limit = fsize_limit();

	return limit != RLIM_INFINITY && size > limit ? fsize_exceeded() : 0;
}

void rlimit_of(const struct thread_group *g, struct files_table *files, unsigned int res,
	       struct rlimit *r)
{
	if (res == RLIMIT_NOFILE) {
		files_get_nofile_limits(files, &r->rlim_cur, &r->rlim_max);
		return;
	}
	spin_lock(&rlimit_lock);
	*r = g->rlim[res];
	spin_unlock(&rlimit_lock);
}

/*
 * /proc/sys/fs/nr_open (fd/fdtable.h's files_nr_open): the most
 * RLIMIT_NOFILE's hard limit may be (setrlimit: EPERM above it), and the
 * most fds a table that fork or unshare copies may span (EMFILE).  Least
 * the bits of a word, as Linux; at most NR_OPEN_MAX, the most the
 * sequential area can hold (Linux's own ceiling, near 2^31, cannot be
 * honoured: EINVAL).
 */
PROC_SYS_ROW(nr_open_row, .path = "fs/nr_open", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &files_nr_open, .min = 64, .max = NR_OPEN_MAX);

/*
 * The limits one call works on: a process and its files table (the
 * caller's, or prlimit's target, which the caller keeps: a referenced
 * task and a borrowed table).
 */
struct rlimit_target {
	struct thread_group *g;
	struct files_table *files;
};

/*
 * Limit res (< RLIM_NLIMITS) of tg becomes r: 0, -EINVAL (soft > hard),
 * -EPERM (a hard limit raised without CAP_SYS_RESOURCE, or past the
 * kernel's ceiling), as Linux's do_prlimit.
 */
static long rlimit_set(const struct rlimit_target *tg, unsigned int res, const struct rlimit *r)
{
	struct rlimit old;
	long err = 0;

	if (r->rlim_cur > r->rlim_max)
		return -EINVAL;
	if (res == RLIMIT_NOFILE &&
	    r->rlim_max > (uint64_t)__atomic_load_n(&files_nr_open, __ATOMIC_RELAXED))
		return -EPERM;
	if (r->rlim_max > hard_ceiling(res))
		return -EPERM;
	if (res == RLIMIT_NOFILE) {
		rlimit_of(tg->g, tg->files, res, &old);
		if (r->rlim_max > old.rlim_max && !capable(CAP_SYS_RESOURCE))
			return -EPERM;
		return files_set_nofile_limits(tg->files, r->rlim_cur, r->rlim_max);
	}
	spin_lock(&rlimit_lock); /* the test and the change together */
	if (r->rlim_max > tg->g->rlim[res].rlim_max && !capable(CAP_SYS_RESOURCE)) {
		err = -EPERM;
	} else {
		__atomic_store_n(&tg->g->rlim[res].rlim_cur, r->rlim_cur, __ATOMIC_RELAXED);
		__atomic_store_n(&tg->g->rlim[res].rlim_max, r->rlim_max, __ATOMIC_RELAXED);
	}
	spin_unlock(&rlimit_lock);
	return err;
}

SYSCALL_DEFINE2(getrlimit, unsigned int, res, struct rlimit *, urlim)
{
	struct rlimit r;

	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	rlimit_of(current()->group, current()->files, res, &r);
	return copy_to_user(urlim, &r, sizeof(r));
}

SYSCALL_DEFINE2(setrlimit, unsigned int, res, const struct rlimit *, urlim)
{
	struct rlimit_target tg = {current()->group, current()->files};
	struct rlimit r;

	if (copy_from_user(&r, urlim, sizeof(r)))
		return -EFAULT;
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	return rlimit_set(&tg, res, &r);
}

/*
 * Linux's check_prlimit_permission: another process's limits only when
 * all its uids are the caller's real uid and all its gids its real gid,
 * or with CAP_SYS_RESOURCE.
 */
static bool may_prlimit(const struct task *t)
{
	const struct cred *c = cred_current(), *tc = task_cred(t);

	if (t == current())
		return true;
	return (c->uid == tc->uid && c->uid == tc->euid && c->uid == tc->suid &&
		c->gid == tc->gid && c->gid == tc->egid && c->gid == tc->sgid) ||
	       capable(CAP_SYS_RESOURCE);
}

/* The target of prlimit(pid) with t's files table borrowed: 0, -ESRCH
 * (a thread that exited has none), -EPERM. */
static long prlimit_target(struct task *t, struct rlimit_target *tg)
{
	if (!may_prlimit(t))
		return -EPERM;
	spin_lock(&proc_lock); /* t->files is replaced under it */
	tg->g = t->group;
	tg->files = t->files ? files_borrow(t->files) : NULL;
	spin_unlock(&proc_lock);
	return tg->files ? 0 : -ESRCH;
}

/* Linux's order: EFAULT (the new limits), ESRCH, EPERM, EINVAL. */
SYSCALL_DEFINE4(prlimit64, int, pid, unsigned int, res, const struct rlimit *, unew,
		struct rlimit *, uold)
{
	struct task *t;
	struct rlimit_target tg;
	struct rlimit new, old;
	long err;

	if (unew && copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if (!(t = task_find_or_self(pid))) /* referenced: its group stays */
		return -ESRCH;
	if ((err = prlimit_target(t, &tg)) == 0) {
		err = res >= RLIM_NLIMITS ? -EINVAL : 0;
		if (!err)
			rlimit_of(tg.g, tg.files, res, &old);
		if (!err && unew)
			err = rlimit_set(&tg, res, &new);
		if (!err && uold)
			err = copy_to_user(uold, &old, sizeof(old)) ? -EFAULT : 0;
		files_unborrow(tg.files);
	}
	task_put(t);
	return err;
}
