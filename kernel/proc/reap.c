/*
 * wait4 and waitid: finding a process's exited children and reaping them.
 * Children are processes (thread groups), never threads: any thread of
 * the parent may wait for any child of its process.  A child's sibling
 * link, state and status are read under proc_lock; a reaped zombie leaves
 * its parent's list under it and its leader task (which frees the group
 * with the last reference) is then freed by the reaper alone.
 */
#include "arch/x86_64/uaccess.h"
#include "proc/exit.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/pidfd.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "proc/user_namespace.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include "proc/rusage.h"
#include <uapi/errno.h>
#include <uapi/signal.h>
#include <uapi/wait.h>

#define WAIT4_OPTIONS (WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL)
#define WAITID_OPTIONS                                                                             \
	(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL)

/* Which children a wait is for, and how. */
struct wait_opts {
	int type;	  /* P_ALL, P_PID, P_PGID or P_PIDFD */
	int id;		  /* the pid or the process group */
	unsigned options; /* W* bits: WEXITED makes zombies reportable */
	/* P_PIDFD: the process, by identity (referenced for the call), so a
	 * reused pid number never matches; none once it is reaped. */
	struct pid_ident *ident;
};

/* What a wait found. */
struct wait_found {
	int pid;
	uint32_t uid;	       /* its real uid (waitid's si_uid) */
	int status;	       /* wait status encoding (exit.h) */
	uint64_t utime, stime; /* CPU ticks of the child and its reaped children */
	size_t maxrss;	       /* pages: its ru_maxrss */
};

static bool child_matches(const struct thread_group *c, const struct wait_opts *w)
{
	/* Linux: a child that signals its exit with anything but SIGCHLD is
	 * a "clone" child, seen only with __WCLONE; __WALL sees both kinds. */
	if (!(w->options & __WALL) && (c->exit_signal != SIGCHLD) != !!(w->options & __WCLONE))
		return false;
	switch (w->type) {
	case P_PID:
		return c->tgid == w->id;
	case P_PGID:
		return c->pgid == w->id;
	case P_PIDFD:
		return pid_ident_is_locked(w->ident, c);
	default:
		return true;
	}
}

/* What c has for w to report (a wait status), or -1 (proc_lock held). */
static int report_of(const struct thread_group *c, const struct wait_opts *w)
{
	if (c->state == GROUP_ZOMBIE)
		return w->options & WEXITED ? c->exit_status : -1;
	if (!c->report)
		return -1;
	if (c->report == W_CONTINUED)
		return w->options & WCONTINUED ? c->report : -1;
	return w->options & WSTOPPED ? c->report : -1;
}

/*
 * A child of parent that w may report, its status in *status, or NULL
 * with *any set if some child matches but has nothing to report yet
 * (proc_lock held): an exit, or a stop or continue not yet reported.
 */
static struct thread_group *find_reportable_locked(struct thread_group *parent,
						   const struct wait_opts *w, bool *any,
						   int *status)
{
	struct thread_group *c;

	*any = false;
	list_for_each_entry(c, &parent->children, sibling)
	{
		if (!child_matches(c, w))
			continue;
		*any = true;
		if ((*status = report_of(c, w)) != -1)
			return c;
	}
	return NULL;
}

/* The wake-up condition: something to report, or no such child at all. */
static bool wait_ready(const struct wait_opts *w)
{
	struct thread_group *z;
	bool any;
	int status;

	spin_lock(&proc_lock);
	z = find_reportable_locked(current()->group, w, &any, &status);
	spin_unlock(&proc_lock);
	return z || !any;
}

/* One pass: 1 with *found filled (the zombie reaped, the stop or continue
 * marked reported, unless WNOWAIT), 0 if nothing is ready, or -ECHILD. */
static int try_wait(const struct wait_opts *w, struct wait_found *found)
{
	struct thread_group *z;
	struct task *leader = NULL;
	bool any;
	int status;

	spin_lock(&proc_lock);
	z = find_reportable_locked(current()->group, w, &any, &status);
	if (z) {
		*found = (struct wait_found){.pid = pid_nr_ns(z->tgid, current_pid_ns()),
					     .uid = group_cred(z)->uid,
					     .status = status};
		group_cpu_ticks_locked(z, &found->utime, &found->stime);
		found->utime += z->children_utime;
		found->stime += z->children_stime;
		/* Its spaces are gone (exit left them): the most it and its
		 * reaped children had (Linux's RUSAGE_BOTH). */
		found->maxrss = z->maxrss > z->children_maxrss ? z->maxrss : z->children_maxrss;
	}
	if (z && z->state != GROUP_ZOMBIE) {
		if (!(w->options & WNOWAIT))
			z->report = 0; /* a stop or continue is reported once */
	} else if (z && !(w->options & WNOWAIT)) {
		/* Reaping hands the child's time to us (Linux's cutime), and
		 * its I/O, its own reaped children's in it (wait_task_zombie). */
		current()->group->children_utime += found->utime;
		current()->group->children_stime += found->stime;
		if (found->maxrss > current()->group->children_maxrss)
			current()->group->children_maxrss = found->maxrss;
		task_io_sum(&current()->group->exited_io, &z->exited_io);
		list_del(&z->sibling);
		z->state = GROUP_DEAD;
		pidfd_group_state_locked(z); /* its pidfds stop naming it */
		leader = z->leader;
	}
	spin_unlock(&proc_lock);
	if (leader)
		task_free(leader);
	if (z)
		return 1;
	return any ? 0 : -ECHILD;
}

/* Waits as w says: 1 (found), 0 (WNOHANG and nothing yet), -ECHILD, or
 * -ERESTARTSYS if a signal came first. */
static int do_wait(const struct wait_opts *w, struct wait_found *found)
{
	int ret;

	for (;;) {
		ret = try_wait(w, found);
		if (ret || (w->options & WNOHANG))
			return ret;
		ret = wait_event_interruptible(&current()->group->child_exit, wait_ready(w));
		if (ret)
			return ret;
	}
}

void reap_all_children(void)
{
	struct wait_opts w = {P_ALL, 0, WEXITED | __WALL | WNOHANG, NULL};
	struct wait_found found;
	int ret;

	while ((ret = try_wait(&w, &found)) >= 0) {
		DEFINE_WAIT(we);

		if (ret)
			continue;
		prepare_to_wait(&current()->group->child_exit, &we);
		if (!wait_ready(&w))
			schedule(); /* not interruptible: the caller is dying */
		finish_wait(&current()->group->child_exit, &we);
	}
}

/* wait4's pid: > 0 that child, -1 any, 0 the caller's group, < -1 group
 * -pid (numbers in the caller's pid namespace; one that names nothing
 * there matches no child, as global pid 0). */
static struct wait_opts wait4_opts(int pid, int options)
{
	struct wait_opts w = {P_PID, pid_from_vnr(pid), options | WEXITED, NULL};

	if (pid == -1)
		w.type = P_ALL;
	else if (pid <= 0)
		w = (struct wait_opts){P_PGID, pid ? pid_from_vnr(-pid) : current_pgid(), w.options,
				       NULL};
	return w;
}

SYSCALL_DEFINE4(wait4, int, pid, int *, ustatus, int, options, void *, urusage)
{
	struct wait_opts w;
	struct wait_found found;
	int ret;

	if (options & ~WAIT4_OPTIONS)
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH; /* -pid does not exist (Linux) */
	w = wait4_opts(pid, options);
	if (ustatus && !user_range_ok((uint64_t)ustatus, sizeof(int)))
		return -EFAULT;
	ret = do_wait(&w, &found);
	if (ret <= 0)
		return ret;
	if (ustatus && copy_to_user(ustatus, &found.status, sizeof(found.status)))
		return -EFAULT;
	if (urusage && put_rusage(urusage, found.utime, found.stime, found.maxrss))
		return -EFAULT;
	return found.pid;
}

/* P_PIDFD: the pidfd's process into w (referenced); a non-blocking pidfd
 * waits as WNOHANG: 0, -EINVAL, -EBADF. */
static int waitid_pidfd(int fd, struct wait_opts *w, bool *nonblock)
{
	int err;

	if (fd < 0)
		return -EINVAL;
	if ((err = pidfd_ident_of_fd(fd, &w->ident, nonblock)))
		return err;
	if (*nonblock)
		w->options |= WNOHANG;
	return 0;
}

/* Checks waitid's arguments into *w: 0, -EINVAL, or -EBADF (P_PIDFD). */
static int waitid_opts(int idtype, int id, int options, struct wait_opts *w, bool *nonblock)
{
	if (options & ~WAITID_OPTIONS)
		return -EINVAL;
	if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	*w = (struct wait_opts){idtype, id, options, NULL};
	if (idtype == P_PID || (idtype == P_PGID && id > 0))
		w->id = pid_from_vnr(id); /* the caller's number of it */
	switch (idtype) {
	case P_ALL:
		return 0;
	case P_PID:
		return id > 0 ? 0 : -EINVAL;
	case P_PGID:
		if (!id)
			w->id = current_pgid();
		return id >= 0 ? 0 : -EINVAL;
	case P_PIDFD:
		return waitid_pidfd(id, w, nonblock);
	default:
		return -EINVAL;
	}
}

/* The siginfo fields waitid writes, at their Linux offsets; the rest of
 * the user's siginfo_t is left alone, as Linux does. */
struct waitid_head {
	int32_t signo, errnum, code;
};
struct waitid_tail {
	int32_t pid;
	uint32_t uid;
	int32_t status;
};
#define WAITID_TAIL_OFFSET 16

/* Writes waitid's siginfo: the child found, or zeroes (Linux writes them
 * whatever the result). */
static int put_waitid_info(char *uinfo, bool found, const struct wait_found *f)
{
	struct waitid_head head = {0, 0, 0};
	struct waitid_tail tail = {0, 0, 0};

	if (found) {
		head = (struct waitid_head){SIGCHLD, 0, wait_status_code(f->status)};
		tail = (struct waitid_tail){f->pid, from_kuid_munged(current_user_ns(), f->uid),
					    wait_status_value(f->status)};
	}
	if (copy_to_user(uinfo, &head, sizeof(head)) ||
	    copy_to_user(uinfo + WAITID_TAIL_OFFSET, &tail, sizeof(tail)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE5(waitid, int, idtype, int, id, char *, uinfo, int, options, void *, urusage)
{
	struct wait_opts w = {0};
	struct wait_found found;
	bool nonblock = false;
	int ret = waitid_opts(idtype, id, options, &w, &nonblock);

	if (!ret)
		ret = do_wait(&w, &found);
	if (!ret && nonblock && !(options & WNOHANG))
		ret = -EAGAIN; /* a PIDFD_NONBLOCK pidfd's child has not exited (Linux) */
	if (w.ident)
		pid_ident_put(w.ident);
	if (ret > 0 && urusage && put_rusage(urusage, found.utime, found.stime, found.maxrss))
		return -EFAULT;
	if (uinfo && put_waitid_info(uinfo, ret > 0, &found))
		return -EFAULT;
	return ret > 0 ? 0 : ret;
}
