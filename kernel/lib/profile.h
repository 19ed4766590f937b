/*
 * The sampling profiler.  With `profile` on the kernel command line, every
 * timer tick records where the CPU was: the kernel function (symbolised
 * with the kernel's own symbol table) or, in user mode, the program.
 * /dev/profile (fs/dev/profile.c) reads back the top entries; writing to
 * it clears them.
 */
#ifndef LIB_PROFILE_H
#define LIB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86_64/trapframe.h"

/* Program names are counted up to a task name's length (TASK_NAME_MAX). */
#define PROFILE_NAME_MAX 32

void profile_init(bool enabled);
/* Timer interrupt: one sample of the interrupted context; program is the
 * running task's name, counted if the tick came from user mode. */
void profile_sample(const struct trapframe *tf, const char *program);
/* Whether the counters run (booted with `profile`). */
bool profile_enabled(void);

/* One counter: a kernel function's, or a program's (user). */
struct profile_entry {
	uint64_t count;
	const char *what;
	bool user;
};
/* The most entries profile_collect can give. */
size_t profile_entries_max(void);
/* Copies up to max non-zero counters into e, in no order, and the samples
 * taken in all into *samples; returns how many it copied. */
size_t profile_collect(struct profile_entry *e, size_t max, uint64_t *samples);
/* Sets every counter to 0. */
void profile_clear(void);

#endif
