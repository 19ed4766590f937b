/*
 * /proc/<pid>/ns: one link per namespace kind the process is in (Linux's
 * fs/proc/namespaces.c, cgroup's left out: there are no control groups):
 * readlink shows "<kind>:[<number>]", and a walk through it jumps to an
 * nsfs inode of that namespace (fs/nsfs.h), whose open file takes the
 * namespace ioctls; pid_for_children and time_for_children name the
 * namespaces the process's children go to (its nsproxy's).  A
 * caller who may not inspect the process gets a denied link (EACCES to
 * read or follow, Linux's ptrace check).
 *
 * Lifetime rule, as for /proc/<pid>: the directory holds the pid number
 * only; a link holds the nsfs inode it jumps to (link.jump) for as long
 * as the link inode lives, and that inode the namespace, nothing of the
 * process.
 */
#include "fs/inode.h"
#include "fs/nsfs.h"
#include "fs/proc/proc_pid.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "proc/pid_info.h"
#include <uapi/errno.h>

#define NS_ENTRIES 9
static const struct {
	const char *name;
	enum ns_kind kind;
	bool children; /* the namespace the process's children go to */
} entries[NS_ENTRIES] = {
    {"net", NS_NET, false},
    {"uts", NS_UTS, false},
    {"ipc", NS_IPC, false},
    {"pid", NS_PID, false},
    {"pid_for_children", NS_PID, true},
    {"mnt", NS_MNT, false},
    {"user", NS_USER, false},
    {"time", NS_TIME, false},
    {"time_for_children", NS_TIME, true},
};

/* The link to pid's namespace of kind (its children's with children): 0,
 * -ESRCH/-ENOENT (gone), -ENOMEM. */
static int ns_link(int pid, enum ns_kind kind, bool children, struct inode **out)
{
	struct ns_common *ns;
	char target[32];
	int err = proc_pid_may_access(pid, false);

	if (err == -EPERM)
		return proc_denied_link(out);
	if (err)
		return err;
	if (!(ns = children ? proc_pid_ns_for_children(pid, kind, &err)
			    : proc_pid_ns(pid, kind, &err)))
		return err;
	snprintk(target, sizeof target, "%s:[%lu]", nsfs_kind_name(kind), ns->inum);
	if (!(err = proc_link(target, out))) {
		(*out)->link.magic = true;
		if (!((*out)->link.jump = nsfs_inode(ns))) {
			inode_put(*out);
			err = -ENOMEM;
		}
	}
	ns->ops->put(ns); /* the nsfs inode holds its own */
	return err;
}

static int ns_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int pid = PROC_I(dir)->pid, err;

	if (!proc_pid_exists(pid))
		return -ESRCH;
	for (int i = 0; i < NS_ENTRIES; i++) {
		if (strlen(entries[i].name) != len || memcmp(entries[i].name, name, len))
			continue;
		if (!(err = ns_link(pid, entries[i].kind, entries[i].children, out)))
			proc_pid_own(*out, pid);
		return err;
	}
	return -ENOENT;
}

static void ns_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	if (!proc_pid_exists(PROC_I(dir)->pid))
		return;
	for (uint64_t i = *pos - DIR_GEN_POS; i < NS_ENTRIES; i++) {
		const char *name = entries[i].name;
		uint64_t ino = 7 * PROC_PID_INO_BASE + (uint64_t)PROC_I(dir)->pid * NS_ENTRIES + i;
		if (!emit(ctx, name, strlen(name), ino, S_IFLNK >> 12, DIR_GEN_POS + i + 1))
			return;
		*pos = DIR_GEN_POS + i + 1;
	}
}

const struct dir_gen proc_ns_dir_gen = {
    .lookup = ns_dir_lookup,
    .iterate = ns_dir_iterate,
};
