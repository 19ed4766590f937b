/*
 * exit.  An exiting task releases its files, address space and directory
 * at once, hands its children to init, and stays a zombie holding only
 * its kernel stack and status until its parent reaps it (reap.c).
 */
#include "proc/exit.h"
#include "arch/x86_64/qemu.h"
#include "cmdline.h"
#include "fs/files.h"
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "proc/futex.h"
#include "proc/leakcheck.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/signal.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

static void release_resources(struct task *t);

/*
 * Init's exit ends the system.  In test mode its resources are released
 * and the kernel's counters compared with their values when init started
 * (nothing the tests did may leak), then QEMU exits with init's status.
 * In bench mode QEMU exits at once: no leak check in the timed run.
 */
static __attribute__((noreturn)) void init_exited(int status)
{
	struct kcounters now;

	printk("init exited with status 0x%x\n", status);
	if (kopts.bench)
		qemu_exit(status == 0 ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
	if (!kopts.test)
		panic("init exited");
	release_resources(current());
	sched_quiescent();
	kcounters_read(&now);
	if (leakcheck_report(&counters_at_init, &now))
		status = status ? status : 1;
	qemu_exit(status == 0 ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
}

static void release_resources(struct task *t)
{
	files_destroy(t->files);
	t->files = NULL;
	inode_put(t->cwd);
	t->cwd = NULL;
	if (t->exe)
		inode_put(t->exe);
	t->exe = NULL;
	/* Leave the address space before freeing it. */
	vm_switch(vm_kernel());
	vm_destroy(task_swap_vm(t, vm_kernel()));
}

/* Gives t's children to init, which reaps them (caller holds proc_lock). */
static void reparent_children(struct task *t, struct task *init)
{
	struct task *c, *n;

	list_for_each_entry_safe(c, n, &t->children, sibling)
	{
		list_del(&c->sibling);
		c->parent = init;
		list_add_tail(&c->sibling, &init->children);
	}
}

/* A parent that ignores SIGCHLD or set SA_NOCLDWAIT leaves no zombies
 * (POSIX, Linux): its children are reaped as they exit. */
static bool reaps_children_at_exit(const struct task *parent)
{
	const struct uapi_sigaction *a = &parent->sig.action[SIGCHLD - 1];

	return a->handler == UAPI_SIG_IGN || (a->flags & UAPI_SA_NOCLDWAIT);
}

__attribute__((noreturn)) void task_exit(int status)
{
	struct task *t = current(), *init = task_find(1), *parent;
	bool autoreap;

	/* While t's address space is still its own: the words to release
	 * are in it. */
	futex_exit_release(t);
	if (t->pid == 1)
		init_exited(status);
	release_resources(t);
	itimer_exit(t);
	spin_lock(&proc_lock);
	reparent_children(t, init);
	t->exit_status = status;
	parent = t->parent;
	autoreap = reaps_children_at_exit(parent);
	if (autoreap)
		list_del(&t->sibling); /* wait4 no longer sees it: ECHILD */
	sched_set_state(t, autoreap ? TASK_DEAD : TASK_ZOMBIE);
	/* Wakes a waiter that may now have a zombie, or no child left.  Still
	 * under proc_lock: the parent cannot exit and be reaped meanwhile. */
	wake_up(&parent->child_exit);
	wake_up(&init->child_exit);
	signal_child_exited(t, status);
	spin_unlock(&proc_lock);
	schedule();
	panic("exited task %d ran again", t->pid);
}

SYSCALL_DEFINE1(exit, int, code)
{
	task_exit(W_EXITED(code));
}

SYSCALL_DEFINE1(exit_group, int, code)
{
	task_exit(W_EXITED(code));
}
