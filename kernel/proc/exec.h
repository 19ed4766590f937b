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

struct file;

/*
 * What an execve runs: the file path names from start (NULL: the current
 * task's cwd; the caller's reference), or with file (execveat's
 * AT_EMPTY_PATH, the caller's reference) that open file.  name is what
 * the program is called (Linux's bprm->filename): path, or
 * "/dev/fd/N[/path]" when it comes by an fd (by_fd), which a script's
 * interpreter gets as its argument and cannot open if the fd closes on
 * exec (fd_closes: ENOENT).  Run from file, the task takes the file's
 * own name (Linux 6.14+), else the last component of name.
 */
struct exec_target {
	struct inode *start;
	struct file *file;
	const char *path, *name;
	unsigned int lookup; /* LOOKUP_NOFOLLOW: a final link is ELOOP */
	bool by_fd, fd_closes;
};

/* Replaces t's program with tg's; on failure t is left intact. */
int exec_program_at(struct task *t, const struct exec_target *tg, struct exec_strings *strs);
/* execve and execveat: tg run with the user's argv and envp: 0 in the new
 * image, or -errno in the intact old one. */
long exec_from_user(const struct exec_target *tg, char *const *uargv, char *const *uenvp);
/* The same for path, resolved from the current task's directory. */
int exec_program(struct task *t, const char *path, struct exec_strings *strs);
/* Drops a program inode held while or after it is exec'd: its reference
 * and the write denial (fs/inode.h, writecount) that goes with it. */
void exe_inode_put(struct inode *ip);
/* Adds a kernel string (used for init's argv). 0 or -E2BIG / -ENOMEM. */
int exec_strings_add(struct exec_strings *s, const char *str, size_t len);
void exec_strings_free(struct exec_strings *s);
/* Whether the strings and their argv[]/envp[] pointers fit EXEC_ARG_MAX. */
bool exec_strings_fit(const struct exec_strings *s);
/*
 * If *ip is a "#!" script (proc/exec_script.c), replaces it by its
 * interpreter (the reference and its write denial move) and rewrites strs' argv, following
 * interpreters that are scripts.  *interp is then the interpreter's path
 * (kmalloc'd, the caller frees it; NULL for no script).  0 or -errno; on
 * error *ip and *interp are still the caller's to release.
 */
int exec_resolve_script(struct inode **ip, const char *path, struct exec_strings *strs,
			char **interp);

#endif
