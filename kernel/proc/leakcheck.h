/*
 * Resource accounting for tests: the kernel's counts of free frames, heap
 * bytes, tasks, open files, inodes, sockets, futex waiters, epoll watches,
 * multicast memberships, mappings, flock locks, record locks, System V IPC objects,
 * Committed_AS (mm/commit.h), futex PI states, queued signals, POSIX
 * timers, pidfd identities, inotify watches and events, open files'
 * signal-driven I/O state (fs/fasync.h), dnotify watches, file leases, ptys
 * credentials, disks, partitions, cached blocks and loop devices,
 * io_uring rings and their registered-file slots, asynchronous-call
 * engines and their workers,
 * compared when init exits
 * in test mode with what they were when it started.
 */
#ifndef PROC_LEAKCHECK_H
#define PROC_LEAKCHECK_H

#include <stddef.h>
#include <stdint.h>

struct kcounters {
	size_t free_frames;
	size_t heap_bytes;
	int tasks;
	unsigned long files;
	unsigned long inodes;
	unsigned long sockets;
	unsigned long mcast; /* net/inet_mcast.c: sockets' groups and the host's */
	unsigned long futex_waiters;
	unsigned long epoll_watches;
	unsigned long vmas; /* struct vma (mm/vma.h) */
	unsigned long flocks;
	unsigned long memfds;	    /* fs/ramfs/memfd.c */
	unsigned long shm_segs;	    /* System V shared memory segments (ipc/shm.c) */
	unsigned long reclocks;	    /* fcntl record locks (fs/locks/reclock.h) */
	int64_t committed;	    /* pages charged for overcommit (mm/commit.h) */
	unsigned long pi_states;    /* proc/futex_pi.c */
	unsigned long sigqueue;	    /* queued signals and timers' entries (proc/sigqueue.h) */
	unsigned long posix_timers; /* proc/posix_timer.h */
	unsigned long pidfds;	    /* proc/pidfd.c: process identities */
	unsigned long inotify_watches, inotify_events; /* fs/notify/inotify.c */
	unsigned long sem_sets, sem_undos;   /* System V semaphore sets, undo structures */
	unsigned long msg_queues, msg_bytes; /* System V message queues, queued bytes */
	unsigned long fowns;	       /* F_SETOWN/O_ASYNC state of open files (fs/fasync.h) */
	unsigned long dnotify_watches; /* fs/notify/dnotify.c */
	unsigned long leases;	       /* fcntl F_SETLEASE leases (fs/locks/lease.c) */
	unsigned long mounts, sbs;     /* fs/mount.c, fs/super.c */
	unsigned long mnt_ns;	       /* fs/mount.c */
	unsigned long uts_ns, ipc_ns;  /* proc/uts.c, ipc/namespace.c */
	unsigned long time_ns;	       /* time/timens.c */
	unsigned long pid_ns;	       /* proc/pid_ns.c */
	unsigned long user_ns;	       /* proc/user_namespace.c */
	unsigned long ptys;	       /* pseudo-terminals (tty/pty.c) */
	unsigned long creds;	       /* credentials and group lists (proc/cred.c) */
	unsigned long disks, bdevs;    /* block/genhd.c: disks, partitions */
	unsigned long bufs;	       /* block/bcache.c: cached blocks after a shrink */
	unsigned long loops;	       /* block/loop.c: loop devices */
	unsigned long pages;	       /* mm/filemap.c: cached file pages (after a shrink) */
	unsigned long mappings;	       /* mm/filemap.c: files with cached pages */
	unsigned long io_rings;	       /* async/io_uring.c: io_uring instances */
	unsigned long async_ctxs;      /* async/async.c: engines (one per submitting task) */
	unsigned long async_workers;   /* async/async_worker.c: their workers */
	unsigned long sysind_queues;   /* async/sysind_async.c: SYSIND_ASYNC completion queues */
	unsigned long io_fixed_slots;  /* async/io_uring_files.c: registered-file slots */
	uint64_t heap_serial;	       /* heaptrace_serial(): allocations so far */
};

/* The counters when init started (proc/init.c). */
extern struct kcounters counters_at_init;

void kcounters_read(struct kcounters *c);
/* Prints one TAP line per counter and "leaks: N passed, N failed";
 * returns the number of counters that differ. */
int leakcheck_report(const struct kcounters *before, const struct kcounters *after);

#endif
