/* execve: replacing a process's program. */
#ifndef PROC_EXEC_H
#define PROC_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include "proc/exec_strings.h"

struct task;
struct inode;
struct path;

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
	const struct path *start;
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
/*
 * If *ip is a "#!" script (proc/exec_script.c), replaces it by its
 * interpreter (the reference and its write denial move; *nosuid becomes
 * its mount's) and rewrites strs' argv, following interpreters that are
 * scripts: a script's own set-id bits are ignored, as Linux does.  *interp is then the interpreter's path
 * (kmalloc'd, the caller frees it; NULL for no script).  0 or -errno; on
 * error *ip and *interp are still the caller's to release.
 */
int exec_resolve_script(struct inode **ip, bool *nosuid, const char *path, struct exec_strings *strs,
			char **interp);

#endif
