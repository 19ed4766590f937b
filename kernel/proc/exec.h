/* execve: replacing a process's program. */
#ifndef PROC_EXEC_H
#define PROC_EXEC_H

#include <stddef.h>

/*
 * Argument and environment strings gathered in kernel memory: argc
 * strings then envc strings, each NUL-terminated, back to back.
 */
struct exec_strings {
	char *buf;
	size_t len, cap;
	int argc, envc;
};

/* Limits (Linux's defaults for an 8 MiB stack, whose rlimit is fixed):
 * all strings plus their argv[]/envp[] pointers (a quarter of the stack),
 * one string. */
#define EXEC_ARG_MAX	    (2UL << 20)
#define EXEC_ARG_STRLEN_MAX (128UL << 10)

struct task;

/* Replaces t's program with path (resolved from the current task's
 * directory); on failure t is left intact. */
int exec_program(struct task *t, const char *path, struct exec_strings *strs);
/* Adds a kernel string (used for init's argv). 0 or -E2BIG / -ENOMEM. */
int exec_strings_add(struct exec_strings *s, const char *str, size_t len);
void exec_strings_free(struct exec_strings *s);

#endif
