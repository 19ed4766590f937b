/*
 * fork: the child gets a copy-on-write copy of the address space, a copy
 * of the files table without the close-on-fork fds, the same working
 * directory, and the parent's user registers with rax = 0.
 */
#include "fs/files.h"
#include "fs/inode.h"
#include "mm/paging.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/signal.h"
#include "sys/strace.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* Links child under parent (the process tree is under proc_lock). */
static void adopt(struct task *parent, struct task *child)
{
	spin_lock(&proc_lock);
	child->parent = parent;
	list_add_tail(&child->sibling, &parent->children);
	spin_unlock(&proc_lock);
}

SYSCALL_DEFINE0(fork)
{
	struct task *parent = current(), *child;

	child = task_alloc(parent->name);
	if (!child)
		return -EAGAIN;
	task_swap_vm(child, vm_fork(parent->vm));
	if (!child->vm)
		goto nomem;
	child->files = files_fork(parent->files);
	if (!child->files)
		goto nomem;
	inode_get(parent->cwd);
	child->cwd = parent->cwd;
	child->umask = parent->umask;
	if ((child->exe = parent->exe))
		inode_get(child->exe);
	child->brk_start = parent->brk_start;
	child->brk = parent->brk;
	child->mmap_next = parent->mmap_next;
	child->fsbase = parent->fsbase;
	child->gsbase = parent->gsbase;
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	signal_fork(child, parent);
	strace_fork(child, parent);
	*child->tf = *parent->tf;
	fpu_save(&child->fpu); /* the parent's live registers */
	child->tf->rax = 0;
	adopt(parent, child);
	sched_make_runnable(child);
	return child->pid;

nomem:
	if (child->vm)
		vm_destroy(task_swap_vm(child, NULL));
	task_free(child);
	return -ENOMEM;
}
