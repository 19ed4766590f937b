/*
 * The OOM killer.  Only page faults get here (copy-on-write, stack growth):
 * mmap, brk and ramfs writes fail with ENOMEM/ENOSPC before they touch the
 * frame reserve (mm/frame.h), so when a fault finds no frame at all, memory
 * is really exhausted.  Killing the task that happened to fault would punish
 * whoever was unlucky; as Linux, kill the biggest process and let the
 * faulting task retry once the victim's memory is back.  Clean cached
 * file pages and disk blocks go first.
 */
#include "mm/oom.h"
#include "block/bcache.h"
#include "mm/filemap.h"
#include "lib/printk.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/signal.h"

struct oom_scan {
	int victim;	     /* pid of the biggest killable task, 0 if none */
	size_t pages;	     /* its resident pages */
	bool victim_pending; /* a task killed earlier still holds its memory */
};

/* Init is never chosen (its death ends the system), nor a task without
 * user memory: a kernel thread, a task being created, exiting or a zombie. */
static bool killable(const struct task *t)
{
	return t->group->tgid > 1 && !task_exited(t) && t->vm != vm_kernel();
}

/* task_for_each callback: finds the victim (proc_lock held, so t->vm is
 * stable: exec and exit replace it under proc_lock). */
static bool scan_task(struct task *t, void *arg)
{
	struct oom_scan *s = arg;

	/* A victim's memory comes back only once its last thread released
	 * it: with several CPUs the faulting task runs on meanwhile. */
	if (t->group->oom_victim && t->group->live > 0) {
		s->victim_pending = true;
		return false;
	}
	if (!killable(t))
		return true;
	if ((signal_pending_set(t) & SIGBIT(SIGKILL)) || t->group->exiting) {
		s->victim_pending = true;
		return false;
	}
	size_t pages = vm_resident_pages(t->vm);
	if (pages > s->pages) {
		s->victim = t->group->tgid;
		s->pages = pages;
	}
	return true;
}

/* task_for_each callback: kills the process whose pid is *arg (all its
 * threads) through its first killable thread. */
static bool kill_task(struct task *t, void *arg)
{
	if (t->group->tgid != *(int *)arg || !killable(t))
		return true;
	printk("oom: out of memory, killed %s[%d] (%zu KiB resident)\n", t->name, t->group->tgid,
	       vm_resident_pages(t->vm) * (PAGE_SIZE >> 10));
	signal_send_process_locked(t->group, SIGKILL, 0);
	t->group->oom_victim = true;
	return false;
}

/* Frames the caches give back before anyone is killed: clean cached file
 * pages (mm/filemap.c), then clean cached disk blocks (block/bcache.c), a
 * batch at a time.  Dirty pages are not written here: the fault may be a
 * writer's user copy holding the very page's lock; vm/dirty_ratio bounds
 * them instead. */
#define OOM_SHRINK_BATCH 64

bool oom_kill(void)
{
	struct oom_scan s = {0};

	if (filemap_shrink(OOM_SHRINK_BATCH) || bcache_shrink(OOM_SHRINK_BATCH))
		return true; /* the faulting task retries with those frames */
	task_for_each(scan_task, &s);
	if (s.victim_pending)
		return true;
	if (!s.victim)
		return false;
	task_for_each(kill_task, &s.victim);
	return true;
}
