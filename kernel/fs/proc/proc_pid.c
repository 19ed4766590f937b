/*
 * /proc/self and /proc/<pid>: one directory per process, made up at each
 * lookup and listing of /proc, never stored.  self is a link to the
 * caller's pid, exe a link to the program (both taken at lookup, as the
 * walk follows them at once).  Lifetime rule: a /proc/<pid> inode or
 * an open file in it holds the process's number only (proc_inode.pid),
 * never a task or group pointer; every lookup, listing and
 * read asks proc/pid_info.c, which finds the process under
 * proc_lock.  Once it is reaped they answer ENOENT (lookup, an empty
 * listing) or ESRCH (read), as Linux, and hold nothing of it.
 */
#include "fs/proc/proc_pid.h"
#include "fs/proc/proc_sys.h"
#include "fs/file.h"
#include "fs/mount.h"
#include "fs/nsfs.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/group.h"
#include "proc/pid_info.h"
#include "proc/pidfd.h"
#include "proc/task.h"
#include "proc/cred.h"
#include "proc/user_namespace.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/poll.h>

/* The entries of /proc/<pid>: the text files (enum proc_pid_file order),
 * the links exe, cwd and root, and the directories fd, fdinfo, task and
 * ns. */
#define PID_EXE	    PROC_PID_NFILES
#define PID_CWD	    (PROC_PID_NFILES + 1)
#define PID_ROOT    (PROC_PID_NFILES + 2)
#define PID_FD	    (PROC_PID_NFILES + 3)
#define PID_FDINFO  (PROC_PID_NFILES + 4)
#define PID_TASK    (PROC_PID_NFILES + 5)
#define PID_NS	    (PROC_PID_NFILES + 6)
#define PID_ENTRIES (PROC_PID_NFILES + 7)
static const char *const entry_names[PID_ENTRIES] = {
    [PROC_PID_STAT] = "stat",
    [PROC_PID_STATUS] = "status",
    [PROC_PID_CMDLINE] = "cmdline",
    [PROC_PID_MAPS] = "maps",
    [PROC_PID_COMM] = "comm",
    [PROC_PID_SYSCALL] = "syscall",
    [PROC_PID_LIMITS] = "limits",
    [PROC_PID_ENVIRON] = "environ",
    [PROC_PID_MOUNTINFO] = "mountinfo",
    [PROC_PID_MOUNTS] = "mounts",
    [PROC_PID_SMAPS] = "smaps",
    [PROC_PID_SMAPS_ROLLUP] = "smaps_rollup",
    [PROC_PID_COREDUMP_FILTER] = "coredump_filter",
    [PROC_PID_PAGEMAP] = "pagemap",
    [PROC_PID_IO] = "io",
    [PROC_PID_TIMENS_OFFSETS] = "timens_offsets",
    [PROC_PID_UID_MAP] = "uid_map",
    [PROC_PID_GID_MAP] = "gid_map",
    [PROC_PID_SETGROUPS] = "setgroups",
    [PID_EXE] = "exe",
    [PID_CWD] = "cwd",
    [PID_ROOT] = "root",
    [PID_FD] = "fd",
    [PID_FDINFO] = "fdinfo",
    [PID_TASK] = "task",
    [PID_NS] = "ns",
};

int proc_name_to_int(const char *name, size_t len)
{
	long n = 0;

	if (!len || len > 10 || (name[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		n = n * 10 + (name[i] - '0');
	}
	return n > 0x7fffffff ? -1 : (int)n;
}

/* ---- /proc/<pid>/stat, status, cmdline ---- */

/* The text, taken at a read from position 0 and kept for the next ones
 * (a reader never sees it change mid-way; a read from 0 again, after an
 * lseek, sees it anew, as Linux's seq_file): f->priv, freed at release. */
struct proc_text {
	long len; /* -1 before the first read */
	/* mounts and mountinfo: the mount namespace taken at open (a
	 * reference, put at release; NULL for a zombie's) and its change
	 * count the file last saw (mounts_poll). */
	struct ns_common *ns;
	uint32_t ns_event;
	/* uid_map, gid_map and setgroups: ns is the process's user
	 * namespace, taken at open, and opener the creds of the opener
	 * (Linux's file->f_cred), referenced until release. */
	const struct cred *opener;
	char buf[]; /* text_size() bytes */
};

/* Room for the text of file minor: 4 pages (maps: 200 lines); smaps' 64
 * KiB take about 80 mappings, each entry some 800 bytes. */
static size_t text_size(unsigned int minor)
{
	return minor == PROC_PID_SMAPS ? 16 * PAGE_SIZE : 4 * PAGE_SIZE;
}

static struct proc_text *text_alloc(unsigned int minor)
{
	struct proc_text *t = kmalloc(sizeof(*t) + text_size(minor));

	if (t) {
		t->len = -1;
		t->ns = NULL;
		t->opener = NULL;
	}
	return t;
}

static bool is_userns_file(unsigned int minor)
{
	return minor == PROC_PID_UID_MAP || minor == PROC_PID_GID_MAP ||
	       minor == PROC_PID_SETGROUPS;
}

/* uid_map, gid_map, setgroups: what the opener's namespace sees. */
static long userns_text(struct proc_text *t, unsigned int minor)
{
	struct user_namespace *ns = to_user_ns(t->ns);
	size_t size = text_size(minor);

	if (minor == PROC_PID_SETGROUPS)
		return user_ns_setgroups_text(ns, t->buf, size);
	return user_ns_map_text(ns, t->opener->user_ns, minor == PROC_PID_GID_MAP, t->buf, size);
}

static long pid_file_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct proc_text *t = f->priv;
	size_t len = iov_iter_count(to), n;

	if (MINOR(f->inode->rdev) == PROC_PID_PAGEMAP) /* binary, made at each read */
		return proc_pagemap_read(PROC_I(f->inode)->pid, to, pos);
	if (!t && !(t = f->priv = text_alloc(MINOR(f->inode->rdev))))
		return -ENOMEM;
	if (t->len < 0 || !*pos) {
		struct inode *ip = f->inode;
		size_t size = text_size(MINOR(ip->rdev));
		long made = MINOR(ip->rdev) == PROC_FDINFO_MINOR
				? proc_fdinfo_text(PROC_I(ip)->pid, PROC_I(ip)->fd, t->buf, size)
			    : is_userns_file(MINOR(ip->rdev))
				? userns_text(t, MINOR(ip->rdev))
				: proc_pid_text(PROC_I(ip)->pid, PROC_I(ip)->tid, MINOR(ip->rdev),
						t->buf, size);
		if (made < 0)
			return made;
		t->len = made;
	}
	if (*pos >= (uint64_t)t->len)
		return 0;
	if (len > t->len - *pos)
		len = t->len - *pos;
	n = copy_to_iter(t->buf + *pos, len, to);
	*pos += n;
	return n || !len ? (long)n : -EFAULT;
}

static void pid_file_release(struct file *f)
{
	struct proc_text *t = f->priv;

	if (t && t->ns)
		t->ns->ops->put(t->ns);
	if (t)
		cred_put(t->opener);
	kfree(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}

/* timens_offsets: at most two lines of the process's time_for_children
 * offsets (time/timens.h), from the first bytes written whatever the
 * offset: how many were taken, or -errno. */
static long timens_offsets_write(int pid, struct iov_iter *from, size_t count)
{
	char text[128]; /* two lines of the longest clock name and numbers */
	struct ns_common *ns;
	long ret;
	int err;

	if (count >= sizeof(text))
		return -EINVAL;
	if (copy_from_iter_full(text, count, from))
		return -EFAULT;
	if (!(ns = proc_pid_ns_for_children(pid, NS_TIME, &err)))
		return err == -ENOENT ? -ESRCH : err;
	ret = timens_write_offsets(ns, text, count);
	ns->ops->put(ns);
	return ret;
}

/* uid_map, gid_map, setgroups: the whole write, under a page (larger is
 * EINVAL, which user_ns_*_write answer without reading it). */
static long userns_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	struct proc_text *t = f->priv; /* set at open, until release */
	unsigned int minor = MINOR(f->inode->rdev);
	size_t count = iov_iter_count(from);
	char *text = NULL;
	long n;

	if (count < PAGE_SIZE) {
		if (!(text = kmalloc(count + 1)))
			return -ENOMEM;
		if (copy_from_iter_full(text, count, from)) {
			kfree(text);
			return -EFAULT;
		}
	}
	if (minor == PROC_PID_SETGROUPS)
		n = user_ns_setgroups_write(to_user_ns(t->ns), t->opener, text, count, *pos);
	else
		n = user_ns_map_write(to_user_ns(t->ns), t->opener, minor == PROC_PID_GID_MAP, text,
				      count, *pos);
	kfree(text);
	if (n > 0) {
		*pos += (uint64_t)n;
		t->len = -1; /* the next read shows it */
	}
	return n;
}

/*
 * coredump_filter (Linux's proc_coredump_filter_write): a number as
 * kstrtouint reads it, from the first 34 bytes written whatever the
 * offset, the whole count taken; timens_offsets; the user namespace's
 * files.  A text kept by an earlier read is dropped, so the next read
 * shows the new value.
 */
static long pid_file_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	char text[35]; /* Linux's kstrtouint_from_user: sign, 32 binary digits, newline */
	size_t count = iov_iter_count(from),
	       n = count < sizeof(text) - 1 ? count : sizeof(text) - 1;
	unsigned int value;
	long err;

	if (is_userns_file(MINOR(f->inode->rdev)))
		return userns_write(f, from, pos);
	if (MINOR(f->inode->rdev) == PROC_PID_TIMENS_OFFSETS)
		err = timens_offsets_write(PROC_I(f->inode)->pid, from, count);
	else if (MINOR(f->inode->rdev) != PROC_PID_COREDUMP_FILTER)
		return -EINVAL; /* no write op, as Linux's vfs_write */
	else if (copy_from_iter_full(text, n, from))
		return -EFAULT;
	else {
		text[n] = '\0';
		err = kstrtouint(text, 0, &value);
		if (!err)
			err = proc_pid_set_dump_filter(PROC_I(f->inode)->pid, value);
		if (!err)
			err = (long)count;
	}
	if (err >= 0 && f->priv)
		((struct proc_text *)f->priv)->len = -1;
	return err;
}

/* mounts and mountinfo: the namespace they report changes of. */
static int mounts_open(struct file *f)
{
	struct proc_text *t = text_alloc(MINOR(f->inode->rdev));

	if (!t)
		return -ENOMEM;
	int err;

	if ((t->ns = proc_pid_ns(PROC_I(f->inode)->pid, NS_MNT, &err)))
		t->ns_event = mounts_event(t->ns);
	f->priv = t;
	return 0;
}

/* uid_map, gid_map, setgroups: the process's user namespace and the
 * opener's creds, kept while open (Linux's proc_id_map_open); writing
 * setgroups needs CAP_SYS_ADMIN over the namespace at open (EPERM). */
static int userns_open(struct file *f)
{
	struct proc_text *t = text_alloc(MINOR(f->inode->rdev));
	int err = 0;

	if (!t)
		return -ENOMEM;
	if (!(t->ns = proc_pid_ns(PROC_I(f->inode)->pid, NS_USER, &err))) {
		kfree(t);
		return err;
	}
	t->opener = cred_get_current();
	if (MINOR(f->inode->rdev) == PROC_PID_SETGROUPS && (f->flags & O_ACCMODE) != O_RDONLY &&
	    !cred_ns_capable(t->opener, to_user_ns(t->ns), CAP_SYS_ADMIN)) {
		t->ns->ops->put(t->ns);
		cred_put(t->opener);
		kfree(t);
		return -EPERM;
	}
	f->priv = t;
	return 0;
}

static unsigned pid_mounts_poll(struct file *f, struct poll_table *pt)
{
	struct proc_text *t = f->priv; /* set at open, until release */

	return t->ns ? mounts_poll(f, t->ns, &t->ns_event, pt) : POLLIN | POLLRDNORM;
}

int proc_pid_open(struct file *f)
{
	switch (MINOR(f->inode->rdev)) {
	case PROC_PID_MOUNTS:
	case PROC_PID_MOUNTINFO:
		return mounts_open(f);
	case PROC_PID_UID_MAP:
	case PROC_PID_GID_MAP:
	case PROC_PID_SETGROUPS:
		return userns_open(f);
	case PROC_PID_MAPS:
	case PROC_PID_SMAPS:
	case PROC_PID_SMAPS_ROLLUP:
	case PROC_PID_ENVIRON:
	case PROC_PID_PAGEMAP:
		return proc_pid_check(f->inode, true);
	case PROC_FDINFO_MINOR:
	case PROC_PID_IO:
		return proc_pid_check(f->inode, false);
	}
	return 0;
}

static const struct file_ops proc_pid_file_ops = {
    .read_iter = pid_file_read,
    .write_iter = pid_file_write,
    .release = pid_file_release,
    .seekable = true, /* as Linux's: pagemap is read by lseek or pread */
};

/* The same with a poll: only mounts and mountinfo have one, as Linux's;
 * the others stay out of epoll (EPERM). */
static const struct file_ops proc_mounts_file_ops = {
    .read_iter = pid_file_read,
    .write_iter = pid_file_write,
    .release = pid_file_release,
    .poll = pid_mounts_poll,
    .seekable = true,
};

const struct file_ops *proc_pid_ops(unsigned int minor)
{
	return minor == PROC_PID_MOUNTS || minor == PROC_PID_MOUNTINFO ? &proc_mounts_file_ops
								       : &proc_pid_file_ops;
}

/* ---- the links ---- */

void proc_pid_own(struct inode *ip, int pid)
{
	proc_pid_owner(pid, ip->mode == (S_IFDIR | 0555), &ip->uid, &ip->gid);
}

int proc_pid_check(const struct inode *ip, bool mm)
{
	int err = proc_pid_may_access(PROC_I(ip)->pid, mm);

	return err == -EPERM ? -EACCES : err;
}

int proc_link(const char *target, struct inode **out)
{
	struct inode *ip = proc_inode_alloc(S_IFLNK | 0777, 0);

	if (!ip)
		return -ENOMEM;
	PROC_I(ip)->uncharged = true;
	if (!(ip->link.target = kstrdup(target))) {
		inode_put(ip);
		return -ENOMEM;
	}
	ip->nlink = 1;
	*out = ip;
	return 0;
}

int proc_denied_link(struct inode **out)
{
	int err = proc_link("", out);

	if (!err)
		(*out)->link.magic = (*out)->link.denied = true;
	return err;
}

/* exe, cwd or root: a link to the path, taken now; one that is EACCES to
 * read or follow for a caller who may not inspect pid (Linux checks
 * before it looks at the path). */
static int path_link(int pid, int which, struct inode **out)
{
	int err = proc_pid_may_access(pid, false);
	char *buf;

	if (err == -EPERM)
		return proc_denied_link(out);
	if (err)
		return err;
	if (!(buf = kmalloc(PATH_MAX)))
		return -ENOMEM;
	err = which == PID_EXE ? proc_pid_exe(pid, buf)
			       : proc_pid_fs_path(pid, which == PID_ROOT, buf);

	if (!err)
		err = proc_link(buf, out);
	if (!err)
		(*out)->link.magic = true;
	kfree(buf);
	return err;
}

/* ---- the directories ---- */

int proc_gen_dir(struct inode *parent, const struct dir_gen *gen, int pid, int tid, uint32_t perm,
		 struct inode **out)
{
	struct inode *ip = proc_inode_alloc(S_IFDIR | perm, 0);

	if (!ip)
		return -ENOMEM;
	PROC_I(ip)->gen = gen;
	PROC_I(ip)->pid = pid;
	PROC_I(ip)->tid = tid;
	ip->nlink = 2;
	RAMFS_I(ip)->dir.parent = parent;
	inode_get(parent);
	*out = ip;
	return 0;
}

int proc_text_file(int pid, int tid, int which, struct inode **out)
{
	/* Linux's: the owner only for what gives away more than the rest */
	uint32_t perm = which == PROC_PID_COREDUMP_FILTER || which == PROC_PID_TIMENS_OFFSETS ||
				is_userns_file(which)
			    ? 0644
			: which == PROC_PID_PAGEMAP || which == PROC_PID_ENVIRON ||
				which == PROC_PID_SYSCALL || which == PROC_PID_IO
			    ? 0400
			    : 0444;
	struct inode *ip = proc_inode_alloc(S_IFCHR | perm, MKDEV(PROC_PID_MAJOR, which));

	if (!ip)
		return -ENOMEM;
	PROC_I(ip)->pid = pid;
	PROC_I(ip)->tid = tid;
	ip->nlink = 1;
	*out = ip;
	return 0;
}

int proc_entry_index(const char *const *names, int n, const char *name, size_t len)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strlen(names[i]) == len && !memcmp(names[i], name, len))
			return i;
	return -1;
}

static int pid_dir_entry(struct inode *dir, int pid, int i, struct inode **out)
{
	switch (i) {
	case PID_EXE:
	case PID_CWD:
	case PID_ROOT:
		return path_link(pid, i, out);
	case PID_FD:
		return proc_gen_dir(dir, &proc_fd_dir_gen, pid, 0, 0500, out);
	case PID_FDINFO:
		return proc_gen_dir(dir, &proc_fdinfo_dir_gen, pid, 0, 0555, out);
	case PID_TASK:
		return proc_gen_dir(dir, &proc_task_dir_gen, pid, 0, 0555, out);
	case PID_NS: /* Linux's dr-x--x--x */
		return proc_gen_dir(dir, &proc_ns_dir_gen, pid, 0, 0511, out);
	default:
		return proc_text_file(pid, 0, i, out);
	}
}

/* Whether the process of /proc/<pid> directory dir is still there: the
 * one it was looked up for, or (a thread's) whoever has the number. */
static bool pid_dir_live(const struct inode *dir)
{
	const struct proc_inode *pi = PROC_I(dir);

	return pi->ident ? pid_ident_alive(pi->ident) : proc_pid_exists(pi->pid);
}

/* ESRCH once the process is gone, whatever the name (Linux). */
static int pid_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int pid = PROC_I(dir)->pid, i = proc_entry_index(entry_names, PID_ENTRIES, name, len), err;

	if (!pid_dir_live(dir))
		return -ESRCH;
	if (i < 0)
		return -ENOENT;
	if (!(err = pid_dir_entry(dir, pid, i, out)))
		proc_pid_own(*out, pid);
	return err;
}

/* Nothing once the process is gone. */
static void pid_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	if (!pid_dir_live(dir))
		return;
	for (uint64_t i = *pos - DIR_GEN_POS; i < PID_ENTRIES; i++) {
		const char *name = entry_names[i];
		unsigned int type = i >= PID_FD ? S_IFDIR : i >= PID_EXE ? S_IFLNK : S_IFCHR;
		uint64_t ino = 2 * PROC_PID_INO_BASE + PROC_I(dir)->pid * PID_ENTRIES + i;
		if (!emit(ctx, name, strlen(name), ino, type >> 12, DIR_GEN_POS + i + 1))
			return;
		*pos = DIR_GEN_POS + i + 1;
	}
}

static const struct dir_gen pid_dir_gen = {
    .lookup = pid_dir_lookup,
    .iterate = pid_dir_iterate,
};

int proc_pid_dir_pid(const struct inode *ip)
{
	if (!ip || ip->sb->type != &proc_type || !S_ISDIR(ip->mode))
		return 0;
	return PROC_I(ip)->gen == &pid_dir_gen ? PROC_I(ip)->pid : 0;
}

struct pid_ident *proc_pid_dir_ident(const struct inode *ip)
{
	return proc_pid_dir_pid(ip) ? PROC_I(ip)->ident : NULL;
}

/* /proc/self, a link to the caller's process id. */
static int self_link(struct inode **out)
{
	char pid[12];

	snprintk(pid, sizeof(pid), "%d", current()->group->tgid);
	return proc_link(pid, out);
}

/* /proc/<pid> for a live process; its ".." is /proc (referenced). */
static int proc_root_lookup(struct inode *proc, const char *name, size_t len, struct inode **out)
{
	int pid = proc_name_to_int(name, len), err;

	if (len == 4 && !memcmp(name, "self", 4))
		return self_link(out);
	if (pid <= 0 || !proc_pid_exists(pid))
		return -ENOENT;
	if ((err = proc_gen_dir(proc, &pid_dir_gen, pid, 0, 0555, out)))
		return err;
	err = pid_ident_find(pid, &PROC_I(*out)->ident);
	if (err == -ENOENT) /* a thread's id: the number only */
		err = 0;
	else if (err == -ESRCH)
		err = -ENOENT; /* reaped since the check */
	if (err) {
		inode_put(*out);
		return err;
	}
	proc_pid_own(*out, pid);
	return 0;
}

/* After /proc's own files, self (cookie DIR_GEN_POS), then one directory
 * per process in pid order: the cookie after pid is DIR_GEN_POS + pid + 1,
 * valid whoever exits. */
static void proc_root_iterate(struct inode *proc, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	char name[12];
	int pid;

	(void)proc;
	if (*pos == DIR_GEN_POS) {
		if (!emit(ctx, "self", 4, PROC_PID_INO_BASE, S_IFLNK >> 12, DIR_GEN_POS + 1))
			return;
		*pos = DIR_GEN_POS + 1;
	}
	while ((pid = proc_pid_next(*pos - DIR_GEN_POS))) {
		int len = snprintk(name, sizeof(name), "%d", pid);
		/* no inode exists for it: a number no ramfs inode has */
		if (!emit(ctx, name, len, PROC_PID_INO_BASE + pid, S_IFDIR >> 12,
			  DIR_GEN_POS + pid + 1))
			return;
		*pos = DIR_GEN_POS + pid + 1;
	}
}

/* Sealed once its files are made (devices_init), so no name can shadow a
 * process or self. */
static const struct dir_gen proc_root_gen = {
    .lookup = proc_root_lookup,
    .iterate = proc_root_iterate,
};

void proc_pid_init(void)
{
	proc_sys_init(); /* before /proc is sealed */
	PROC_I(proc_sb->root)->gen = &proc_root_gen;
}
