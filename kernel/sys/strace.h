/*
 * The syscall trace (docs/debugging.md): prints each system call of the
 * chosen processes as `pid name(args) = result`, like strace.  Chosen by the
 * command-line word strace=PROGRAM|all or by writing /proc/strace.
 */
#ifndef SYS_STRACE_H
#define SYS_STRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct task;

/* A target is set.  The only thing syscall_invoke tests when tracing is
 * off: one predictable branch per call. */
extern bool strace_on;

/* Runs syscall nr for the current task, traced if it is chosen. */
long strace_invoke(uint64_t nr, const uint64_t args[6]);

/* A valid target: "all", "off" or a program name (not empty, no '/' or
 * space, shorter than a task name). */
bool strace_target_ok(const char *target);
/* Sets the target: "all", "off" or a program name; -EINVAL (and nothing
 * changes) for anything else. */
int strace_set(const char *target);
/* Applies kopts.strace at boot; a program found in none of /bin, /tests
 * and /bench is warned about (it is still traced if it ever runs). */
void strace_init(void);

/* The follow rules: a forked child is traced if its parent is; a task
 * stays traced across execve and starts being traced when it execs the
 * target program. */
void strace_fork(struct task *child, const struct task *parent);
void strace_exec(struct task *t);

/* Formats "name(args" of call nr into buf (strace_decode.c). */
void strace_format_call(char *buf, size_t size, uint64_t nr, const uint64_t args[6]);
/* Formats " = result" (or " = -1 ENAME (message)") of call nr into buf. */
void strace_format_result(char *buf, size_t size, uint64_t nr, long ret);

extern const struct file_ops strace_ops; /* /proc/strace */

#endif
