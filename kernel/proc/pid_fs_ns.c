/*
 * What /proc/<pid> shows of a process's file-system context and
 * namespaces: exe, root, cwd, mounts and mountinfo, ns/ and
 * timens_offsets.  Each looks the process up under proc_lock and takes a
 * reference to what it reports before the lock is dropped.
 */
#include "proc/pid_info.h"
#include "proc/pid_info_internal.h"

#include "fs/mount.h"
#include "fs/root_cwd.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "proc/nsproxy.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include "mm/uvm.h"
#include "time/timens.h"
#include <uapi/errno.h>

int proc_pid_exe(int pid, char *buf)
{
	struct thread_group *g;
	int err = 0;
	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock);
	if (!(g = group_of_locked(&r, pid)))
		err = -ESRCH;
	else if (!g->leader->uvm || !g->leader->uvm->exe_path)
		err = -ENOENT;
	else
		strlcpy(buf, g->leader->uvm->exe_path, PATH_MAX);
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return err;
}

/* pid's fs_struct, shared (fs_put it), or NULL with *err -ESRCH (no such
 * process) or -ENOENT (it has exited). */
static struct fs_struct *pid_fs_get(int pid, int *err)
{
	struct thread_group *g;
	struct fs_struct *fs = NULL;
	struct pid_ref r = pid_ref_get(pid, 0);

	*err = 0;
	spin_lock(&proc_lock);
	/* t->fs is cleared under proc_lock at exit (exit.c) */
	if (!(g = group_of_locked(&r, pid)))
		*err = -ESRCH;
	else if (!g->leader->fs)
		*err = -ENOENT;
	else
		fs = fs_share(g->leader->fs);
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return fs;
}

/* /proc/<pid>/mounts and mountinfo: its namespace, from its root. */
long pid_mounts_text(int pid, bool info, char *buf, size_t size)
{
	int err;
	struct fs_struct *fs = pid_fs_get(pid, &err);
	long n;

	if (!fs)
		return err == -ENOENT ? 0 : err; /* a zombie's is empty */
	n = info ? mountinfo_text(fs, buf, size) : mounts_text(fs, buf, size);
	fs_put(fs);
	return n;
}

int proc_pid_fs_path(int pid, bool root, char *buf)
{
	int err;
	struct fs_struct *fs = pid_fs_get(pid, &err);

	if (fs) {
		struct path dir;
		long n;
		if (root)
			fs_get_root(fs, &dir);
		else
			fs_get_cwd(fs, &dir);
		n = vfs_getcwd(&dir, buf, PATH_MAX);
		err = n < 0 ? (int)n : 0;
		path_put(&dir);
		fs_put(fs);
	}
	return err;
}

/* The namespace of kind an nsproxy holds, its children's with children. */
static struct ns_common *nsproxy_ns(struct nsproxy *n, enum ns_kind kind, bool children)
{
	switch (kind) {
	case NS_UTS:
		return uts_ns_common(n->uts);
	case NS_IPC:
		return ipc_ns_common(n->ipc);
	case NS_PID: /* the nsproxy has only where children go */
		return &n->pid_ns_for_children->ns;
	default:
		return timens_common(children ? n->time_for_children : n->time);
	}
}

/* pid's namespace of a kind its nsproxy holds (uts, ipc, time; pid for
 * children), its children's with children, referenced, or NULL with *err -ESRCH (no such
 * process) or -ENOENT (it has exited). */
static struct ns_common *pid_nsproxy_ns(int pid, enum ns_kind kind, bool children, int *err)
{
	struct thread_group *g;
	struct ns_common *ns = NULL;
	struct pid_ref r = pid_ref_get(pid, 0);

	*err = 0;
	spin_lock(&proc_lock);
	/* t->nsproxy is replaced and cleared under proc_lock (nsproxy.c) */
	if (!(g = group_of_locked(&r, pid)))
		*err = -ESRCH;
	else if (!g->leader->nsproxy)
		*err = -ENOENT;
	else {
		ns = nsproxy_ns(g->leader->nsproxy, kind, children);
		ns->ops->get(ns);
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return ns;
}

/* pid's user namespace, its creds', referenced, or NULL with *err
 * -ESRCH. */
static struct ns_common *pid_user_ns(int pid, int *err)
{
	struct thread_group *g;
	struct user_namespace *ns = NULL;
	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock); /* g alive, so its cred and that its namespace */
	if ((g = group_of_locked(&r, pid)))
		user_ns_get(ns = group_cred(g)->user_ns);
	else
		*err = -ESRCH;
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return ns ? &ns->ns : NULL;
}

/* pid's own pid namespace (its numbers', constant), referenced, or NULL
 * with *err -ESRCH. */
static struct ns_common *pid_active_ns(int pid, int *err)
{
	struct thread_group *g;
	struct pid_namespace *ns = NULL;
	struct pid_ref r = pid_ref_get(pid, 0);

	spin_lock(&proc_lock);
	if ((g = group_of_locked(&r, pid)))
		pid_ns_get(ns = task_pid_ns(g->leader));
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	*err = ns ? 0 : -ESRCH;
	return ns ? &ns->ns : NULL;
}

struct ns_common *proc_pid_ns(int pid, enum ns_kind kind, int *err)
{
	struct fs_struct *fs;
	struct ns_common *ns;

	if (kind == NS_UTS || kind == NS_IPC || kind == NS_TIME)
		return pid_nsproxy_ns(pid, kind, false, err);
	if (kind == NS_PID)
		return pid_active_ns(pid, err);
	if (kind == NS_USER)
		return pid_user_ns(pid, err);
	if (kind != NS_MNT)
		return proc_pid_exists(pid) ? nsfs_initial(kind) : (*err = -ESRCH, NULL);
	if (!(fs = pid_fs_get(pid, err)))
		return NULL;
	spin_lock_task(&fs->lock); /* unshare(CLONE_NEWNS) and setns change mnt_ns */
	ns = mnt_ns_common(fs->mnt_ns);
	ns->ops->get(ns);
	spin_unlock_task(&fs->lock);
	fs_put(fs);
	return ns;
}

/* /proc/<pid>/timens_offsets: its time_for_children's offsets. */
long pid_timens_offsets_text(int pid, char *buf, size_t size)
{
	int err;
	struct ns_common *ns = proc_pid_ns_for_children(pid, NS_TIME, &err);

	if (!ns)
		return err == -ENOENT ? -ESRCH : err;
	timens_show_offsets(ns, buf, size);
	ns->ops->put(ns);
	return (long)strlen(buf);
}

struct ns_common *proc_pid_ns_for_children(int pid, enum ns_kind kind, int *err)
{
	if (kind == NS_TIME || kind == NS_PID)
		return pid_nsproxy_ns(pid, kind, true, err);
	return proc_pid_ns(pid, kind, err);
}
