/*
 * What /proc/<pid> reports about a process (pid_info.c; pid_fs_ns.c for
 * its file-system context and namespaces, pid_lookup.c for finding it).
 * Callers name the process by its pid, never by pointer: each call looks
 * it up under proc_lock, so nothing in /proc can outlive the process it
 * shows.
 */
#ifndef PROC_PROC_PID_H
#define PROC_PROC_PID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/nsfs.h"

enum proc_pid_file {
	PROC_PID_STAT,
	PROC_PID_STATUS,
	PROC_PID_CMDLINE,
	PROC_PID_MAPS,
	PROC_PID_COMM,
	PROC_PID_SYSCALL,
	PROC_PID_LIMITS,
	PROC_PID_ENVIRON,
	PROC_PID_MOUNTINFO,
	PROC_PID_MOUNTS,
	PROC_PID_SMAPS,
	PROC_PID_SMAPS_ROLLUP,
	PROC_PID_COREDUMP_FILTER, /* the one writable: proc_pid_set_dump_filter */
	PROC_PID_PAGEMAP,	  /* binary, read by proc_pagemap_read */
	PROC_PID_IO,
	PROC_PID_TIMENS_OFFSETS, /* writable too: time/timens.h */
	PROC_PID_UID_MAP,	 /* these three: its user namespace's (fs/proc/proc_pid.c) */
	PROC_PID_GID_MAP,
	PROC_PID_SETGROUPS,
	PROC_PID_NFILES
};

/* Linux's ptrace_may_access(PTRACE_MODE_*_FSCREDS) on process pid, for
 * /proc/<pid>'s guarded files (docs/security.md): 0, -EPERM when the
 * caller may not inspect it, -ESRCH when pid is no process.  mm: a
 * reader of its memory map (Linux's mm_access for proc_mem_open), which
 * a process without memory (a zombie) and perfmon_capable (CAP_PERFMON
 * or CAP_SYS_ADMIN) pass too. */
int proc_pid_may_access(int pid, bool mm);
/* Who owns pid's /proc entries (Linux's task_dump_owner): its effective
 * uid and gid; root instead for any entry but a world-readable directory
 * (world_dir: /proc/<pid>, task, fdinfo) while pid is not dumpable or has
 * no memory (a zombie).  Untouched when pid is no process. */
void proc_pid_owner(int pid, bool world_dir, uint32_t *uid, uint32_t *gid);
/* Whether pid is a process (a thread group not yet reaped: zombies too). */
bool proc_pid_exists(int pid);
/* The smallest process id >= from, or 0 if there is none. */
int proc_pid_next(int from);
/* The text of /proc/<pid>/<which> (tid 0), or of /proc/<pid>/task/<tid>/
 * <which>, into buf: its length (cmdline holds NULs), cut to size, or
 * -ESRCH when pid is no process or tid no live thread of it. */
long proc_pid_text(int pid, int tid, enum proc_pid_file which, char *buf, size_t size);
/* Writes /proc/<pid>/coredump_filter: pid's address space's filter
 * becomes the low bits of value (COREDUMP_FILTER_MASK).  0, or -ESRCH
 * when pid is no process or has no address space (a zombie), as Linux. */
int proc_pid_set_dump_filter(int pid, unsigned int value);
struct uvm;
/* fn(pid's address space, arg) under proc_lock (the uvm cannot be swapped
 * or dropped meanwhile; fn may take its lock, not sleep): fn's answer, 0
 * for a process without one (a zombie), -ESRCH when pid is no process. */
long proc_pid_uvm_call(int pid, long (*fn)(struct uvm *u, void *arg), void *arg);
struct iov_iter;
/* A read of /proc/<pid>/pagemap at *pos (mm/pagemap.c). */
long proc_pagemap_read(int pid, struct iov_iter *to, uint64_t *pos);
/* Whether tid is a live thread of process pid. */
bool proc_tid_exists(int pid, int tid);
/* The smallest tid >= from of a live thread of pid, or 0 if none. */
int proc_tid_next(int pid, int from);
/* The path pid's program was executed as, into buf (PATH_MAX bytes):
 * 0, -ESRCH, or -ENOENT for a zombie (no program left). */
int proc_pid_exe(int pid, char *buf);
/* The path of pid's root (chroot's) or working directory into buf
 * (PATH_MAX bytes): 0, -ESRCH, or -ENOENT for a zombie or a removed
 * directory. */
int proc_pid_fs_path(int pid, bool root, char *buf);
/* pid's namespace of kind, referenced (ops->put it), or NULL with *err
 * -ESRCH (no such process) or -ENOENT (a zombie: mnt and uts). */
struct ns_common *proc_pid_ns(int pid, enum ns_kind kind, int *err);
/* The same for the namespace pid's children go to (pid_for_children, time_for_children). */
struct ns_common *proc_pid_ns_for_children(int pid, enum ns_kind kind, int *err);
struct files_table;
/* pid's files table, borrowed (files_unborrow it), or NULL when pid is
 * no process or its leader has exited (Linux's fd listing is then empty). */
struct files_table *proc_pid_files(int pid);

#endif
