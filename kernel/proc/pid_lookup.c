/*
 * Finding the processes and threads /proc/<pid> and task/<tid> name:
 * whether they exist, the next one for a directory listing, who owns
 * their entries, who may inspect them, and their files table.
 */
#include "proc/pid_info.h"
#include "proc/pid_info_internal.h"

#include "fd/fdtable.h"
#include "proc/cred.h"
#include "mm/uvm.h"
#include <uapi/errno.h>

struct files_table *proc_pid_files(int pid)
{
	struct thread_group *g;
	struct files_table *files = NULL;

	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock);
	/* t->files is replaced under proc_lock (task_swap_files) */
	if ((g = group_of_locked(&r, pid)) && g->leader->files)
		files = files_borrow(g->leader->files);
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return files;
}

int proc_pid_may_access(int pid, bool mm)
{
	struct pid_ref r = pid_ref_get(pid, 0);
	struct thread_group *g;
	int err = -ESRCH;

	spin_lock(&proc_lock);
	if ((g = group_of_locked(&r, pid))) { /* t->uvm: swapped under proc_lock */
		struct task *t = g->leader;
		bool may = ptrace_may_access_locked(t, true) ||
			   (mm && (!t->uvm || capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN)));
		err = may ? 0 : -EPERM;
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return err;
}

void proc_pid_owner(int pid, bool world_dir, uint32_t *uid, uint32_t *gid)
{
	struct pid_ref r = pid_ref_get(pid, 0);
	struct thread_group *g;

	spin_lock(&proc_lock);
	if ((g = group_of_locked(&r, pid))) {
		const struct cred *c = group_cred(g);
		struct uvm *u = g->leader->uvm; /* swapped and dropped under proc_lock */
		bool root =
		    !world_dir && (!u || __atomic_load_n(&u->dumpable, __ATOMIC_RELAXED) != 1);
		*uid = root ? 0 : c->euid;
		*gid = root ? 0 : c->egid;
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
}

bool proc_pid_exists(int pid)
{
	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock);
	bool found = group_of_locked(&r, pid) != NULL;
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return found;
}

struct next_arg {
	int from, best;
};

static bool consider(struct task *t, void *arg)
{
	struct next_arg *a = arg;
	int id = t->group->tgid;

	if (t->pid == id && id >= a->from && (!a->best || id < a->best) &&
	    t->group->state != GROUP_DEAD)
		a->best = id;
	return true;
}

int proc_pid_next(int from)
{
	struct next_arg a = {from, 0};

	task_for_each(consider, &a);
	return a.best;
}

bool proc_tid_exists(int pid, int tid)
{
	struct pid_ref r = pid_ref_get(pid, tid);

	spin_lock(&proc_lock);
	bool found = thread_of_locked(&r, pid) != NULL;
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return found;
}

int proc_tid_next(int pid, int from)
{
	struct thread_group *g;
	struct task *t;
	int best = 0;
	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock);
	if ((g = group_of_locked(&r, pid))) {
		list_for_each_entry(t, &g->threads, group_link)
		{
			if (t->pid >= from && (!best || t->pid < best))
				best = t->pid;
		}
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return best;
}
