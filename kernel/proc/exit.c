/*
 * exit and wait4.  An exiting task releases its files, address space and
 * directory at once, hands its children to init, and stays a zombie
 * holding only its kernel stack and status until its parent reaps it.
 */
#include "proc/exit.h"
#include "arch/x86_64/qemu.h"
#include "arch/x86_64/uaccess.h"
#include "cmdline.h"
#include "fs/files.h"
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "proc/leakcheck.h"
#include "proc/proc.h"
#include "proc/sched.h"
#include "proc/signal.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

#define WNOHANG	     1
#define WUNTRACED    2
#define WCONTINUED   8
#define WAIT_OPTIONS (WNOHANG | WUNTRACED | WCONTINUED | 0x40000000 /* __WALL */)
#define RUSAGE_SIZE  144 /* struct rusage on x86_64; we report zeroes */

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

__attribute__((noreturn)) void task_exit(int status)
{
	struct task *t = current(), *init = task_find(1);

	if (t->pid == 1)
		init_exited(status);
	release_resources(t);
	spin_lock(&proc_lock);
	reparent_children(t, init);
	t->exit_status = status;
	sched_set_state(t, TASK_ZOMBIE);
	spin_unlock(&proc_lock);
	wake_up(&t->parent->child_exit);
	wake_up(&init->child_exit);
	signal_child_exited(t, status);
	schedule();
	panic("zombie %d ran again", t->pid);
}

SYSCALL_DEFINE1(exit, int, code)
{
	task_exit(W_EXITED(code));
}

SYSCALL_DEFINE1(exit_group, int, code)
{
	task_exit(W_EXITED(code));
}

static bool child_matches(struct task *c, int pid)
{
	return pid <= 0 || c->pid == pid; /* no process groups yet: 0, < -1 mean any */
}

/*
 * Looks for a child matching pid (proc_lock held).  Returns a zombie to
 * reap, or NULL with *any set if a matching child lives.
 */
static struct task *find_zombie_locked(struct task *parent, int pid, bool *any)
{
	struct task *c;

	*any = false;
	list_for_each_entry(c, &parent->children, sibling)
	{
		if (!child_matches(c, pid))
			continue;
		*any = true;
		if (c->state == TASK_ZOMBIE)
			return c;
	}
	return NULL;
}

/* True when wait4 has something to report: a zombie, or no such child. */
static bool reap_ready(int pid)
{
	struct task *z;
	bool any;

	spin_lock(&proc_lock);
	z = find_zombie_locked(current(), pid, &any);
	spin_unlock(&proc_lock);
	return z || !any;
}

/* One pass of wait4: a reaped pid, 0 (none ready), or -ECHILD. */
static int try_reap(int pid, int *status)
{
	struct task *z;
	bool any;

	spin_lock(&proc_lock);
	z = find_zombie_locked(current(), pid, &any);
	if (z)
		list_del(&z->sibling);
	spin_unlock(&proc_lock);
	if (!z)
		return any ? 0 : -ECHILD;
	*status = z->exit_status;
	pid = z->pid;
	task_free(z);
	return pid;
}

SYSCALL_DEFINE4(wait4, int, pid, int *, ustatus, int, options, void *, urusage)
{
	int status = 0, ret;

	if (options & ~WAIT_OPTIONS)
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH;
	if (ustatus && !user_range_ok((uint64_t)ustatus, sizeof(int)))
		return -EFAULT;
	for (;;) {
		ret = try_reap(pid, &status);
		if (ret != 0 || (options & WNOHANG))
			break;
		ret = wait_event_interruptible(&current()->child_exit, reap_ready(pid));
		if (ret)
			return ret;
	}
	if (ret > 0 && ustatus && copy_to_user(ustatus, &status, sizeof(status)))
		return -EFAULT;
	if (ret > 0 && urusage && clear_user(urusage, RUSAGE_SIZE))
		return -EFAULT;
	return ret;
}
