/*
 * A fake struct file for host tests: just a reference count and an id, with
 * counters so tests can check every reference taken was dropped.
 */
#ifndef FAKE_FILE_H
#define FAKE_FILE_H

#include <stdbool.h>

struct file {
	int refs; /* atomic; 0 = dead (kept until fake_file_reclaim, like RCU) */
	int id;
	struct file *dead_next;
};

/* A new file with one reference (the caller's). */
struct file *fake_file_new(int id);
/* Files with a non-zero count. */
long fake_files_live(void);
/* Free the memory of dead files (what a grace period would allow). */
void fake_file_reclaim(void);

/* Calls to reclock_close() and dnotify_close() so far (each close of a
 * table with close_state makes one of each). */
long fake_close_state_calls(void);

#endif
