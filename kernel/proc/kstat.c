/*
 * /proc/kstat: the kernel's resource counters as "name value" lines, the
 * same ones the end-of-test leak check compares, so a user program can
 * check for itself that an operation left nothing behind.
 */
#include "arch/x86_64/traps.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "lib/printk.h"
#include "mm/frame.h"
#include "proc/leakcheck.h"
#include "proc/kstat.h"
#include "sys/enosys.h"

#define KSTAT_MAX 1024

static void format_kstat(char *buf, size_t size)
{
	struct kcounters c;

	kcounters_read(&c);
	snprintk(
	    buf, size,
	    "frames_free %zu\nframes_total %zu\nheap_bytes %zu\ntasks %d\nfiles %lu\n"
	    "inodes %lu\nsockets %lu\nfutex_waiters %lu\nepoll_watches %lu\nvmas %lu\nflocks %lu\n"
	    "memfds %lu\nreclocks %lu\npidfds %lu\ninotify_watches %lu\ninotify_events %lu\n"
	    "enosys_calls %lu\nnmis %lu\nshm_segments %lu\nsigqueue %lu\nposix_timers %lu\n"
	    "sem_sets %lu\nsem_undos %lu\nmsg_queues %lu\nmsg_bytes %lu\n",
	    c.free_frames, frame_total_count(), c.heap_bytes, c.tasks, c.files, c.inodes, c.sockets,
	    c.futex_waiters, c.epoll_watches, c.vmas, c.flocks, c.memfds, c.reclocks, c.pidfds,
	    c.inotify_watches, c.inotify_events, enosys_count(), trap_nmi_count(), c.shm_segs,
	    c.sigqueue, c.posix_timers, c.sem_sets, c.sem_undos, c.msg_queues, c.msg_bytes);
}

static long kstat_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	return snapshot_read(f, to, pos, KSTAT_MAX, format_kstat);
}

const struct file_ops kstat_ops = {
    .seekable = true,
    .read_iter = kstat_read,
    .release = snapshot_release,
};
