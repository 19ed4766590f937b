/*
 * An execve's argument and environment strings, gathered in kernel memory
 * before the old image goes (exec.c), or built by the kernel (init's argv,
 * a script's interpreter line): one buffer, grown as they come, within
 * Linux's limits.
 */
#include "proc/exec_strings.h"
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include <uapi/errno.h>

void exec_strings_free(struct exec_strings *s)
{
	kfree(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

/*
 * Doubles the buffer (from one page, up to EXEC_ARG_MAX).  Most programs
 * get a few hundred bytes of arguments: allocating the 2 MiB limit up
 * front cost an exec 10 ms of page mapping and zeroing under QEMU.
 */
static int strings_grow(struct exec_strings *s)
{
	size_t cap = s->cap ? s->cap * 2 : PAGE_SIZE;
	char *buf;

	if (s->cap >= EXEC_ARG_MAX)
		return -E2BIG;
	if (cap > EXEC_ARG_MAX)
		cap = EXEC_ARG_MAX;
	if (!(buf = kmalloc(cap)))
		return -ENOMEM;
	if (s->len)
		memcpy(buf, s->buf, s->len);
	kfree(s->buf);
	s->buf = buf;
	s->cap = cap;
	return 0;
}

int exec_strings_add(struct exec_strings *s, const char *str, size_t len)
{
	int err;

	if (len + 1 > EXEC_ARG_STRLEN_MAX)
		return -E2BIG;
	while (s->cap - s->len < len + 1)
		if ((err = strings_grow(s)))
			return err;
	memcpy(s->buf + s->len, str, len);
	s->buf[s->len + len] = '\0';
	s->len += len + 1;
	return 0;
}

/* Appends one user string, growing the buffer until it fits. */
static long copy_user_string(struct exec_strings *s, const char *uptr)
{
	for (;;) {
		size_t room = s->cap - s->len;
		size_t max = room < EXEC_ARG_STRLEN_MAX ? room : EXEC_ARG_STRLEN_MAX;
		long n = max ? strncpy_from_user(s->buf + s->len, uptr, max) : -ENAMETOOLONG;
		int err;

		if (n >= 0) {
			s->len += (size_t)n + 1;
			return 0;
		}
		if (n != -ENAMETOOLONG)
			return n;
		if (max == EXEC_ARG_STRLEN_MAX)
			return -E2BIG; /* one string over the limit */
		if ((err = strings_grow(s)))
			return err;
	}
}

/*
 * True while the strings and the argv[]/envp[] pointers they will need on
 * the new stack fit EXEC_ARG_MAX.  Counting the pointers bounds the number
 * of strings too (Linux's MAX_ARG_STRINGS is never reached): without them
 * a million empty strings took 8 MiB of stack, past its region.
 */
bool exec_strings_fit(const struct exec_strings *s)
{
	return s->len + (size_t)(s->argc + s->envc) * sizeof(char *) <= EXEC_ARG_MAX;
}

/* Copies a NULL-terminated user array of strings, counting them in *count
 * (s->argc or s->envc).  0 or -errno. */
static long copy_user_strings(struct exec_strings *s, char *const *uvec, int *count)
{
	if (!uvec)
		return 0; /* Linux accepts NULL argv/envp as empty */
	for (;;) {
		char *uptr;
		long err;
		if (copy_from_user(&uptr, &uvec[*count], sizeof(uptr)))
			return -EFAULT;
		if (!uptr)
			return 0;
		if ((err = copy_user_string(s, uptr)))
			return err;
		++*count;
		if (!exec_strings_fit(s))
			return -E2BIG;
	}
}

/* argv into s: an empty one gets "" as argv[0], as Linux 5.18+ gives it
 * (programs assume argv[0] is there). */
static long copy_user_args(struct exec_strings *s, char *const *uargv)
{
	long err = copy_user_strings(s, uargv, &s->argc);

	if (!err && !s->argc && !(err = exec_strings_add(s, "", 0)))
		s->argc = 1;
	return err;
}

long exec_strings_from_user(struct exec_strings *s, char *const *uargv, char *const *uenvp)
{
	long err = copy_user_args(s, uargv);

	if (!err)
		err = copy_user_strings(s, uenvp, &s->envc);
	return err;
}
