/*
 * Write-back policy (docs/pagecache.md, "Write-back"): the flusher, a
 * kernel thread that writes back what has been dirty longer than
 * vm/dirty_expire_centisecs every vm/dirty_writeback_centisecs, and
 * everything when dirty pages pass vm/dirty_background_ratio of memory;
 * and vm/dirty_ratio, past which a writer writes its own file back.
 */
#ifndef MM_WRITEBACK_H
#define MM_WRITEBACK_H

#include <stdbool.h>

/* Starts the flusher, a kernel thread (proc/kthread.h), at boot. */
void writeback_start(void);
/*
 * A writer dirtied pages: wakes the flusher past the background limit,
 * and returns whether the writer is past vm/dirty_ratio and must write
 * its own file back before it returns (the throttle).
 */
bool writeback_balance(void);
/* The leak check counts between the flusher's passes: pause waits for
 * the pass under way and holds the next one off until resume. */
void writeback_pause(void);
void writeback_resume(void);

#endif
