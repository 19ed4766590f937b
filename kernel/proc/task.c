/*
 * Task creation and lookup: pids, kernel stacks with guard pages, the
 * process tree.  A kernel stack is 16 KiB mapped in its own 32 KiB slot of
 * the kernel-stack region, so an overflow hits an unmapped page (a double
 * fault on the IST stack reports it) instead of the neighbour's stack.
 */
#include "proc/task.h"
#include "proc/cred.h"
#include "fd/fdtable.h"
#include "fs/proc/proc_sys.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "mm/uvm.h"
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
/*
 * Slots whose stack stayed mapped when its task was freed (Linux's
 * cached_stacks): the next task_alloc takes one and maps nothing, and that
 * exit unmapped nothing; without them a fork+exit maps and unmaps four
 * pages and often a page table.  When the cache is full, an exit gives
 * its stack back with 14 of the cache's (RELEASE_BATCH): unmapping a
 * kernel stack is a TLB shootdown of every CPU, so a burst of exits (the
 * io_uring workers of a ring) pays one per batch, not one per task.  The
 * leak check drains them (task_stack_cache_drain) so its frame count
 * stays exact.  Under proc_lock.
 */
#define WARM_MAX 32
/* 15 stacks are 60 frames: with the tables they leave empty, they fit one
 * shootdown's gather (GATHER_FRAMES, mm/tlb.h). */
#define RELEASE_BATCH 15
static int warm_slots[WARM_MAX];
static int nwarm;

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
	/* The space it leaves keeps counting in the process's ru_maxrss
	 * (Linux's setmax_mm_hiwater_rss at exec and exit). */
	if (old && t->group && vm_hiwater_pages(old->space) > t->group->maxrss)
		t->group->maxrss = vm_hiwater_pages(old->space);
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

struct fs_struct *task_swap_fs(struct task *t, struct fs_struct *fs)
{
	spin_lock(&proc_lock);
	struct fs_struct *old = t->fs;
	t->fs = fs;
	spin_unlock(&proc_lock);
	return old;
}

int task_unshare_files(struct task *t)
{
	int err;
	struct files_table *files = files_private(t->files, &err);

	if (!files)
		return err;
	if (files != t->files)
		files_put(task_swap_files(t, files));
	return 0;
}

struct task *task_find_locked_vnr(int nr)
{
	int pid = pid_from_vnr(nr);

	return pid ? task_find_locked(pid) : NULL;
}

struct task *task_find_vnr(int nr)
{
	int pid = pid_from_vnr(nr);

	return pid ? task_find(pid) : NULL;
}

struct task *task_find(int pid)
{
	spin_lock(&proc_lock);
	struct task *t = task_find_locked(pid);
	if (t)
		task_get(t); /* proc_lock keeps t until then */
	spin_unlock(&proc_lock);
	return t;
}

struct task *task_find_or_self(int pid)
{
	struct task *self = current();

	if (pid)
		return task_find_vnr(pid);
	task_get(self);
	return self;
}

/* The caller already holds a reference (or proc_lock, with t listed). */
void task_get(struct task *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

/* The struct and what it references until the end: its handlers, its
 * group (the last task of a group frees it). */
void task_put(struct task *t)
{
	struct thread_group *last = NULL;

	/* Acq-rel: every holder's use of t happens before the free. */
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	signal_flush_thread(t);
	signal_release(t);
	spin_lock(&proc_lock);
	if (t->group && group_put_locked(t->group))
		last = t->group;
	spin_unlock(&proc_lock);
	if (last)
		group_free(last);
	kfree(t);
}

/*
 * /proc/sys/kernel/pid_max: pids are below it (Linux's bounds: above the
 * 300 reserved ones, at most PID_MAX_LIMIT).  Atomic; read at each
 * allocation, so a new value takes effect with the next pid.
 */
#define RESERVED_PIDS 300
static int pid_max = PID_MAX_DEFAULT;
PROC_SYS_ROW(pid_max_row, .path = "kernel/pid_max", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &pid_max, .min = RESERVED_PIDS + 1,
	     .max = PID_MAX_LIMIT);

/*
 * /proc/sys/kernel/ns_last_pid (Linux's CHECKPOINT_RESTORE): the pid
 * given out last.  Writing n, 0..pid_max, makes the next allocation start
 * at n + 1, so the next process gets n + 1 if it is free: how
 * checkpoint/restore tools recreate a pid.  The file is 0666; a writer
 * needs CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN (EPERM first, as Linux's
 * handler).  next_pid changes under proc_lock.
 */
static long ns_last_pid_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	(void)row;
	return snprintk(buf, size, "%d\n", last_pid());
}

static long ns_last_pid_store(const struct proc_sys_row *row, const char *text, size_t len,
			      uint64_t *pos)
{
	size_t used;
	long v;
	int err;

	(void)row;
	if (!capable(CAP_CHECKPOINT_RESTORE) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (*pos) { /* sysctl_writes_strict: taken, ignored */
		*pos += len;
		return (long)len;
	}
	if ((err = proc_sys_parse_long(text, len, &v, &used)))
		return err;
	if (v < 0 || v > __atomic_load_n(&pid_max, __ATOMIC_RELAXED))
		return -EINVAL;
	spin_lock(&proc_lock);
	__atomic_store_n(&next_pid, (int)v + 1, __ATOMIC_RELAXED);
	spin_unlock(&proc_lock);
	*pos += used;
	return (long)used;
}

PROC_SYS_ROW(ns_last_pid_row, .path = "kernel/ns_last_pid", .mode = 0666, .show = ns_last_pid_show,
	     .store = ns_last_pid_store);

/* The most tasks, threads and zombies included (fork and clone: EAGAIN). */
static int threads_max = TASK_MAX;
PROC_SYS_ROW(threads_max_row, .path = "kernel/threads-max", .mode = 0444, .show = proc_sys_int_show,
	     .data = &threads_max);

/*
 * Caller holds proc_lock.  Pids count up from 1 below pid_max, then wrap
 * to RESERVED_PIDS as Linux's, skipping pids in use.  Of ntasks + 1
 * candidates one is free unless the range has no more (then it was all
 * tried): 0 then, and the fork fails with EAGAIN.
 */
static int alloc_pid_locked(void)
{
	int max = __atomic_load_n(&pid_max, __ATOMIC_RELAXED);

	for (int tries = 0; tries <= ntasks; tries++) {
		int pid = next_pid < max ? next_pid : RESERVED_PIDS;
		__atomic_store_n(&next_pid, pid + 1, __ATOMIC_RELAXED); /* last_pid() reads it */
		if (!task_with_pid_locked(pid))
			return pid;
	}
	return 0;
}

int task_pid_max(void)
{
	return __atomic_load_n(&pid_max, __ATOMIC_RELAXED);
}

int task_set_pid(struct task *t, int pid)
{
	int err = 0;

	spin_lock(&proc_lock);
	if (pid != t->pid && task_with_pid_locked(pid))
		err = -EEXIST;
	else
		t->pid = pid;
	spin_unlock(&proc_lock);
	return err;
}

/* Also frees the page tables the region's last stack leaves empty: kept,
 * 1024 tasks left 16 frames of tables behind (the leak check saw them). */
static void unmap_stack(uint64_t base, int npages)
{
	vm_unmap_range(vm_kernel(), base, (uint64_t)npages * PAGE_SIZE);
}

/* Where slot's stack lies: the slot's top half (the first stays unmapped: guard). */
static uint64_t stack_base(int slot)
{
	return KSTACK_REGION + (uint64_t)slot * KSTACK_SLOT + KSTACK_SLOT - KSTACK_SIZE;
}

/* Maps a fresh stack in slot. */
static void *map_stack(int slot)
{
	uint64_t base = stack_base(slot);
	int n;

	for (n = 0; n < (int)(KSTACK_SIZE / PAGE_SIZE); n++) {
		uint64_t pa = frame_zalloc(); /* zeroed: measure_stack reads the depth */
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
	bool warm;

	if (!t)
		return NULL;
	/* Complete before the task is on the list, where others look. */
	strlcpy(t->name, name, sizeof(t->name));
	t->refs = 1; /* being a task: task_free drops it */
	t->state = TASK_NEW;
	sched_task_init(t);
	list_init(&t->group_link);
	list_init(&t->futex_pi_states);
	sigpending_init(&t->sig.pending);
	wait_queue_init(&t->vfork_wait, "vfork");
	t->vm = vm_kernel();
	spin_lock(&proc_lock);
	if (ntasks == TASK_MAX || (!nwarm && !nfree_slots && next_slot == TASK_MAX) ||
	    !(t->pid = alloc_pid_locked())) {
		spin_unlock(&proc_lock);
		kfree(t);
		return NULL;
	}
	warm = nwarm > 0;
	if (warm)
		slot = warm_slots[--nwarm];
	else
		slot = nfree_slots ? free_slots[--nfree_slots] : next_slot++;
	ntasks++;
	list_add_tail(&t->all_link, &all_tasks);
	spin_unlock(&proc_lock);

	t->kslot = slot;
	t->kstack = warm ? (void *)stack_base(slot) : map_stack(slot);
	if (!t->kstack) {
		task_free(t);
		return NULL;
	}
	prepare_stack(t);
	fpu_reset(&t->fpu);
	return t;
}

/*
 * A stack's frames come zeroed (map_stack), and no task zeroes its stack
 * again, so its lowest non-zero word is as deep as any task that ran on it
 * went.  Read as the stack is unmapped: every stack is measured once per
 * mapping.
 */
static size_t stack_deepest; /* bytes; atomic */

static void measure_stack(uint64_t base)
{
	const uint64_t *w = (const uint64_t *)base;
	size_t i = 0, used, seen;

	while (i < KSTACK_SIZE / sizeof(*w) && !w[i])
		i++;
	used = KSTACK_SIZE - i * sizeof(*w);
	seen = __atomic_load_n(&stack_deepest, __ATOMIC_RELAXED);
	while (used > seen && !__atomic_compare_exchange_n(&stack_deepest, &seen, used, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

size_t task_stack_deepest(void)
{
	return __atomic_load_n(&stack_deepest, __ATOMIC_RELAXED);
}

/* Gives n slots back, their stacks unmapped with one shootdown per
 * RELEASE_BATCH of them.  proc_lock not held. */
static void release_slots(const int *slots, int n)
{
	struct vm_extent r[WARM_MAX];

	for (int i = 0; i < n; i++) {
		measure_stack(stack_base(slots[i]));
		r[i] = (struct vm_extent){.va = stack_base(slots[i]), .len = KSTACK_SIZE};
	}
	vm_unmap_ranges(vm_kernel(), r, n);
	spin_lock(&proc_lock);
	for (int i = 0; i < n; i++)
		free_slots[nfree_slots++] = slots[i];
	spin_unlock(&proc_lock);
}

void task_stack_cache_drain(void)
{
	int slots[WARM_MAX], n;

	spin_lock(&proc_lock);
	n = nwarm;
	memcpy(slots, warm_slots, n * sizeof(*slots));
	nwarm = 0;
	spin_unlock(&proc_lock);
	release_slots(slots, n);
}

/*
 * xv6's handshake: t's stack is in use until the CPU that ran it has
 * switched away (finish_switch clears on_cpu).  Spins with interrupts on
 * and no lock held, so that CPU, or one that needs this one for a
 * cross-CPU call meanwhile, is never kept waiting.
 */
void task_wait_switched_out(struct task *t)
{
	/* Acquire: pairs with finish_switch's release; its last use of the
	 * stack happens before ours. */
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE)) {
		kassert(t != current() && (read_rflags() & RFLAGS_IF) &&
			!this_cpu()->irq_off_depth);
		cpu_relax();
	}
}

void task_free(struct task *t)
{
	int batch[RELEASE_BATCH], n = 0;

	task_wait_switched_out(t);
	/* sched_exit's promise, which every end of a task that ran keeps: no
	 * timer of the scheduler's refers to it (the tick would run it freed). */
	kassert(!ktimer_busy(&task_sched(t)->sleep_timer) &&
		!ktimer_busy(&task_sched(t)->dl_timer));
	spin_lock(&proc_lock);
	list_del(&t->all_link);
	/* With its pid, which may then be given again; under proc_lock, so
	 * that no one walking the tasks finds it without them. */
	pid_numbers_free(t);
	if (!t->kstack) {
		free_slots[nfree_slots++] = t->kslot; /* nothing mapped */
	} else if (nwarm < WARM_MAX) {
		warm_slots[nwarm++] = t->kslot;
	} else { /* full: this stack and others of the cache go at once */
		batch[n++] = t->kslot;
		while (n < RELEASE_BATCH)
			batch[n++] = warm_slots[--nwarm];
	}
	ntasks--;
	spin_unlock(&proc_lock);
	if (n)
		release_slots(batch, n);
	task_put(t);
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
