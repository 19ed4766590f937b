/* execve: replacing a process's program. */
#ifndef PROC_EXEC_H
#define PROC_EXEC_H

#include <stdbool.h>
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
struct inode;

/* Replaces t's program with path (resolved from the current task's
 * directory); on failure t is left intact. */
int exec_program(struct task *t, const char *path, struct exec_strings *strs);
/* Adds a kernel string (used for init's argv). 0 or -E2BIG / -ENOMEM. */
int exec_strings_add(struct exec_strings *s, const char *str, size_t len);
void exec_strings_free(struct exec_strings *s);
/* Whether the strings and their argv[]/envp[] pointers fit EXEC_ARG_MAX. */
bool exec_strings_fit(const struct exec_strings *s);
/*
 * If *ip is a "#!" script (proc/exec_script.c), replaces it by its
 * interpreter (the reference moves) and rewrites strs' argv, following
 * interpreters that are scripts.  *interp is then the interpreter's path
 * (kmalloc'd, the caller frees it; NULL for no script).  0 or -errno; on
 * error *ip and *interp are still the caller's to release.
 */
int exec_resolve_script(struct inode **ip, const char *path, struct exec_strings *strs,
			char **interp);

#endif
