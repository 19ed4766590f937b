/*
 * Access times: a read, readdir, mmap or exec writes the inode's atime
 * as its mount's policy says (relatime, strictatime, noatime,
 * nodiratime: fs/atime.c, docs/vfs.md "Access times").
 */
#ifndef FS_ATIME_H
#define FS_ATIME_H

struct file;
struct inode;
struct mount;

/* ip was accessed through mount m (NULL for none: every access counts). */
void touch_atime(struct mount *m, struct inode *ip);
/* f's inode was accessed, unless f was opened with O_NOATIME. */
void file_accessed(struct file *f);

#endif
