/*
 * Task creation and lookup: pids, kernel stacks with guard pages, the
 * process tree.  A kernel stack is 16 KiB mapped in its own 32 KiB slot of
 * the kernel-stack region, so an overflow hits an unmapped page (a double
 * fault on the IST stack reports it) instead of the neighbour's stack.
 */
#include "proc/task.h"
#include "fs/files.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/uvm.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define KSTACK_SLOT (2 * KSTACK_SIZE)

/* Protects the task list, pid allocation, kernel-stack slots, and every
 * task's parent/children/sibling links. */
struct spinlock proc_lock = SPINLOCK_INIT("proc");
static struct list_head all_tasks = LIST_HEAD_INIT(all_tasks);
static int ntasks;
static int next_pid = 1;
static int free_slots[TASK_MAX];
static int nfree_slots, next_slot;

void task_first_run(void);

/* Any task with pid, finished or not (proc_lock held). */
static struct task *task_with_pid_locked(int pid)
{
	struct task *t;

	list_for_each_entry(t, &all_tasks, all_link) if (t->pid == pid) return t;
	return NULL;
}

/* Tasks without a group are still being built by clone: nobody sees them. */
struct task *task_find_locked(int pid)
{
	struct task *t = task_with_pid_locked(pid);

	return t && t->group ? t : NULL;
}

struct uvm *task_swap_uvm(struct task *t, struct uvm *u)
{
	spin_lock(&proc_lock);
	struct uvm *old = t->uvm;
	t->uvm = u;
	t->vm = u ? u->space : vm_kernel();
	spin_unlock(&proc_lock);
	return old;
}

struct files_table *task_swap_files(struct task *t, struct files_table *files)
{
	spin_lock(&proc_lock);
	struct files_table *old = t->files;
	t->files = files;
	spin_unlock(&proc_lock);
	return old;
}

int task_unshare_files(struct task *t)
{
	struct files_table *files = files_private(t->files);

	if (!files)
		return -ENOMEM;
	if (files != t->files)
		files_put(task_swap_files(t, files));
	return 0;
}

struct task *task_find(int pid)
{
	spin_lock(&proc_lock);
	struct task *t = task_find_locked(pid);
	spin_unlock(&proc_lock);
	return t;
}

/* Caller holds proc_lock.  Pids count up and wrap, skipping live ones. */
static int alloc_pid_locked(void)
{
	for (;;) {
		int pid = next_pid++;
		if (next_pid > PID_MAX)
			next_pid = 2;
		if (!task_with_pid_locked(pid))
			return pid;
	}
}

/* Also frees the page tables the region's last stack leaves empty: kept,
 * 1024 tasks left 16 frames of tables behind (the leak check saw them). */
static void unmap_stack(uint64_t base, int npages)
{
	vm_unmap_range(vm_kernel(), base, (uint64_t)npages * PAGE_SIZE);
}

/* Maps a fresh stack in slot; the slot's first half stays unmapped (guard). */
static void *map_stack(int slot)
{
	uint64_t base = KSTACK_REGION + (uint64_t)slot * KSTACK_SLOT + KSTACK_SLOT - KSTACK_SIZE;
	int n;

	for (n = 0; n < (int)(KSTACK_SIZE / PAGE_SIZE); n++) {
		uint64_t pa = frame_alloc();
		if (!pa || map_page(vm_kernel(), base + n * PAGE_SIZE, pa, PTE_WRITE | PTE_NX)) {
			if (pa)
				frame_unref(pa);
			unmap_stack(base, n);
			return NULL;
		}
	}
	return (void *)base;
}

/* Places the user trapframe at the stack top and, below it, the frame
 * switch_to pops so the task's first run enters task_first_run. */
static void prepare_stack(struct task *t)
{
	uint64_t *sp;

	t->tf = (struct trapframe *)((char *)t->kstack + KSTACK_SIZE) - 1;
	memset(t->tf, 0, sizeof(*t->tf));
	sp = (uint64_t *)t->tf;
	*--sp = (uint64_t)task_first_run;
	for (int i = 0; i < 6; i++) /* rbp rbx r12 r13 r14 r15 */
		*--sp = 0;
	t->ctx_rsp = (uint64_t)sp;
}

struct task *task_alloc(const char *name)
{
	struct task *t = kzalloc(sizeof(*t));
	int slot;

	if (!t)
		return NULL;
	/* Complete before the task is on the list, where others look. */
	strlcpy(t->name, name, sizeof(t->name));
	t->state = TASK_NEW;
	sched_task_init(t);
	list_init(&t->group_link);
	wait_queue_init(&t->vfork_wait, "vfork");
	t->vm = vm_kernel();
	spin_lock(&proc_lock);
	if (ntasks == TASK_MAX || (!nfree_slots && next_slot == TASK_MAX)) {
		spin_unlock(&proc_lock);
		kfree(t);
		return NULL;
	}
	slot = nfree_slots ? free_slots[--nfree_slots] : next_slot++;
	ntasks++;
	t->pid = alloc_pid_locked();
	list_add_tail(&t->all_link, &all_tasks);
	spin_unlock(&proc_lock);

	t->kslot = slot;
	t->kstack = map_stack(slot);
	if (!t->kstack) {
		task_free(t);
		return NULL;
	}
	prepare_stack(t);
	fpu_reset(&t->fpu);
	return t;
}

void task_free(struct task *t)
{
	struct thread_group *last = NULL;

	/* Its stack is in use until the switch away from it completed (another
	 * CPU may still be in its schedule()).  Interim: branch grace19 has
	 * the full zombie-stack handshake. */
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE))
		cpu_relax();
	if (t->kstack)
		unmap_stack((uint64_t)t->kstack, KSTACK_SIZE / PAGE_SIZE);
	signal_release(t);
	spin_lock(&proc_lock);
	if (t->group && group_put_locked(t->group))
		last = t->group;
	list_del(&t->all_link);
	free_slots[nfree_slots++] = t->kslot;
	ntasks--;
	spin_unlock(&proc_lock);
	if (last)
		group_free(last);
	kfree(t);
}

int task_count(void)
{
	return ntasks;
}

int last_pid(void)
{
	return __atomic_load_n(&next_pid, __ATOMIC_RELAXED) - 1;
}

void task_for_each_locked(bool (*fn)(struct task *t, void *arg), void *arg)
{
	struct task *t;

	list_for_each_entry(t, &all_tasks, all_link)
	{
		if (t->group && !fn(t, arg))
			break;
	}
}

void task_for_each(bool (*fn)(struct task *t, void *arg), void *arg)
{
	spin_lock(&proc_lock);
	task_for_each_locked(fn, arg);
	spin_unlock(&proc_lock);
}
