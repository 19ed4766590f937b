/* Resource counters and the end-of-test leak report (see leakcheck.h). */
#include "proc/leakcheck.h"
#include "async/async.h"
#include "async/io_uring.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "block/loop.h"
#include "mm/filemap.h"
#include "fs/event/eventpoll.h"
#include "fs/notify/dnotify.h"
#include "fs/fasync.h"
#include "fs/file.h"
#include "fs/locks/flock.h"
#include "fs/inode.h"
#include "fs/notify/inotify.h"
#include "fs/locks/lease.h"
#include "fs/mount.h"
#include "fs/super.h"
#include "fs/ramfs/memfd.h"
#include "ipc/ipc.h"
#include "fs/locks/reclock.h"
#include "lib/printk.h"
#include "mm/commit.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/heaptrace.h"
#include "net/inet_mcast.h"
#include "net/socket.h"
#include "proc/nsproxy.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include "proc/cred.h"
#include "proc/futex.h"
#include "proc/posix_timer.h"
#include "proc/sigqueue.h"
#include "proc/pidfd.h"
#include "proc/proc.h"
#include "mm/vma.h"
#include "mm/writeback.h"
#include "sched/grace.h"
#include "time/timens.h"
#include "tty/pty.h"

void kcounters_read(struct kcounters *c)
{
	/* Not in the middle of a flusher's pass, which holds pages and
	 * blocks for a moment. */
	writeback_pause();
	/* What waits for a grace period or a fork is not in use: counted
	 * free, so a count read right after a close or an exit is exact on
	 * several CPUs too (on one, a switch ends the period at once). */
	grace_drain();
	task_stack_cache_drain(); /* frames kept mapped for the next fork */
	/* Clean cached blocks are not in use: given back, so that frames
	 * count what is held (dirty ones stay, and count). */
	bcache_shrink(~0UL);
	filemap_shrink(~0UL); /* the same for clean cached file pages */
	heap_purge();	      /* large allocations awaiting a shootdown, empty slabs */
	c->free_frames = frame_free_count();
	c->heap_bytes = heap_bytes_in_use();
	c->tasks = task_count();
	c->files = file_count();
	c->inodes = inode_count();
	c->sockets = socket_count();
	c->mcast = inet_mc_count();
	c->futex_waiters = futex_waiter_count();
	c->epoll_watches = eventpoll_watch_count();
	c->vmas = vma_count();
	c->flocks = flock_count();
	c->memfds = memfd_count();
	c->shm_segs = shm_segment_count();
	c->reclocks = reclock_count();
	c->committed = vm_committed_pages();
	c->pi_states = futex_pi_state_count();
	c->sigqueue = sigqueue_count();
	c->posix_timers = posix_timer_count();
	c->pidfds = pidfd_ident_count();
	c->inotify_watches = inotify_watch_count();
	c->inotify_events = inotify_event_count();
	c->sem_sets = sem_set_count();
	c->sem_undos = sem_undo_count();
	c->msg_queues = msg_queue_count();
	c->msg_bytes = msg_queued_bytes();
	c->fowns = fasync_count();
	c->dnotify_watches = dnotify_count();
	c->leases = lease_count();
	c->mounts = mount_count();
	c->sbs = sb_count();
	c->mnt_ns = mnt_ns_count();
	c->uts_ns = uts_ns_count();
	c->ipc_ns = ipc_ns_count();
	c->time_ns = timens_count();
	c->pid_ns = pid_ns_count();
	c->user_ns = user_ns_count();
	c->ptys = pty_count();
	c->creds = cred_count();
	c->disks = disk_count();
	c->bdevs = bdev_count();
	c->bufs = bcache_count();
	c->loops = loop_count();
	c->pages = filemap_page_count();
	c->mappings = filemap_mapping_count();
	c->io_rings = io_ring_count();
	c->async_ctxs = async_ctx_count();
	c->async_workers = async_worker_count();
	c->sysind_queues = sysind_queue_count();
	c->io_fixed_slots = io_fixed_slot_count();
	c->heap_serial = heaptrace_serial();
	writeback_resume();
}

#define LEAK_CHECKS 49 /* the check() lines below */

static int check(int n, const char *what, long before, long after)
{
	bool ok = before == after;

	printk("%sok %d - leak check: %s %ld before, %ld after\n", ok ? "" : "not ", n, what,
	       before, after);
	return ok;
}

int leakcheck_report(const struct kcounters *b, const struct kcounters *a)
{
	int passed = 0;

	passed += check(1, "free frames", (long)b->free_frames, (long)a->free_frames);
	passed += check(2, "heap bytes", (long)b->heap_bytes, (long)a->heap_bytes);
	passed += check(3, "tasks", b->tasks, a->tasks);
	passed += check(4, "open files", (long)b->files, (long)a->files);
	passed += check(5, "inodes", (long)b->inodes, (long)a->inodes);
	passed += check(6, "sockets", (long)b->sockets, (long)a->sockets);
	passed += check(7, "futex waiters", (long)b->futex_waiters, (long)a->futex_waiters);
	passed += check(8, "epoll watches", (long)b->epoll_watches, (long)a->epoll_watches);
	passed += check(9, "mappings", (long)b->vmas, (long)a->vmas);
	passed += check(10, "flock locks", (long)b->flocks, (long)a->flocks);
	passed += check(11, "memfds", (long)b->memfds, (long)a->memfds);
	passed += check(12, "shm segments", (long)b->shm_segs, (long)a->shm_segs);
	passed += check(13, "record locks", (long)b->reclocks, (long)a->reclocks);
	passed += check(14, "committed pages", b->committed, a->committed);
	passed += check(15, "futex PI states", (long)b->pi_states, (long)a->pi_states);
	passed += check(16, "queued signals", (long)b->sigqueue, (long)a->sigqueue);
	passed += check(17, "POSIX timers", (long)b->posix_timers, (long)a->posix_timers);
	passed += check(18, "pidfd identities", (long)b->pidfds, (long)a->pidfds);
	passed += check(19, "inotify watches", (long)b->inotify_watches, (long)a->inotify_watches);
	passed += check(20, "inotify events", (long)b->inotify_events, (long)a->inotify_events);
	passed += check(21, "semaphore sets", (long)b->sem_sets, (long)a->sem_sets);
	passed += check(22, "semaphore undos", (long)b->sem_undos, (long)a->sem_undos);
	passed += check(23, "message queues", (long)b->msg_queues, (long)a->msg_queues);
	passed += check(24, "queued message bytes", (long)b->msg_bytes, (long)a->msg_bytes);
	passed += check(25, "file owners", (long)b->fowns, (long)a->fowns);
	passed += check(26, "dnotify watches", (long)b->dnotify_watches, (long)a->dnotify_watches);
	passed += check(27, "file leases", (long)b->leases, (long)a->leases);
	passed += check(28, "mounts", (long)b->mounts, (long)a->mounts);
	passed += check(29, "super blocks", (long)b->sbs, (long)a->sbs);
	passed += check(30, "ptys", (long)b->ptys, (long)a->ptys);
	passed += check(31, "credentials", (long)b->creds, (long)a->creds);
	passed += check(32, "mount namespaces", (long)b->mnt_ns, (long)a->mnt_ns);
	passed += check(33, "disks", (long)b->disks, (long)a->disks);
	passed += check(34, "block devices", (long)b->bdevs, (long)a->bdevs);
	passed += check(35, "cached blocks", (long)b->bufs, (long)a->bufs);
	passed += check(36, "loop devices", (long)b->loops, (long)a->loops);
	passed += check(37, "cached file pages", (long)b->pages, (long)a->pages);
	passed += check(38, "page cache mappings", (long)b->mappings, (long)a->mappings);
	passed += check(39, "io_uring rings", (long)b->io_rings, (long)a->io_rings);
	passed += check(40, "async engines", (long)b->async_ctxs, (long)a->async_ctxs);
	passed += check(41, "async workers", (long)b->async_workers, (long)a->async_workers);
	passed += check(42, "SYSIND_ASYNC queues", (long)b->sysind_queues, (long)a->sysind_queues);
	passed +=
	    check(43, "io_uring file slots", (long)b->io_fixed_slots, (long)a->io_fixed_slots);
	passed += check(44, "uts namespaces", (long)b->uts_ns, (long)a->uts_ns);
	passed += check(45, "ipc namespaces", (long)b->ipc_ns, (long)a->ipc_ns);
	passed += check(46, "multicast memberships", (long)b->mcast, (long)a->mcast);
	passed += check(47, "time namespaces", (long)b->time_ns, (long)a->time_ns);
	passed += check(48, "pid namespaces", (long)b->pid_ns, (long)a->pid_ns);
	passed += check(49, "user namespaces", (long)b->user_ns, (long)a->user_ns);
	if (b->free_frames != a->free_frames || b->heap_bytes != a->heap_bytes)
		heaptrace_report(b->heap_serial);
	printk("leaks: %d passed, %d failed\n", passed, LEAK_CHECKS - passed);
	return LEAK_CHECKS - passed;
}
