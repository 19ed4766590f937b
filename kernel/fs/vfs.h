/*
 * The VFS: path lookup (namei.c), opening paths as files (vfs.c), the
 * directory-changing operations, the initrd loader (cpio.c) and devices.
 * One file system, the ramfs (inode.h), so there are no mounts.
 */
#ifndef FS_VFS_H
#define FS_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/inode.h"

struct file;
struct file_ops;

/* Creates the root, unpacks the "initrd" module, adds /dev nodes and /tmp. */
void vfs_init(void);
/* The root directory, with a new reference (inode_put it). */
struct inode *vfs_root(void);

/*
 * Path lookup.  start is where a relative path begins (a referenced
 * directory the caller keeps); NULL means the current task's cwd, or the
 * root before any task exists.  "." and ".." (the root is its own parent),
 * repeated and trailing slashes as POSIX: a trailing slash demands a
 * directory.  Errors: -ENOENT (missing, or empty path), -ENOTDIR, -ENAMETOOLONG.
 */
int path_lookup(struct inode *start, const char *path, struct inode **out);

/* The last component of a path and the directory it lives in. */
struct path_last {
	struct inode *dir; /* referenced: inode_put it */
	const char *name;  /* inside the path string, not NUL-terminated */
	size_t len;	   /* 0 when the path is "/" (name is the root itself) */
	bool trailing_slash;
};
/* Resolves all but the last component (same errors as path_lookup). */
int path_lookup_parent(struct inode *start, const char *path, struct path_last *last);

/* A regular file to execute: -ENOENT/-ENOTDIR..., -EACCES for non-regular or no x bit. */
int vfs_lookup_exec(struct inode *start, const char *path, struct inode **out);

/*
 * Opens a path: flags are open(2)'s (O_ACCMODE, O_CREAT, O_EXCL, O_TRUNC,
 * O_APPEND, O_NONBLOCK, O_DIRECTORY; fd flags are the caller's business),
 * mode the permissions of a new file.  0 with *out holding one reference.
 */
int vfs_open(struct inode *start, const char *path, unsigned int flags, uint32_t mode,
	     struct file **out);
/* A file for an inode the caller holds (the file takes over that reference). */
int vfs_open_inode(struct inode *ip, unsigned int flags, struct file **out);
/* The file_ops release of every inode-backed file: drops the inode. */
void vfs_release_inode(struct file *f);

int vfs_mkdir(struct inode *start, const char *path, uint32_t mode);
int vfs_mknod(struct inode *start, const char *path, uint32_t mode, uint32_t rdev);
int vfs_unlink(struct inode *start, const char *path);
int vfs_rmdir(struct inode *start, const char *path);
/* Absolute path of directory dir into buf: length with the NUL, -ERANGE, -ENOENT. */
long vfs_getcwd(struct inode *dir, char *buf, size_t size);

/* Unpacks a newc cpio archive under root: entries created, or -EINVAL if malformed. */
long cpio_unpack(const void *archive, size_t len, struct inode *root);

/* Character devices (devices.c): the operations for rdev, or NULL (ENXIO). */
const struct file_ops *chrdev_ops(uint32_t rdev);
/* Starts the drivers and creates the missing /dev nodes (/dev must exist). */
void devices_init(void);

/* The in-kernel test suite (vfs_selftest.c). */
void vfs_selftest(void);

#endif
