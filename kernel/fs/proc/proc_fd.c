/*
 * /proc/<pid>/fd: one link per open fd of the process, the non-sequential
 * ones included, made up at each lookup and listing (fs/proc/proc_pid.c holds
 * the directory).  readlink shows what the fd is as Linux does (a path,
 * "pipe:[ino]", "socket:[ino]", "anon_inode:[eventfd]"...); opening the
 * link opens the file itself (lookup.c's jump), whatever its name now: a
 * new open file description of a ramfs file, a new end of the same pipe
 * (fifo.c), ENXIO for sockets and anon inodes, as Linux.
 *
 * Lifetime rule: the directory holds the pid number only (proc_inode.pid).
 * Each lookup and listing borrows the process's files table under
 * proc_lock (proc_pid_files) and gives it back before returning; a
 * borrowed table keeps its memory, never its fds (files_borrow), so an
 * exiting process is never held.  A link holds a reference on its open
 * file (link.file) and on where it jumps (link.jump) for as long as the
 * link inode lives: a walk, or a readlink, never longer.
 */
#include "fs/pipe/fifo.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/pipe/pipe.h"
#include "fs/proc/proc_pid.h"
#include "fs/permission.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/pid_info.h"
#include "proc/group.h"
#include "proc/proc.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/stat.h>

#define FD_LINK_SIZE 64 /* st_size of an fd link (Linux's) */

/*
 * The path of a file opened by name: that name while it still leads to
 * the file, else the file's name in the same directory (renamed there),
 * else the name it was opened by; " (deleted)" once it has no name left,
 * as Linux.  (Moved to another directory it shows the old path: there is
 * no dentry to follow it.)  0 or -errno.
 */
static long named_path(struct file *f, char *buf)
{
	struct inode *ip = f->inode;
	char *name = kmalloc(NAME_MAX + 1);
	const char *shown = f->name;
	long err;

	struct inode *now = dir_lookup(f->dir, f->name, strlen(f->name));

	if (now)
		inode_put(now);
	if (!name)
		return -ENOMEM;
	if (now != ip && dir_name_of(f->dir, ip, name, NAME_MAX + 1) >= 0)
		shown = name;
	err = vfs_join_name(&(struct path){f->mnt, f->dir}, shown, strlen(shown), buf);
	if (err == -ENOENT) /* its directory was removed */
		err = strlcpy(buf, shown, PATH_MAX) >= PATH_MAX ? -ENAMETOOLONG : 0;
	kfree(name);
	spin_lock(&ip->lock);
	bool deleted = !ip->nlink;
	spin_unlock(&ip->lock);
	if (!err && deleted && strlen(buf) + sizeof(" (deleted)") <= PATH_MAX)
		strlcpy(buf + strlen(buf), " (deleted)", sizeof(" (deleted)"));
	return err;
}

long file_path_text(struct file *f, char *buf)
{
	struct uapi_stat st = {0};

	/* A directory by its path; one getcwd cannot walk up from (a /proc
	 * directory) by the name it was opened with, as other files. */
	if (f->inode && inode_is_dir(f->inode) &&
	    vfs_getcwd(&(struct path){f->mnt, f->inode}, buf, PATH_MAX) >= 0)
		return 0;
	if (f->inode && f->name && !f->dir) { /* a memfd: named, in no directory */
		snprintk(buf, PATH_MAX, "/%s (deleted)", f->name);
		return 0;
	}
	if (f->inode && f->name)
		return named_path(f, buf);
	if (f->inode && inode_is_dir(f->inode))
		return -ENOENT; /* removed */
	if (f->inode)
		snprintk(buf, PATH_MAX, "inode:[%lu]", f->inode->ino); /* not opened by name */
	else if (f->ops->stat && !f->ops->stat(f, &st) &&
		 (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		snprintk(buf, PATH_MAX, "%s:[%lu]", S_ISFIFO(st.st_mode) ? "pipe" : "socket",
			 st.st_ino);
	else
		strlcpy(buf, f->ops->anon_name ? f->ops->anon_name : "anon_inode:[unknown]",
			PATH_MAX);
	return 0;
}

/* Linux's fd link mode: r-x for reading, -wx for writing. */
static uint32_t fd_link_mode(struct file *f)
{
	return S_IFLNK | (file_can_read(f) ? 0500 : 0) | (file_can_write(f) ? 0300 : 0);
}

/* Where opening f's link leads, referenced: f's inode, an inode holding
 * f's pipe, or NULL (a socket, an anon inode: ENXIO).  0 or -ENOMEM. */
static int jump_target(struct file *f, struct inode **jump)
{
	struct pipe *p = pipe_of(f);

	*jump = f->inode;
	if (f->inode)
		inode_get(f->inode);
	else if (p && !(*jump = fifo_holding(p)))
		return -ENOMEM;
	return 0;
}

/* The link for f (the caller's reference passes to it): 0, -ENOMEM. */
static int fd_link(struct file *f, struct inode **out)
{
	char *buf = kmalloc(PATH_MAX);
	struct inode *ip = proc_inode_alloc(fd_link_mode(f), 0);
	long err = buf && ip ? file_path_text(f, buf) : -ENOMEM;

	if (ip)
		PROC_I(ip)->uncharged = ip->link.magic = true;
	if (!err && !(ip->link.target = kstrdup(buf)))
		err = -ENOMEM;
	if (!err)
		err = jump_target(f, &ip->link.jump);
	kfree(buf);
	if (err) {
		if (ip)
			inode_put(ip);
		file_put(f);
		return err;
	}
	ip->link.file = f;
	ip->size = FD_LINK_SIZE;
	ip->nlink = 1;
	*out = ip;
	return 0;
}

/* ---- /proc/<pid>/fdinfo/<fd> ---- */

#define MNT_ID 1 /* the one mount, the ramfs */

/* The open file on fd of pid, referenced, and the fd's FD_* flags: 0,
 * -ENOENT (fd not open), -ESRCH (no such process). */
static int pid_fd_file(int pid, int fd, struct file **out, int *fdflags)
{
	struct files_table *files = proc_pid_files(pid);

	if (!files)
		return proc_pid_exists(pid) ? -ENOENT : -ESRCH;
	*out = fd < 0 ? NULL : files_lookup_raw(files, fd);
	*fdflags = *out ? files_get_fdflags(files, fd) : 0;
	files_unborrow(files);
	return *out ? 0 : -ENOENT;
}

/*
 * Linux's lines (pos, flags in octal with O_CLOEXEC for a close-on-exec fd
 * and O_LARGEFILE for a file opened by name, mnt_id, ino), then
 * fdkernel's: clofork (the fd's close-on-fork flag) and nonseq (whether
 * the fd is in the non-sequential area), each 0 or 1; then the file's own
 * (file_ops.show_fdinfo: a pidfd's "Pid:").
 */
long proc_fdinfo_text(int pid, int fd, char *buf, size_t size)
{
	struct uapi_stat st = {0};
	struct file *f;
	int fdflags, err = pid_fd_file(pid, fd, &f, &fdflags);
	unsigned int flags;
	uint64_t pos;

	if (err)
		return err;
	pos = file_pos_get(f); /* unlocked, as Linux's fdinfo */
	/* O_LARGEFILE: Linux sets it on every open(2) by a 64-bit process. */
	flags = f->flags | (f->inode ? O_LARGEFILE : 0) | (fdflags & FD_CLOEXEC ? O_CLOEXEC : 0);
	if (f->inode)
		st.st_ino = f->inode->ino;
	else if (f->ops->stat)
		f->ops->stat(f, &st);
	snprintk(buf, size,
		 "pos:\t%lu\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\nclofork:\t%d\nnonseq:\t%d\n", pos,
		 flags, MNT_ID, st.st_ino, !!(fdflags & FD_CLOFORK), fd >= NONSEQ_FD_BASE);
	if (f->ops->show_fdinfo)
		f->ops->show_fdinfo(f, buf + strlen(buf), size - strlen(buf));
	file_put(f);
	return strlen(buf);
}

/* ---- the directories ---- */

/* ESRCH once the process is gone (Linux), ENOENT for an fd not open; a
 * link that is EACCES to read or follow for a caller who may not inspect
 * the process (Linux's proc_fd_access_allowed, checked at each use). */
static int fd_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int pid = PROC_I(dir)->pid, fdflags, err;
	struct file *f;

	if ((err = pid_fd_file(pid, proc_name_to_int(name, len), &f, &fdflags)))
		return err;
	if (proc_pid_may_access(pid, false) == -EPERM) {
		file_put(f);
		err = proc_denied_link(out);
	} else {
		err = fd_link(f, out);
	}
	if (!err)
		proc_pid_own(*out, pid);
	return err;
}

/* fdinfo/<fd>: a text file naming the fd (read as proc_fdinfo_text). */
static int fdinfo_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int fdflags, fd = proc_name_to_int(name, len), err;
	struct file *f;

	if ((err = pid_fd_file(PROC_I(dir)->pid, fd, &f, &fdflags)))
		return err;
	file_put(f);
	if ((err = proc_text_file(PROC_I(dir)->pid, 0, PROC_FDINFO_MINOR, out)))
		return err;
	PROC_I(*out)->fd = fd;
	proc_pid_own(*out, PROC_I(dir)->pid);
	return 0;
}

/* Both directories list the open fds (links in fd, text files in fdinfo).
 * Cookies: DIR_GEN_POS + fd + 1 after fd, valid whoever opens or closes. */
static void fd_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	struct files_table *files = proc_pid_files(PROC_I(dir)->pid);
	bool links = PROC_I(dir)->gen == &proc_fd_dir_gen;
	char name[12];
	int fd;

	if (!files)
		return;
	while ((fd = files_next_fd(files, *pos - DIR_GEN_POS)) >= 0) {
		int len = snprintk(name, sizeof(name), "%d", fd);
		uint64_t ino = (links ? 3 : 6) * PROC_PID_INO_BASE +
			       (uint64_t)PROC_I(dir)->pid * (1ULL << 31) + fd;
		if (!emit(ctx, name, len, ino, (links ? S_IFLNK : S_IFCHR) >> 12,
			  DIR_GEN_POS + fd + 1))
			break;
		*pos = DIR_GEN_POS + fd + 1;
	}
	files_unborrow(files);
}

/* fd (0500, the process's owner's): the mode bits, or a thread of the
 * process itself, whoever owns it now (Linux's proc_fd_permission). */
static int fd_dir_permission(const struct inode *dir, int mask)
{
	int err = inode_permission_slow(dir, mask);

	return err && PROC_I(dir)->pid == current()->group->tgid ? 0 : err;
}

/* fdinfo (0555): only for a caller that may inspect the process (EACCES;
 * ESRCH once it is gone), then the mode bits (Linux's
 * proc_fdinfo_permission). */
static int fdinfo_dir_permission(const struct inode *dir, int mask)
{
	int err = proc_pid_check(dir, false);

	return err ? err : inode_permission_slow(dir, mask);
}

const struct dir_gen proc_fd_dir_gen = {
    .lookup = fd_dir_lookup,
    .iterate = fd_dir_iterate,
    .permission = fd_dir_permission,
};

const struct dir_gen proc_fdinfo_dir_gen = {
    .lookup = fdinfo_dir_lookup,
    .iterate = fd_dir_iterate,
    .permission = fdinfo_dir_permission,
};
