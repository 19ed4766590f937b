/*
 * The sampling profiler.  With `profile` on the kernel command line, every
 * timer tick records where the CPU was: the kernel function (symbolised
 * with the kernel's own symbol table) or, in user mode, the program.
 * /dev/profile reads back the top entries; writing to it clears them.
 */
#ifndef LIB_PROFILE_H
#define LIB_PROFILE_H

#include <stdbool.h>
#include "arch/x86_64/trapframe.h"

struct file_ops;

void profile_init(bool enabled);
/* Timer interrupt: one sample of the interrupted context. */
void profile_sample(const struct trapframe *tf);

extern const struct file_ops profile_ops;

#endif
