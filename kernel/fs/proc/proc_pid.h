/*
 * /proc/<pid> directories (fs/proc/proc_pid.c): generated entries of /proc.
 */
#ifndef FS_PROC_PID_H
#define FS_PROC_PID_H

#include "fs/ramfs/ramfs.h"
#include "proc/pid_info.h"

/*
 * Generated entries of a /proc directory: made up at each lookup and
 * listing, after the ramfs entries the directory stores, their cookies
 * DIR_GEN_POS and above, past any ramfs cookie.  Neither is called under
 * a lock.  lookup: the child named, referenced, in *out: 0, -ENOENT, or
 * another error (-ESRCH: the process is gone).  iterate: emits from *pos
 * on, as dir_iterate.  A directory with them takes no new names (ENOENT,
 * Linux's answer).
 */
#define DIR_GEN_POS (1ULL << 40)
struct dir_gen {
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	void (*iterate)(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);
	/* The directory's access rule (inode_operations.permission), or
	 * NULL for its mode bits. */
	int (*permission)(const struct inode *dir, int mask);
};

/*
 * A procfs inode.  Its stored entries (/proc's files made at boot, sys,
 * sysvipc) and ".." are a ramfs directory's; the rest is procfs's own,
 * constant once the inode is made (gen of /proc and /proc/sys: set at
 * boot, before any task walks there).  Lifetime rule (proc_pid.c): pid,
 * tid and fd are numbers looked up again at each use, never pointers;
 * ident is the one pointer, and holds a reference.
 */
struct proc_inode {
	struct ramfs_inode ri;
	/* A generated directory's entries (/proc, /proc/<pid>, ...), else NULL. */
	const struct dir_gen *gen;
	/* The process a /proc/<pid> directory or file reports; tid: the
	 * thread of /proc/<pid>/task/<tid>, else 0; fd: the fd of
	 * /proc/<pid>/fdinfo/<fd>.  /proc/sys (proc_sys.c) keeps its row in
	 * pid (directories) or fd (files) and a directory's prefix length
	 * in tid. */
	int pid, tid, fd;
	/* A /proc/<pid> directory's process identity (proc/pidfd.h, Linux's
	 * struct pid of the inode), referenced from the lookup that made the
	 * inode until proc_free_inode; constant.  So the directory stays
	 * about that process, not a later one given the same number.  NULL
	 * for a thread's id and for every other inode. */
	struct pid_ident *ident;
	/* A link made at lookup (self, exe, fd/N...): not charged against
	 * the instance's size, and its file and jump (inode.h) are put with
	 * it. */
	bool uncharged;
};

/* Only for an inode of procfs (ip->sb->type == &proc_type). */
static inline struct proc_inode *PROC_I(const struct inode *ip)
{
	return container_of((struct inode *)ip, struct proc_inode, ri.vfs);
}

/* The device major of /proc/<pid> files (its minor: enum proc_pid_file,
 * or PROC_FDINFO_MINOR); a free one of Linux's. */
#define PROC_PID_MAJOR	  60
#define PROC_FDINFO_MINOR PROC_PID_NFILES
/* The device major of /proc/sys files (fs/proc/proc_sys.c; the row in
 * proc_inode.fd), the next free one. */
#define PROC_SYS_MAJOR 61
#define MINOR(rdev)    ((rdev)&0xff)
/* d_ino of /proc/<pid> in a listing: beyond the ramfs numbers in use. */
#define PROC_PID_INO_BASE (1ULL << 32)

/* The file operations of /proc/<pid> file minor (fs/dev/devices.c). */
const struct file_ops *proc_pid_ops(unsigned int minor);
/* /proc/<pid>/fd's entries (fs/proc/proc_fd.c), /proc/<pid>/task's (fs/proc/proc_task.c). */
extern const struct dir_gen proc_fd_dir_gen, proc_fdinfo_dir_gen;
extern const struct dir_gen proc_task_dir_gen;
/* /proc/<pid>/ns's links (fs/proc/proc_ns.c). */
extern const struct dir_gen proc_ns_dir_gen;
/* The text of /proc/<pid>/fdinfo/<fd> (fs/proc/proc_fd.c): its length,
 * -ENOENT once the fd is closed, -ESRCH once the process is gone. */
long proc_fdinfo_text(int pid, int fd, char *buf, size_t size);

/* The instance (fs/proc/proc_inode.c; one for all mounts of proc). */
extern struct super_block *proc_sb;
/* What proc_inode.c and proc_pid.c lend the other /proc directories: */
/* inode_alloc for a generated /proc inode (a struct proc_inode). */
struct inode *proc_inode_alloc(uint32_t mode, uint32_t rdev);
/* A decimal number without sign or leading zero, up to INT_MAX (Linux's
 * name_to_int: a pid, tid or fd name), or -1. */
int proc_name_to_int(const char *name, size_t len);
/* A directory of generated entries about pid (and thread tid, or 0), in
 * parent (referenced, for ".."): 0 or -ENOMEM. */
int proc_gen_dir(struct inode *parent, const struct dir_gen *gen, int pid, int tid, uint32_t perm,
		 struct inode **out);
/* The text file which (enum proc_pid_file) about pid, or its thread tid. */
int proc_text_file(int pid, int tid, int which, struct inode **out);
/* The process a /proc/<pid> directory is about (its number: the lifetime
 * rule of proc_pid.c), or 0 for any other inode, a task/<tid> one too
 * (Linux's tgid_pidfd_to_pid: pidfd_send_signal takes such a directory). */
int proc_pid_dir_pid(const struct inode *ip);
/* Its process identity (borrowed: the inode holds it), or NULL. */
struct pid_ident *proc_pid_dir_ident(const struct inode *ip);
/* ip, just made for one of pid's entries, gets its owner (proc_pid_owner;
 * a directory of mode 0555 counts as world-readable). */
void proc_pid_own(struct inode *ip, int pid);
/* Whether the caller may inspect the process of ip, a /proc/<pid>
 * directory or file (proc_pid_may_access; mm: to read its memory map):
 * 0, -EACCES, -ESRCH. */
int proc_pid_check(const struct inode *ip, bool mm);
/* A link to a copy of target, made for one lookup (not charged against
 * the ramfs size, st_size 0 as Linux's /proc links): 0 or -ENOMEM. */
int proc_link(const char *target, struct inode **out);
/* A /proc/<pid> link for a caller who may not inspect the process
 * (inode.h's link.denied): 0 or -ENOMEM. */
int proc_denied_link(struct inode **out);
/* The open of a /proc/<pid> file (fs/dev/devices.c's chrdev_open):
 * maps, smaps, smaps_rollup, environ, pagemap and fdinfo/<fd> only for
 * a caller that may inspect the process (EACCES; ESRCH once it is gone),
 * as Linux's proc_mem_open and fdinfo's open. */
int proc_pid_open(struct file *f);
/* The index of name in names[0..n) (NULL entries never match), or -1. */
int proc_entry_index(const char *const *names, int n, const char *name, size_t len);

#endif
