/*
 * The VFS: path lookup (lookup.c), opening paths as files (vfs.c), the
 * directory-changing operations (namei.c, link.c), the initrd loader
 * (cpio.c) and devices.  File systems sit below it (inode.h's
 * operations, super.h's types; docs/vfs.md) and are mounted (mount.h); a
 * place in the tree is a struct path (path.h).
 */
#ifndef FS_VFS_H
#define FS_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/inode.h"
#include "fs/path.h"

struct file;
struct file_ops;

/* Creates the root, unpacks the "initrd" module, adds /dev nodes and /tmp. */
void vfs_init(void);
/* With root= on the command line: that device's file system becomes the
 * root, the boot mounts moved onto it, or a panic listing the block
 * devices (fs/mount_root.c); after the drivers registered their disks. */
void vfs_mount_root(void);

/*
 * Path lookup (lookup.c).  start is where a relative path begins (a
 * referenced directory the caller keeps); NULL (or an empty path) means
 * the current task's cwd, or the root before any task exists.  "." and ".." (the root is its
 * own parent), repeated and trailing slashes as POSIX: a trailing slash
 * demands a directory.  Symbolic links are followed, in the middle and at
 * the end, MAXSYMLINKS in one lookup at most.  Errors: -ENOENT (missing,
 * or empty path), -ENOTDIR, -ENAMETOOLONG, -ELOOP.
 */
#define MAXSYMLINKS 40
int path_lookup(const struct path *start, const char *path, struct inode **out);
/* Lookup flags: a final link is not followed (lstat); O_EXCL (path_create). */
#define LOOKUP_NOFOLLOW 1U
#define LOOKUP_EXCL	2U
/*
 * openat2's RESOLVE_* restrictions on the whole walk, as Linux's: no
 * mount crossed (EXDEV), no magic
 * /proc link followed (ELOOP), no link at all (ELOOP), nothing outside
 * start reached (BENEATH: EXDEV for "/", an absolute link, ".." above
 * start or a magic link), start as the root (IN_ROOT: "/" and ".." stop
 * there; a magic link EXDEV).  A scoped walk's ".." raced by a rename:
 * EAGAIN (inode.h's rename sequence).
 */
#define LOOKUP_NO_XDEV	     4U
#define LOOKUP_NO_MAGICLINKS 8U
#define LOOKUP_NO_SYMLINKS   16U
#define LOOKUP_BENEATH	     32U
#define LOOKUP_IN_ROOT	     64U
int path_lookup_flags(const struct path *start, const char *path, unsigned int flags,
		      struct inode **out);
/* The same, giving the mount it was reached through as well. */
int path_lookup_path(const struct path *start, const char *path, unsigned int flags,
		     struct path *out);
/*
 * Where a lookup found a non-directory, for open (file.h: f->dir, f->name):
 * the directory (referenced) and the name (kmalloc'd), as the walk met
 * them (or as the file a /proc/<pid>/fd link stands for has them); both
 * NULL for a directory.  path_where_put drops them.
 */
struct path_where {
	struct inode *dir;
	char *name;
};
void path_where_put(struct path_where *where);
/* path_lookup_path that also says where (-ENOMEM if it cannot). */
int path_lookup_where(const struct path *start, const char *path, unsigned int flags,
		      struct path *out, struct path_where *where);
/*
 * open(O_CREAT)'s lookup: the inode path names (a final link followed
 * unless LOOKUP_NOFOLLOW, so a dangling one creates its target), or a new
 * regular file of mode made there (*created).  LOOKUP_EXCL: -EEXIST if
 * the name exists, a link included.  -EISDIR for "name/".
 */
int path_create(const struct path *start, const char *path, unsigned int flags, uint32_t mode,
		struct path *out, bool *created, struct path_where *where);

/* The last component of a path and the directory it lives in. */
struct path_last {
	struct path dir;  /* referenced: path_put it */
	const char *name; /* name_buf, or "" when len is 0 */
	size_t len;	  /* 0 when the path is "/" (name is the root itself) */
	bool trailing_slash;
	char name_buf[NAME_MAX + 1]; /* the name, NUL-terminated (it may come from a link) */
};
/* Resolves all but the last component, following links (same errors). */
int path_lookup_parent(const struct path *start, const char *path, struct path_last *last);

static inline bool is_dot(const char *name, size_t len)
{
	return len == 1 && name[0] == '.';
}

static inline bool is_dotdot(const char *name, size_t len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

/* A regular file to execute: -ENOENT/-ENOTDIR..., -EACCES for non-regular
 * or no x bit or a noexec mount, -ELOOP for a final link with
 * LOOKUP_NOFOLLOW in flags.  *nosuid (when not NULL): whether its mount
 * ignores set-id bits. */
int vfs_lookup_exec(const struct path *start, const char *path, unsigned int flags,
		    struct inode **out, bool *nosuid);
/* Whether p may be executed: 0, -ELOOP (a link), -EACCES. */
int vfs_exec_check(const struct path *p);

/*
 * Opens a path: flags are open(2)'s (O_ACCMODE, O_CREAT, O_EXCL, O_TRUNC,
 * O_APPEND, O_NONBLOCK, O_DIRECTORY, O_NOFOLLOW (ELOOP on a final link);
 * fd flags are the caller's business),
 * mode the permissions of a new file, lookup the walk's LOOKUP_*
 * restrictions (openat2's RESOLVE_*).  0 with *out holding one reference.
 */
int vfs_open_at(const struct path *start, const char *path, unsigned int flags, uint32_t mode,
		unsigned int lookup, struct file **out);
/* vfs_open_at without restrictions: open(2)'s walk. */
static inline int vfs_open(const struct path *start, const char *path, unsigned int flags,
			   uint32_t mode, struct file **out)
{
	return vfs_open_at(start, path, flags, mode, 0, out);
}
/* A file for an inode the caller holds (the file takes over that reference). */
int vfs_open_inode(struct inode *ip, unsigned int flags, struct file **out);
/* Truncates regular file p by name (truncate(2)), breaking its leases
 * as an open for writing (fs/locks/lease.h): inode_truncate's errors, -EROFS,
 * -ETXTBSY while it runs as a program, -ERESTARTSYS when a signal ends a break. */
int vfs_truncate(const struct path *p, uint64_t size);
/* Whether f is an open ramfs regular file (not a /proc or device file):
 * copy_file_range's "same file system". */
bool vfs_is_ramfs_file(struct file *f);
/* The open-file operations of regular files and directories, every file
 * system's (on inode.h's data and directory operations): inode->fop. */
extern const struct file_ops vfs_file_ops, vfs_dir_ops;
/* The file_ops release of every inode-backed file: drops the inode. */
void vfs_release_inode(struct file *f);

int vfs_mkdir(const struct path *start, const char *path, uint32_t mode);
int vfs_mknod(const struct path *start, const char *path, uint32_t mode, uint32_t rdev);
int vfs_unlink(const struct path *start, const char *path);
int vfs_rmdir(const struct path *start, const char *path);

/* Links and renames (link.c); errors as Linux's. */
/* A symbolic link at path holding target (1..PATH_MAX-1 bytes). */
int vfs_symlink(const struct path *start, const char *path, const char *target);
/* A new name newpath for oldpath (follow: a final link of oldpath followed). */
int vfs_link(const struct path *oldstart, const char *oldpath, const struct path *newstart,
	     const char *newpath, bool follow);
/* The same for a file the caller holds (linkat's AT_EMPTY_PATH). */
int vfs_link_inode(const struct path *old, const struct path *newstart, const char *newpath);
int vfs_rename(const struct path *oldstart, const char *oldpath, const struct path *newstart,
	       const char *newpath, unsigned int flags);
/* Absolute path of directory dir into buf: length with the NUL, -ERANGE, -ENOENT. */
long vfs_getcwd(const struct path *dir, char *buf, size_t size);
/* The same as a process whose root is root sees it ("(unreachable)/..."
 * outside it; NULL: the top of the tree). */
long vfs_getcwd_at(const struct path *root, const struct path *dir, char *buf, size_t size);
/* What a mount shows, as a path inside its instance ("/" for its root),
 * into buf: mountinfo's root field.  Length with the NUL or vfs_getcwd's. */
long vfs_mount_root_path(const struct path *mnt_root, char *buf, size_t size);
/* buf (PATH_MAX bytes) = dir's path + "/" + name: 0, -ENAMETOOLONG, vfs_getcwd's. */
long vfs_join_name(const struct path *dir, const char *name, size_t len, char *buf);
/*
 * The absolute path of the file path names (from start, NULL for the
 * caller's working directory), every link resolved, into buf (PATH_MAX
 * bytes): what /proc/self/exe shows.  0 or the lookup's errors.
 */
long vfs_real_path(const struct path *start, const char *path, char *buf);

/* Unpacks a newc cpio archive under root: entries created, or -EINVAL if malformed. */
long cpio_unpack(const void *archive, size_t len, const struct path *root);

/* Character devices (devices.c): the operations for rdev, or NULL (ENXIO). */
const struct file_ops *chrdev_ops(uint32_t rdev);
/* What opening a device does once its file f is made (the terminals:
 * which one, a new pty, the controlling terminal, tty/; /proc/sys's
 * access check): 0 or -errno, and then the file is put unused. */
int chrdev_open(struct file *f, unsigned flags);
/* Starts the drivers and creates the missing /dev nodes (/dev must exist). */
void devices_init(void);
/* /proc/filesystems (sys_statfs.c), /proc/partitions (block/proc_partitions.c). */
extern const struct file_ops filesystems_ops, partitions_ops, diskstats_ops;
/* /proc/self and /proc/<pid>, made up at each lookup (proc_pid.c). */
void proc_pid_init(void);

/* The in-kernel test suite (vfs_selftest.c). */
void vfs_selftest(void);

#endif
