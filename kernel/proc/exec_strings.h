/* An execve's argument and environment strings (proc/exec_strings.c). */
#ifndef PROC_EXEC_STRINGS_H
#define PROC_EXEC_STRINGS_H

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

/* The user's argv and envp (NULL: empty) into s, argv[0] "" if argv is
 * empty: 0, -EFAULT, -E2BIG or -ENOMEM.  s starts empty ({0}); the caller
 * frees it either way. */
long exec_strings_from_user(struct exec_strings *s, char *const *uargv, char *const *uenvp);
/* Adds a kernel string (used for init's argv). 0 or -E2BIG / -ENOMEM. */
int exec_strings_add(struct exec_strings *s, const char *str, size_t len);
void exec_strings_free(struct exec_strings *s);
/* Whether the strings and their argv[]/envp[] pointers fit EXEC_ARG_MAX. */
bool exec_strings_fit(const struct exec_strings *s);

#endif
