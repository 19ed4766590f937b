/*
 * Thread groups (see group.h): creation, joining, and the reference count
 * that frees one after its last task.
 */
#include "proc/group.h"
#include "proc/nproc.h"
#include "proc/cred.h"
#include "proc/pidfd.h"
#include "fs/event/signalfd.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "lib/string.h"
#include <stddef.h>
#include "proc/proc.h"

struct thread_group *group_create(struct task *leader)
{
	struct thread_group *g = kmalloc(sizeof(*g));

	if (!g)
		return NULL;
	memset(g, 0, sizeof(*g));
	sigpending_init(&g->shared);
	spin_init(&g->siglock, "siglock");
	g->tgid = leader->pid;
	g->leader = leader;
	list_init(&g->threads);
	list_init(&g->children);
	list_init(&g->sibling);
	list_init(&g->timers);
	list_init(&g->async_masked);
	wait_queue_init(&g->thread_exit, "thread_exit");
	wait_queue_init(&g->child_exit, "child_exit");
	wait_queue_init(&g->signalfd_wq, "signalfd");
	wait_queue_init(&g->stop_wq, "stop");
	itimer_init(g);
	/* The creating task's process: clone's caller (none for the first). */
	rlimit_inherit(g, current()->group);
	cred_group_init(g, current()->group);
	g->exit_signal = SIGCHLD;
	return g;
}

void group_free_unused(struct thread_group *g)
{
	cred_group_free(g);
	kfree(g);
}

void group_add_thread_locked(struct thread_group *g, struct task *t)
{
	nproc_join_locked(g);
	g->refs++;
	g->live++;
	t->group = g;
	list_add_tail(&t->group_link, &g->threads);
}

bool group_put_locked(struct thread_group *g)
{
	return --g->refs == 0;
}

void group_free(struct thread_group *g)
{
	signalfd_group_free(g);
	/* No thread is left to take them, nor sender to add more. */
	spin_lock(&g->siglock);
	sigpending_discard_locked(&g->shared, ~0UL);
	spin_unlock(&g->siglock);
	pidfd_group_free(g);
	cred_group_free(g);
	itimer_release(g);
	kfree(g);
}
