/*
 * /proc/<pid> directories (fs/proc_pid.c): generated entries of /proc.
 */
#ifndef FS_PROC_PID_H
#define FS_PROC_PID_H

#include "fs/inode.h"

/* The device major of /proc/<pid> files (its minor: enum proc_pid_file);
 * a free one of Linux's. */
#define PROC_PID_MAJOR 60
#define MINOR(rdev)    ((rdev)&0xff)
/* d_ino of /proc/<pid> in a listing: beyond the ramfs numbers in use. */
#define PROC_PID_INO_BASE (1ULL << 32)

extern const struct file_ops proc_pid_file_ops;
/* /proc/<pid>/fd's entries (fs/proc_fd.c). */
extern const struct dir_gen proc_fd_dir_gen;

#endif
