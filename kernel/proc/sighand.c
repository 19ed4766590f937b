/*
 * A process's signal actions (struct sighand, see signal.h): made for
 * the first task, shared by CLONE_SIGHAND threads or copied at fork,
 * unshared before an exec and reset by it.  Lifetime: refs counts the
 * tasks whose sighand points at it; the last signal_release frees it.
 */
#include "proc/signal.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* The actions are left for the caller to set. */
static struct sighand *sighand_new(void)
{
	struct sighand *sh = kmalloc(sizeof(*sh));

	if (sh) {
		sh->refs = 1;
		spin_init(&sh->lock, "sighand");
	}
	return sh;
}

/* Every action SIG_DFL, no flags. */
static struct sighand *sighand_alloc(void)
{
	struct sighand *sh = sighand_new();

	if (sh)
		memset(sh->action, 0, sizeof(sh->action));
	return sh;
}

/* A private copy of sh's actions, or NULL. */
static struct sighand *sighand_copy(struct sighand *sh)
{
	struct sighand *copy = sighand_new();

	if (copy) {
		spin_lock(&sh->lock);
		memcpy(copy->action, sh->action, sizeof(copy->action));
		spin_unlock(&sh->lock);
	}
	return copy;
}

int signal_clone(struct task *child, struct task *parent, bool share)
{
	if (share) {
		__atomic_add_fetch(&parent->sighand->refs, 1, __ATOMIC_RELAXED);
		child->sighand = parent->sighand;
	} else {
		child->sighand = sighand_copy(parent->sighand);
	}
	if (!child->sighand)
		return -ENOMEM;
	child->sig.blocked =
	    parent->sig.restore_blocked ? parent->sig.saved_blocked : parent->sig.blocked;
	return 0; /* nothing pending: task_alloc's empty set */
}

int signal_create(struct task *t)
{
	return (t->sighand = sighand_alloc()) ? 0 : -ENOMEM;
}

void signal_release(struct task *t)
{
	struct sighand *sh = t->sighand;

	t->sighand = NULL;
	if (sh && __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(sh);
}

int signal_unshare(struct task *t)
{
	struct sighand *copy;

	if (__atomic_load_n(&t->sighand->refs, __ATOMIC_ACQUIRE) == 1)
		return 0;
	if (!(copy = sighand_copy(t->sighand)))
		return -ENOMEM;
	signal_release(t);
	t->sighand = copy;
	return 0;
}

void signal_exec(struct task *t)
{
	struct sighand *sh = t->sighand;

	spin_lock(&sh->lock);
	for (int i = 0; i < UAPI_NSIG; i++) {
		struct uapi_sigaction *a = &sh->action[i];
		/* Ignored stays ignored across exec (POSIX).  Four stores, not a
		 * memset call per action (500 instructions of every exec). */
		*a = (struct uapi_sigaction){.handler = a->handler == UAPI_SIG_IGN ? UAPI_SIG_IGN
										   : UAPI_SIG_DFL};
	}
	spin_unlock(&sh->lock);
}
