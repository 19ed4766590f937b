/*
 * "#!" scripts, as Linux's binfmt_script: a program file starting with #!
 * names its interpreter on that line, with at most one argument (the rest
 * of the line, inner blanks kept).  The interpreter runs instead, with
 * argv[0] replaced by its name, the argument if any, and the script's path;
 * argv[1..] follow.  An interpreter may itself be a script: five scripts
 * deep at most, ELOOP for a sixth (Linux's exec_binprm limit).
 */
#include "proc/exec.h"
#include "proc/exec_strings.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

#define SCRIPT_LINE_MAX	 256 /* what Linux reads of the file (BINPRM_BUF_SIZE) */
#define SCRIPT_DEPTH_MAX 5

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Splits the #! line in buf (n bytes, NUL-terminated at n) into the
 * interpreter's name and its argument (NULL if none), in place.  -ENOEXEC
 * for a line without a name, or whose name the SCRIPT_LINE_MAX bytes cut.
 */
static int parse_line(char *buf, size_t n, char **name, char **arg)
{
	char *end = buf + 2, *p = buf + 2;

	while (end < buf + n && *end != '\n')
		end++;
	*end = '\0';
	while (end > p && is_blank(end[-1]))
		*--end = '\0';
	while (is_blank(*p))
		p++;
	if (!*p)
		return -ENOEXEC;
	*name = p;
	while (*p && !is_blank(*p))
		p++;
	if (p == buf + SCRIPT_LINE_MAX)
		return -ENOEXEC; /* the name may go on past what was read */
	if (*p)
		*p++ = '\0';
	while (is_blank(*p))
		p++;
	*arg = *p ? p : NULL;
	return 0;
}

/* strs with argv[0] replaced by name, arg (if any) and path. */
static int rewrite_args(struct exec_strings *strs, const char *name, const char *arg,
			const char *path)
{
	struct exec_strings out = {0};
	size_t skip = strs->argc ? strlen(strs->buf) + 1 : 0;
	int err = exec_strings_add(&out, name, strlen(name));

	if (!err && arg)
		err = exec_strings_add(&out, arg, strlen(arg));
	if (!err)
		err = exec_strings_add(&out, path, strlen(path));
	for (size_t off = skip; !err && off < strs->len; off += strlen(strs->buf + off) + 1)
		err = exec_strings_add(&out, strs->buf + off, strlen(strs->buf + off));
	out.argc = strs->argc - !!skip + 2 + !!arg;
	out.envc = strs->envc;
	if (!err && !exec_strings_fit(&out))
		err = -E2BIG;
	if (err) {
		exec_strings_free(&out);
		return err;
	}
	exec_strings_free(strs);
	*strs = out;
	return 0;
}

/* One level: 1 if *ip was a script and now is its interpreter, 0 if it is
 * no script, or -errno. */
static int script_step(struct inode **ip, bool *nosuid, const char **path,
		       struct exec_strings *strs, char **interp)
{
	char buf[SCRIPT_LINE_MAX + 1], *name, *arg;
	long n = inode_read(*ip, buf, SCRIPT_LINE_MAX, 0);
	struct inode *next;
	char *copy;
	int err;

	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	if ((err = parse_line(buf, n, &name, &arg)) || (err = rewrite_args(strs, name, arg, *path)))
		return err;
	if ((err = vfs_lookup_exec(NULL, name, 0, &next, nosuid)))
		return err;
	if ((err = inode_deny_write_access(next))) {
		inode_put(next);
		return err;
	}
	if (!(copy = kstrdup(name))) {
		exe_inode_put(next);
		return -ENOMEM;
	}
	exe_inode_put(*ip);
	*ip = next;
	kfree(*interp);
	*path = *interp = copy;
	return 1;
}

int exec_resolve_script(struct inode **ip, bool *nosuid, const char *path,
			struct exec_strings *strs, char **interp)
{
	int err;

	*interp = NULL;
	for (int depth = 0; (err = script_step(ip, nosuid, &path, strs, interp)) == 1; depth++)
		if (depth == SCRIPT_DEPTH_MAX)
			return -ELOOP;
	return err;
}
