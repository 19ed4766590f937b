/*
 * Write-back policy (writeback.h): the flusher thread and the dirty
 * limits, Linux's tunables with Linux's defaults and bounds.  The files'
 * pages are written by filemap_flush_oldest (mm/filemap_write.c), the
 * metadata blocks by bcache_flush_expired (block/bcache.c).
 */
#include "mm/writeback.h"
#include "arch/x86_64/timer.h"
#include "block/bcache.h"
#include "fs/proc/proc_sys.h"
#include "mm/filemap.h"
#include "lib/printk.h"
#include "mm/frame.h"
#include "proc/kthread.h"
#include "sched/mutex.h"
#include "sched/sched.h"
#include "sched/wait.h"

#define NS_PER_CS 10000000ULL

/*
 * The tunables, atomic ints (read without a lock):
 * - dirty_ratio: the percentage of memory dirty pages may fill before a
 *   writer writes back itself (0..100, Linux's 20);
 * - dirty_background_ratio: past it the flusher writes everything back
 *   (0..100, Linux's 10; at or above dirty_ratio, half of that);
 * - dirty_expire_centisecs: how long a page or block may stay dirty
 *   before the flusher writes it (0..INT_MAX, Linux's 3000; 0: at once);
 * - dirty_writeback_centisecs: the flusher's period (Linux's 500; 0 stops
 *   periodic write-back; as Linux's proc_dointvec takes any int, read as
 *   unsigned: -1 is a period of 497 days).
 */
static int dirty_ratio = 20, dirty_background_ratio = 10;
static int dirty_expire_cs = 3000, dirty_writeback_cs = 500;

/* The flusher sleeps here between passes. */
static struct wait_queue flusher_wq;
static bool flusher_ready; /* writeback_start set things up (atomic) */
/* Asks the flusher for a pass now (atomic): KICK_ALL writes every dirty
 * file back whatever its age (Linux's wakeup_flusher_threads). */
#define KICK_BACKGROUND 1
#define KICK_ALL	2
static int kicked;
/* Held by the flusher during each pass, and by the leak check while it
 * counts. */
static struct mutex pass_lock;

static int tunable(int *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static unsigned long pages_at(int ratio)
{
	return frame_total_count() * (unsigned long)ratio / 100;
}

static unsigned long background_limit(void)
{
	int ratio = tunable(&dirty_ratio), bg = tunable(&dirty_background_ratio);

	return bg >= ratio ? pages_at(ratio) / 2 : pages_at(bg);
}

static void kick(int how)
{
	if (!__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE))
		return;
	if ((__atomic_fetch_or(&kicked, how, __ATOMIC_RELEASE) & how) != how)
		wake_up(&flusher_wq);
}

bool writeback_balance(void)
{
	unsigned long dirty = filemap_dirty_count();

	if (dirty > background_limit())
		kick(KICK_BACKGROUND);
	return dirty > pages_at(tunable(&dirty_ratio));
}

/* A new period takes effect now: Linux's handler wakes the flushers,
 * which write every dirty file back. */
static long writeback_cs_store(const struct proc_sys_row *row, const char *text, size_t len,
			       uint64_t *pos)
{
	int old = tunable(&dirty_writeback_cs);
	long ret = proc_sys_int_store(row, text, len, pos);
	int now = tunable(&dirty_writeback_cs);

	if (ret > 0 && now && now != old)
		kick(KICK_ALL);
	return ret;
}

PROC_SYS_ROW(dirty_ratio_row, .path = "vm/dirty_ratio", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &dirty_ratio, .min = 0, .max = 100);
PROC_SYS_ROW(dirty_background_ratio_row, .path = "vm/dirty_background_ratio", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store,
	     .data = &dirty_background_ratio, .min = 0, .max = 100);
PROC_SYS_ROW(dirty_expire_row, .path = "vm/dirty_expire_centisecs", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &dirty_expire_cs,
	     .min = 0, .max = __INT_MAX__);
PROC_SYS_ROW(dirty_writeback_row, .path = "vm/dirty_writeback_centisecs", .mode = 0644,
	     .show = proc_sys_int_show, .store = writeback_cs_store, .data = &dirty_writeback_cs,
	     .min = -__INT_MAX__ - 1, .max = __INT_MAX__);

/* The period in ns, 0 for none. */
static uint64_t period_ns(void)
{
	return (uint64_t)(unsigned int)tunable(&dirty_writeback_cs) * NS_PER_CS;
}

/*
 * One pass: files first, then the blocks (a file's write-back may dirty
 * its map's blocks).  Expired (before_ns): what has been dirty since
 * then; KICK_ALL: every dirty file; background: the oldest files until
 * the dirty pages are under the background limit.  Each file is written
 * at most once a pass but for the background's (filemap_flush_oldest
 * stamps a file still dirty with the time it is written).
 */
static void flush_pass(uint64_t before_ns, int how)
{
	uint64_t start = clock_monotonic_ns();

	if (how & KICK_ALL)
		while (filemap_flush_oldest(start))
			;
	while (filemap_flush_oldest(before_ns))
		;
	/* Each dirty file once at most: a file kept dirty by a shared
	 * writable mapping comes back to the list's end. */
	for (unsigned long n = filemap_dirty_files();
	     n-- && filemap_dirty_count() > background_limit();)
		if (!filemap_flush_oldest(~0ULL))
			break;
	if ((how & KICK_ALL) || before_ns)
		bcache_flush_expired((how & KICK_ALL) ? start : before_ns);
}

/* Sleeps until kicked or, with a deadline, until then. */
static void flusher_sleep(uint64_t deadline_ns)
{
	DEFINE_WAIT(w);

	prepare_to_wait(&flusher_wq, &w);
	if (deadline_ns)
		sched_arm_deadline(deadline_ns);
	if (!__atomic_load_n(&kicked, __ATOMIC_ACQUIRE) &&
	    !(deadline_ns && clock_monotonic_ns() >= deadline_ns))
		schedule();
	if (deadline_ns)
		sched_disarm_deadline();
	finish_wait(&flusher_wq, &w);
}

static __attribute__((noreturn)) void flusher_main(void)
{
	uint64_t last = clock_monotonic_ns();

	for (;;) {
		uint64_t period = period_ns(), now = clock_monotonic_ns(), expire;
		bool due = period && now - last >= period;
		int how = __atomic_exchange_n(&kicked, 0, __ATOMIC_ACQUIRE);

		if (!due && !how) {
			flusher_sleep(period ? last + period : 0);
			continue;
		}
		expire = (uint64_t)tunable(&dirty_expire_cs) * NS_PER_CS;
		mutex_lock(&pass_lock);
		flush_pass(due && now > expire ? now - expire : 0, how);
		mutex_unlock(&pass_lock);
		if (due)
			last = clock_monotonic_ns();
	}
}

void writeback_start(void)
{
	wait_queue_init(&flusher_wq, "flusher");
	mutex_init(&pass_lock, "writeback_pass");
	__atomic_store_n(&flusher_ready, true, __ATOMIC_RELEASE);
	if (!kthread_start("flush", flusher_main))
		panic("writeback: cannot start the flusher");
}

void writeback_pause(void)
{
	if (__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE))
		mutex_lock(&pass_lock);
}

void writeback_resume(void)
{
	if (__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE))
		mutex_unlock(&pass_lock);
}
