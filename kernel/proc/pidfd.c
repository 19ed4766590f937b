/*
 * pidfds (docs/pidfd.md): pidfd_open, pidfd_send_signal, pidfd_getfd,
 * poll readiness at exit, and the identity waitid(P_PIDFD) and
 * clone(CLONE_PIDFD) use.  A pidfd holds a struct pid_ident, the
 * process's identity (Linux's struct pid), never the process: its tasks,
 * memory and files go at exit and reap as without it, and a pid number
 * reused after the reap never reaches the new process through an old
 * pidfd.
 */
#include "proc/pidfd.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/proc/proc_pid.h"
#include "fs/event/poll.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/pid_ns.h"
#include "proc/signal.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/pidfd.h>
#include <uapi/poll.h>

#define SIGINFO_SIZE 128 /* the user's siginfo_t */

/*
 * A process's identity.  Lifetime: refs (atomic) counts one per pidfd
 * file, per /proc/<pid> inode (fs/proc/proc_pid.h) and per user in a call
 * (waitid).  The group's pointer to it (thread_group.ident) holds none:
 * it is cleared under proc_lock by the put that frees the identity, and
 * a new reference is taken from it only under proc_lock (ident_of_locked),
 * so a put that may be the last takes proc_lock (pid_ident_put).  So an
 * identity lasts while something names the process by it, not as long as
 * the process: a long-lived process looked at through /proc keeps none.
 */
struct pid_ident {
	uint32_t refs;
	int tgid; /* constant */
	/*
	 * The process while it is not reaped, NULL after.  Written under
	 * proc_lock: pidfd_group_state_locked clears it when the group
	 * becomes GROUP_DEAD, before the group can be freed, so whoever
	 * reads it non-NULL under proc_lock may use the group until
	 * unlocking.  Read atomically without the lock by poll.
	 */
	struct thread_group *group;
	bool exited;	      /* every thread exited (proc_lock; atomic for poll) */
	struct wait_queue wq; /* pollers, epoll: woken at exit and at the reap */
};

static unsigned long live_idents; /* atomic */
static const struct file_ops pidfd_ops;

unsigned long pidfd_ident_count(void)
{
	return __atomic_load_n(&live_idents, __ATOMIC_RELAXED);
}

static struct pid_ident *ident_alloc(void)
{
	struct pid_ident *id = kzalloc(sizeof(*id));

	if (!id)
		return NULL;
	wait_queue_init(&id->wq, "pidfd");
	__atomic_add_fetch(&live_idents, 1, __ATOMIC_RELAXED);
	return id;
}

/* Frees an identity nothing ever referenced (a spare). */
static void ident_free_unused(struct pid_ident *id)
{
	kfree(id);
	__atomic_sub_fetch(&live_idents, 1, __ATOMIC_RELAXED);
}

static void ident_get(struct pid_ident *id)
{
	__atomic_add_fetch(&id->refs, 1, __ATOMIC_RELAXED);
}

/* Linux's refcount_dec_and_lock: not the last reference, a plain
 * decrement; maybe the last, under proc_lock, where a lookup through the
 * group's pointer may have taken a new one meanwhile.  The caller holds
 * no proc_lock. */
void pid_ident_put(struct pid_ident *id)
{
	uint32_t r = __atomic_load_n(&id->refs, __ATOMIC_RELAXED);
	bool last;

	while (r > 1)
		if (__atomic_compare_exchange_n(&id->refs, &r, r - 1, true, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return;
	spin_lock(&proc_lock);
	last = __atomic_sub_fetch(&id->refs, 1, __ATOMIC_ACQ_REL) == 0;
	if (last && id->group && id->group->ident == id)
		id->group->ident = NULL;
	spin_unlock(&proc_lock);
	if (!last)
		return;
	kfree(id);
	__atomic_sub_fetch(&live_idents, 1, __ATOMIC_RELAXED);
}

/* g's identity with a reference for the caller (proc_lock held), made
 * from *spare (which the call then empties) if g had none. */
static struct pid_ident *ident_of_locked(struct thread_group *g, struct pid_ident **spare)
{
	struct pid_ident *id = g->ident;

	if (!id) {
		id = g->ident = *spare;
		*spare = NULL;
		id->refs = 0; /* the group's pointer holds none */
		id->tgid = g->tgid;
		id->group = g;
		id->exited = g->state != GROUP_LIVE;
	}
	ident_get(id);
	return id;
}

void pidfd_group_state_locked(struct thread_group *g)
{
	struct pid_ident *id = g->ident;

	if (!id)
		return;
	__atomic_store_n(&id->exited, true, __ATOMIC_RELEASE);
	if (g->state == GROUP_DEAD) { /* reaped: the two part for good */
		__atomic_store_n(&id->group, NULL, __ATOMIC_RELEASE);
		g->ident = NULL;
	}
	wake_up(&id->wq);
}

void pidfd_group_free(struct thread_group *g)
{
	/* ->group was cleared at the reap; in case a group ends otherwise,
	 * no identity may keep pointing at it. */
	spin_lock(&proc_lock);
	if (g->ident && g->ident->group == g)
		__atomic_store_n(&g->ident->group, NULL, __ATOMIC_RELEASE);
	g->ident = NULL;
	spin_unlock(&proc_lock);
}

bool pid_ident_alive(const struct pid_ident *id)
{
	return __atomic_load_n(&id->group, __ATOMIC_ACQUIRE) != NULL;
}

bool pid_ident_is_locked(const struct pid_ident *id, const struct thread_group *g)
{
	return id->group == g;
}

/* ---- The pidfd file ---- */

/* POLLIN once every thread exited, POLLHUP too once reaped (Linux 6.x). */
static unsigned pidfd_poll(struct file *f, struct poll_table *pt)
{
	struct pid_ident *id = f->priv;

	poll_wait(f, &id->wq, pt); /* id lives as long as f */
	if (!__atomic_load_n(&id->group, __ATOMIC_ACQUIRE))
		return POLLIN | POLLRDNORM | POLLHUP;
	return __atomic_load_n(&id->exited, __ATOMIC_ACQUIRE) ? POLLIN | POLLRDNORM : 0;
}

/* fdinfo's "Pid:" (as /proc numbers it: the initial namespace's) and
 * "NSpid:" (its number in each of its namespaces): -1 once reaped. */
static void pidfd_fdinfo(struct file *f, char *buf, size_t size)
{
	struct pid_ident *id = f->priv;
	struct thread_group *g;
	size_t len = 0;

	spin_lock(&proc_lock); /* the group stays while it is the pidfd's */
	if (!(g = __atomic_load_n(&id->group, __ATOMIC_ACQUIRE))) {
		appendk(buf, size, &len, "Pid:\t-1\nNSpid:\t-1\n");
	} else {
		appendk(buf, size, &len, "Pid:\t%d\n", id->tgid);
		pid_ns_append_nrs(buf, size, &len, "NSpid", id->tgid, task_pid_ns(g->leader));
	}
	spin_unlock(&proc_lock);
}

static void pidfd_release(struct file *f)
{
	pid_ident_put(f->priv);
}

static const struct file_ops pidfd_ops = {
    .anon_name = "anon_inode:[pidfd]",
    .poll = pidfd_poll,
    .show_fdinfo = pidfd_fdinfo,
    .release = pidfd_release,
};

/* A pidfd file for id (whose reference it takes over), or NULL. */
static struct file *pidfd_file(struct pid_ident *id, unsigned int flags)
{
	struct file *f = file_alloc(&pidfd_ops, O_RDWR | (flags & PIDFD_NONBLOCK), id);

	if (!f)
		pid_ident_put(id);
	return f;
}

/* The pidfd fd names, referenced in *out: 0 or -EBADF. */
static int pidfd_lookup(int fd, struct file **out)
{
	struct file *f = files_lookup(current()->files, fd);

	if (f && f->ops != &pidfd_ops) {
		file_put(f);
		f = NULL;
	}
	*out = f;
	return f ? 0 : -EBADF;
}

int pidfd_file_pid(struct file *f)
{
	struct pid_ident *id = f->priv;

	if (f->ops != &pidfd_ops)
		return -EBADF;
	return pid_ident_alive(id) ? id->tgid : -ESRCH;
}

int pidfd_ident_of_fd(int fd, struct pid_ident **out, bool *nonblock)
{
	struct file *f;
	int err = pidfd_lookup(fd, &f);

	if (err)
		return err;
	*out = f->priv;
	ident_get(*out);
	*nonblock = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK;
	file_put(f);
	return 0;
}

/* ---- pidfd_open ---- */

/* The identity of process pid, referenced, in *out: 0, -ESRCH (none, or
 * reaped), -ENOENT (pid is a thread, not a process, as Linux 6.9+
 * without PIDFD_THREAD), -ENOMEM. */
int pid_ident_find(int pid, struct pid_ident **out)
{
	struct pid_ident *spare = ident_alloc();
	struct task *t = task_find(pid); /* referenced: t and its group stay */
	int err = 0;

	if (!spare || !t) {
		err = t ? -ENOMEM : -ESRCH;
		goto out;
	}
	spin_lock(&proc_lock);
	if (t->group->state == GROUP_DEAD || (!task_is_leader(t) && task_exited(t)))
		err = -ESRCH;
	else if (t->group->tgid != pid)
		err = -ENOENT; /* Linux 6.9's answer (EINVAL before) */
	else
		*out = ident_of_locked(t->group, &spare);
	spin_unlock(&proc_lock);
out:
	task_put(t);
	if (spare)
		ident_free_unused(spare);
	return err;
}

SYSCALL_DEFINE2(pidfd_open, int, pid, unsigned int, flags)
{
	struct pid_ident *id;
	struct file *f;
	int fd, err;

	if (flags & ~PIDFD_NONBLOCK)
		return -EINVAL; /* PIDFD_THREAD (Linux 6.9) included */
	if (pid <= 0)
		return -EINVAL;
	if (!(pid = pid_from_vnr(pid)))
		return -ESRCH; /* none the caller can name */
	if ((err = pid_ident_find(pid, &id)))
		return err;
	if (!(f = pidfd_file(id, flags)))
		return -ENOMEM;
	fd = fd_install_new(f, O_CLOEXEC); /* always close-on-exec, as Linux */
	if (fd < 0)
		file_put(f);
	return fd;
}

/* ---- clone(CLONE_PIDFD) ---- */

int pidfd_clone_reserve(struct file **out)
{
	struct pid_ident *id = ident_alloc();
	int fd = fd_reserve(O_CLOEXEC, 0);

	if (fd < 0 || !id) {
		if (fd >= 0)
			fd_unreserve(fd);
		if (id)
			ident_free_unused(id);
		return fd < 0 ? fd : -ENOMEM;
	}
	id->refs = 1; /* the file's */
	if (!(*out = pidfd_file(id, 0))) {
		fd_unreserve(fd);
		return -ENOMEM;
	}
	return fd;
}

void pidfd_clone_install(int fd, struct file *f, struct thread_group *g)
{
	struct pid_ident *id = f->priv;

	spin_lock(&proc_lock);
	id->tgid = g->tgid;
	id->group = g;
	id->exited = g->state != GROUP_LIVE;
	g->ident = id; /* holds no reference: see struct pid_ident */
	spin_unlock(&proc_lock);
	fd_install(fd, f);
}

void pidfd_clone_cancel(int fd, struct file *f)
{
	fd_unreserve(fd);
	file_put(f);
}

/* ---- pidfd_send_signal ---- */

/* The sender's siginfo: the user's (checked as Linux: si_signo must be
 * sig; only the process itself may send a kernel or tkill code), or a
 * kill's.  0, -EFAULT, -EINVAL, -EPERM. */
static int send_info(const void *uinfo, int sig, bool to_self, struct sig_info *info)
{
	struct {
		int32_t signo, errnum, code, pad;
		uint8_t raw[SIGINFO_SIZE - 16];
	} si;

	*info = (struct sig_info){.code = SI_USER};
	if (!uinfo) {
		info->kill.pid = pid_vnr(current()->group->tgid);
		info->kill.uid = signal_sender_uid();
		return 0;
	}
	if (copy_from_user(&si, uinfo, sizeof(si)))
		return -EFAULT;
	if (si.signo != sig)
		return -EINVAL;
	if (!to_self && (si.code >= 0 || si.code == SI_TKILL))
		return -EPERM;
	info->code = si.code;
	info->err = si.errnum;
	memcpy(info->raw, si.raw, sizeof(info->raw));
	return 0;
}

#define PIDFD_SIGNAL_FLAGS                                                                         \
	(PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP | PIDFD_SIGNAL_PROCESS_GROUP)

/* Sends sig with info to whom flags name in g (proc_lock held): 0 or
 * -ESRCH (no process group of that id).  Exited targets ignore it. */
static int send_locked(struct pid_ident *id, int sig, const struct sig_info *info,
		       unsigned int flags)
{
	struct task *leader = id->group->leader;

	if (flags & PIDFD_SIGNAL_PROCESS_GROUP) /* the kill(-pid) of Linux's pidfds */
		return signal_send_group_locked(id->tgid, sig, current()->group->tgid);
	if (!(flags & PIDFD_SIGNAL_THREAD))
		return signal_send_process_info_locked(id->group, sig, info);
	return task_exited(leader) ? 0 : signal_send_info(leader, sig, info);
}

/* The identity of the process fd names, referenced: a pidfd's, or that of
 * the process an open /proc/<pid> directory was looked up for (Linux's
 * pidfd_to_pid: a pid reused since is not it); a thread's directory holds
 * a number only, so it names whoever has that number now.  -EBADF for
 * any other fd. */
static int signal_target(int fd, struct pid_ident **out)
{
	struct file *f = files_lookup(current()->files, fd);
	int pid = f && f->ops != &pidfd_ops ? proc_pid_dir_pid(f->inode) : 0;
	struct pid_ident *dir_id = pid ? proc_pid_dir_ident(f->inode) : NULL;
	int err = 0;

	if (!f)
		return -EBADF;
	if (f->ops == &pidfd_ops || dir_id) {
		*out = dir_id ? dir_id : f->priv;
		ident_get(*out);
	} else {
		err = pid ? pid_ident_find(pid, out) : -EBADF;
	}
	file_put(f);
	return err;
}

/* Whether the caller's pid namespace sees id's process (a reaped one
 * counts: its ESRCH comes later), as Linux's access_pidfd_pidns. */
static bool ident_visible(struct pid_ident *id)
{
	bool visible;

	spin_lock(&proc_lock); /* id->group is cleared under it, at the reaping */
	visible = !id->group || pid_ns_within(task_pid_ns(id->group->leader), current_pid_ns());
	spin_unlock(&proc_lock);
	return visible;
}

SYSCALL_DEFINE4(pidfd_send_signal, int, pidfd, int, sig, const void *, uinfo, unsigned int, flags)
{
	struct sig_info info;
	struct pid_ident *id;
	int err;

	if ((flags & ~PIDFD_SIGNAL_FLAGS) || (flags & (flags - 1)))
		return -EINVAL; /* unknown, or more than one target */
	if ((err = signal_target(pidfd, &id)))
		return err;
	if (!ident_visible(id)) {
		pid_ident_put(id);
		return -EINVAL; /* outside the caller's pid namespace */
	}
	/* "To itself": the caller's own thread id is the pid, and the target
	 * no wider than the process, as Linux. */
	err = send_info(uinfo, sig,
			id->tgid == current()->pid && !(flags & PIDFD_SIGNAL_PROCESS_GROUP), &info);
	if (!err) {
		spin_lock(&proc_lock);
		if (!id->group)
			err = -ESRCH; /* reaped: the number may name another process now */
		else if (sig < 0 || sig > UAPI_NSIG)
			err = -EINVAL;
		else if (!(flags & PIDFD_SIGNAL_PROCESS_GROUP))		/* a group: per member */
			err = signal_permission_locked(id->group, sig); /* sig 0 too */
		if (!err && sig)
			err = send_locked(id, sig, &info, flags);
		spin_unlock(&proc_lock);
	}
	pid_ident_put(id);
	return err;
}

/* ---- pidfd_getfd ---- */

/* The files table of id's process, borrowed, in *out: 0, or -ESRCH (reaped,
 * or exited: no files left; Linux 6.x says ESRCH for a zombie too), -EPERM
 * (Linux's ptrace_may_access, PTRACE_MODE_ATTACH_REALCREDS). */
static int ident_files(struct pid_ident *id, struct files_table **out)
{
	int err = 0;

	spin_lock(&proc_lock);
	/* task->files is replaced under proc_lock (task_swap_files) */
	if (!id->group || !id->group->leader->files)
		err = -ESRCH;
	else if (!ptrace_may_access_locked(id->group->leader, false))
		err = -EPERM;
	else
		*out = files_borrow(id->group->leader->files);
	spin_unlock(&proc_lock);
	return err;
}

SYSCALL_DEFINE3(pidfd_getfd, int, pidfd, int, targetfd, unsigned int, flags)
{
	struct files_table *files;
	struct file *pf, *f;
	int err, fd;

	if (flags)
		return -EINVAL;
	if ((err = pidfd_lookup(pidfd, &pf)))
		return err;
	err = ident_files(pf->priv, &files);
	file_put(pf);
	if (err)
		return err;
	f = files_lookup(files, targetfd);
	files_unborrow(files);
	if (!f)
		return -EBADF;
	fd = fd_install_new(f, O_CLOEXEC); /* always close-on-exec, as Linux */
	if (fd < 0)
		file_put(f);
	return fd;
}
