/*
 * exit and exit_group.  An exiting thread releases its files, address
 * space and directory at once.  The last thread of a process hands its
 * children to init; the process then stays a zombie (its leader task,
 * holding only its kernel stack, and its thread group) until its parent
 * reaps it (reap.c).
 */
#include "proc/exit.h"
#include "proc/nsproxy.h"
#include "async/async.h"
#include "async/io_uring.h"
#include "proc/coredump.h"
#include "tty/ctty.h"
#include "proc/jobctl.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/qemu.h"
#include "arch/x86_64/uaccess.h"
#include "cmdline.h"
#include "fd/fdtable.h"
#include "ipc/ipc.h"
#include "fs/root_cwd.h"
#include "fs/inode.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "proc/futex.h"
#include "proc/leakcheck.h"
#include "proc/group.h"
#include "proc/nproc.h"
#include "proc/posix_timer.h"
#include "proc/pidfd.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "mm/uvm.h"
#include "sched/sched.h"
#include "proc/signal.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

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
	if (trap_nmi_count())
		printk("nmi: %lu received and ignored\n", trap_nmi_count());
	if (kopts.bench)
		qemu_exit(status == 0 ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
	if (!kopts.test)
		panic("init exited");
	task_release_resources(current());
	lockdep_print_orders();
	kcounters_read(&now);
	printk("kstack: the deepest use of a kernel stack was %zu of %d bytes\n",
	       task_stack_deepest(), KSTACK_SIZE);
	if (leakcheck_report(&counters_at_init, &now))
		status = status ? status : 1;
	qemu_exit(status == 0 ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
}

void task_release_resources(struct task *t)
{
	files_put(task_swap_files(t, NULL));
	sem_undo_exit(t);
	fs_put(task_swap_fs(t, NULL));
	nsproxy_release(t);
	/* Leave the address space before dropping it. */
	if (t == current())
		vm_switch(vm_kernel());
	uvm_put(task_swap_uvm(t, NULL));
}

/* Sends each live thread's PR_SET_PDEATHSIG signal to child c, whose
 * parent thread is exiting (proc_lock held), as Linux: process-directed,
 * SI_USER from the parent. */
static void send_pdeath_locked(struct thread_group *c, int from)
{
	struct task *t;

	list_for_each_entry(t, &c->threads, group_link) if (t->pdeath_signal)
	    signal_send_process_locked(c, t->pdeath_signal, from);
}

/*
 * Thread t of g is exiting (proc_lock held): the children it forked get
 * their parent-death signals and are handed to another live thread of g,
 * as Linux's forget_original_parent does for a thread's children.
 */
static void forget_parent_thread_locked(struct thread_group *g, struct task *t)
{
	struct thread_group *c;
	struct task *heir = NULL, *o;

	list_for_each_entry(o, &g->threads, group_link) if (o != t && !heir) heir = o;
	list_for_each_entry(c, &g->children, sibling) if (c->parent_tid == t->pid)
	{
		send_pdeath_locked(c, g->tgid);
		c->parent_tid = heir ? heir->pid : 0;
	}
}

/* Where g's orphans go (proc_lock held): the nearest live ancestor in
 * g's pid namespace that set PR_SET_CHILD_SUBREAPER, else the
 * namespace's init (Linux's find_new_reaper). */
static struct thread_group *new_reaper_locked(struct thread_group *g, struct thread_group *init)
{
	struct thread_group *reaper = pid_ns_reaper_locked(g);

	if (!reaper)
		reaper = init;
	for (struct thread_group *a = g->parent;
	     a && a != reaper && task_pid_ns(a->leader) == task_pid_ns(g->leader); a = a->parent)
		if (a->child_subreaper && a->state == GROUP_LIVE && !a->exiting)
			return a;
	return reaper;
}

/* Gives g's children to their new reaper (proc_lock held): a subreaper
 * or init, which reaps them.  Each will signal its exit with SIGCHLD, as
 * Linux's reparent_leader: init waits without __WCLONE; a zombie among
 * them is announced to its new parent now.  A child's group that this
 * orphans, with a stopped member, is hung up (proc/jobctl.h). */
static void reparent_children(struct thread_group *g, struct thread_group *init)
{
	struct thread_group *c, *n, *reaper = new_reaper_locked(g, init);

	list_for_each_entry_safe(c, n, &g->children, sibling)
	{
		list_del(&c->sibling);
		c->parent = reaper;
		c->parent_tid = reaper->leader->pid;
		c->exit_signal = SIGCHLD;
		list_add_tail(&c->sibling, &reaper->children);
		if (c->state == GROUP_ZOMBIE && reaper != init)
			signal_child_exited(c, c->exit_status);
		if (c->pgid != g->pgid && c->sid == g->sid)
			jobctl_orphaned_locked(c->pgid, g);
	}
	wake_up(&reaper->child_exit);
}

/* A parent that ignores SIGCHLD or set SA_NOCLDWAIT leaves no zombies
 * (POSIX, Linux): its children are reaped as they exit. */
static bool reaps_children_at_exit(struct thread_group *parent)
{
	struct uapi_sigaction a = signal_action(parent->leader, SIGCHLD);

	return a.handler == UAPI_SIG_IGN || (a.flags & UAPI_SA_NOCLDWAIT);
}

/*
 * The last thread of g exited with status (proc_lock held): the process
 * is a zombie for its parent, or dead at once if the parent reaps at
 * exit.  Its wait status is the group's if it died as a whole, else the
 * last thread's (Linux: a leader's earlier exit(3) does not count).
 */
static void group_dies_locked(struct thread_group *g, int status)
{
	/* Unreferenced: proc_lock is held, and init is never reaped. */
	struct thread_group *init = task_find_locked(1)->group;
	bool autoreap = reaps_children_at_exit(g->parent);

	itimer_exit(g);
	ctty_session_ended_locked(g);
	pid_ns_reaper_gone_locked(g);
	reparent_children(g, init);
	if (!g->exiting)
		g->exit_status = status;
	g->state = autoreap ? GROUP_DEAD : GROUP_ZOMBIE;
	pidfd_group_state_locked(g); /* readable; no longer its process if dead */
	if (g->parent->pgid != g->pgid && g->parent->sid == g->sid)
		jobctl_orphaned_locked(g->pgid, g); /* our own group, left by us */
	if (autoreap)
		list_del(&g->sibling); /* wait4 no longer sees it: ECHILD */
	/* Wakes a waiter that may now have a zombie, or no child left.  Still
	 * under proc_lock: the parent cannot exit and be reaped meanwhile. */
	wake_up(&g->parent->child_exit);
	wake_up(&init->child_exit);
	signal_child_exited(g, g->exit_status);
}

__attribute__((noreturn)) void task_exit(int status)
{
	struct task *t = current(), *free_leader = NULL;
	struct thread_group *g = t->group;
	bool last;

	if (g->tgid == 1 && g->live == 1)
		init_exited(status);
	/* Its asynchronous calls end with it, while its files and memory
	 * are still there for them (Linux's io_uring_files_cancel); the SQ
	 * threads of its rings end with its process (below). */
	async_task_exit(t, ASYNC_EXIT);
	io_uring_task_exit(t); /* its registered rings, as its files */
	/* Before anything of it goes: a core being written reads it. */
	coredump_park(t);
	/* While t's memory is still its own: the words to release are in it. */
	futex_exit_release(t);
	vfork_done(t);
	task_release_resources(t);
	spin_lock(&proc_lock);
	list_del(&t->group_link);
	list_init(&t->group_link);
	g->exited_utime += t->utime_ticks; /* times() counts the whole process */
	g->exited_stime += t->stime_ticks;
	task_io_sum(&g->exited_io, &t->io);
	forget_parent_thread_locked(g, t);
	nproc_leave_locked(g);
	last = --g->live == 0;
	/* After the count: de_thread reads it without proc_lock, and a
	 * wake-up before it could find the count not yet moved and sleep
	 * again with no one left to wake it. */
	wake_up(&g->thread_exit);
	if (last) {
		/* The process's SQ threads, its threads in Linux, end before
		 * it does (decided under proc_lock, as the pid namespace's). */
		spin_unlock(&proc_lock);
		io_sq_group_exit(g);
		spin_lock(&proc_lock);
	}
	if (last && pid_ns_is_reaper(g)) {
		/* A pid namespace's init takes the namespace with it, and
		 * reaps it before it goes: its last thread, decided under
		 * proc_lock whichever of its threads exit together. */
		spin_unlock(&proc_lock);
		pid_ns_zap(g);
		spin_lock(&proc_lock);
	}
	if (last)
		group_dies_locked(g, status);
	/* A leader stays, holding the pid, until its process is reaped. */
	if (!task_is_leader(t) && g->state == GROUP_DEAD)
		free_leader = g->leader; /* exited before us, and nobody reaps it */
	/* A deadline task's bandwidth is free again; under proc_lock with the
	 * state, so no sched_setattr comes in between (sched_set_dl). */
	sched_exit(t);
	sched_set_state(t, task_is_leader(t) && g->state != GROUP_DEAD ? TASK_ZOMBIE : TASK_DEAD);
	spin_unlock(&proc_lock);
	/* The process's timers go with it; their expiries queue nothing now
	 * (not live), and t's reference keeps g until they are gone. */
	if (last)
		posix_timers_exit(g);
	if (free_leader)
		task_free(free_leader);
	schedule();
	panic("exited task %d ran again", t->pid);
}

void group_kill_io_locked(struct thread_group *g)
{
	async_group_killed_locked(g);
	io_sq_group_killed_locked(g);
}

/* Kills every thread of g but keep (proc_lock held): each takes its
 * SIGKILL on its way back to user mode and exits; a thread that waits
 * for what an asynchronous call of the process holds gets there once
 * the call is interrupted (keep's own calls too: keep exits, or execs
 * and waits for the others' exits). */
void group_kill_others_locked(struct thread_group *g, struct task *keep)
{
	struct task *t;

	list_for_each_entry(t, &g->threads, group_link) if (t != keep) signal_kill_thread(t);
	group_kill_io_locked(g);
}

__attribute__((noreturn)) void group_exit(int status)
{
	struct task *t = current();
	struct thread_group *g = t->group;

	spin_lock(&proc_lock);
	if (!g->exiting) {
		g->exiting = true;
		g->exit_status = status;
		group_kill_others_locked(g, t);
	}
	spin_unlock(&proc_lock);
	task_exit(status);
}

SYSCALL_DEFINE1(exit, int, code)
{
	task_exit(W_EXITED(code));
}

SYSCALL_DEFINE1(exit_group, int, code)
{
	group_exit(W_EXITED(code));
}
