/*
 * /proc/sys (fs/proc/proc_sys.h): a generated directory tree over the rows of
 * the proc_sys section, and the file operations of its files.  /proc/sys
 * itself is a ramfs directory under /proc whose entries are generated; a
 * subdirectory is made up at each lookup and names its place by a row
 * (proc_inode.pid: the index of a row under it) and the length of its
 * path prefix with the slash (proc_inode.tid; 0 for /proc/sys).  A file
 * names its row by index (proc_inode.fd).  Rows are constant, so nothing here holds
 * anything but numbers.
 */
#include "fs/proc/proc_sys.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/proc/proc_pid.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

struct spinlock proc_sys_lock = SPINLOCK_INIT("proc_sys");

/* The rows, in link order (linker.ld). */
extern const struct proc_sys_row *const __proc_sys_start[], *const __proc_sys_end[];

static int nrows(void)
{
	return __proc_sys_end - __proc_sys_start;
}

/* d_ino of the entries in a listing: beyond the other /proc numbers. */
#define SYS_INO_BASE (7 * PROC_PID_INO_BASE)

/* ---- the values ---- */

static void *row_data(const struct proc_sys_row *row)
{
	return row->data_of ? row->data_of(row) : row->data;
}

long proc_sys_int_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	return snprintk(buf, size, "%d\n", __atomic_load_n((int *)row_data(row), __ATOMIC_RELAXED));
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static size_t skip_spaces(const char *text, size_t len, size_t at)
{
	while (at < len && is_space(text[at]))
		at++;
	return at;
}

/* Digits of base (8, 10, 16) from text[*at] on into *value: false on
 * overflow of unsigned long. */
static bool parse_digits(const char *text, size_t len, size_t *at, int base, unsigned long *value)
{
	unsigned long v = 0;

	for (; *at < len; (*at)++) {
		char c = text[*at];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : 99;
		if (d >= base)
			break;
		if (v > (~0UL - d) / base)
			return false;
		v = v * base + d;
	}
	*value = v;
	return true;
}

/* Linux's proc_get_long: [-]digits (base 0: 0x hex, 0 octal), at most 21
 * characters, followed by the end or one of " \t\n". */
int proc_sys_parse_long(const char *text, size_t len, long *value, size_t *used)
{
	size_t at = skip_spaces(text, len, 0), start = at;
	bool neg = at + 1 < len && text[at] == '-';
	unsigned long v;
	int base = 10;

	at += neg;
	if (at >= len || text[at] < '0' || text[at] > '9')
		return -EINVAL;
	if (text[at] == '0' && at + 1 < len && (text[at + 1] | 0x20) == 'x')
		base = 16, at += 2;
	else if (text[at] == '0')
		base = 8;
	if (!parse_digits(text, len, &at, base, &v) || at - start >= 21)
		return -EINVAL;
	if (at < len && text[at] != ' ' && text[at] != '\t' && text[at] != '\n')
		return -EINVAL;
	if (v > (neg ? (unsigned long)__LONG_MAX__ + 1 : (unsigned long)__LONG_MAX__))
		return -EINVAL;
	*value = neg ? (long)(0 - v) : (long)v;
	*used = skip_spaces(text, len, at);
	return 0;
}

long proc_sys_int_store(const struct proc_sys_row *row, const char *text, size_t len, uint64_t *pos)
{
	size_t used;
	long v;
	int err;

	if (*pos) { /* Linux's sysctl_writes_strict: taken, ignored */
		*pos += len;
		return len;
	}
	if ((err = proc_sys_parse_long(text, len, &v, &used)))
		return err;
	if (v < row->min || v > row->max)
		return -EINVAL;
	__atomic_store_n((int *)row_data(row), (int)v, __ATOMIC_RELAXED);
	*pos += used;
	return used;
}

long proc_sys_ulong_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	return snprintk(buf, size, "%lu\n",
			__atomic_load_n((uint64_t *)row_data(row), __ATOMIC_RELAXED));
}

long proc_sys_ulong_store(const struct proc_sys_row *row, const char *text, size_t len,
			  uint64_t *pos)
{
	size_t at = 0;
	uint64_t v = 0;

	if (*pos) { /* sysctl_writes_strict: taken, ignored */
		*pos += len;
		return (long)len;
	}
	while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n'))
		at++;
	if (at == len || text[at] < '0' || text[at] > '9')
		return -EINVAL;
	for (; at < len && text[at] >= '0' && text[at] <= '9'; at++) {
		if (v > (~0UL - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(text[at] - '0');
	}
	if (at < len && text[at] != ' ' && text[at] != '\t' && text[at] != '\n')
		return -EINVAL;
	while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n'))
		at++;
	__atomic_store_n((uint64_t *)row_data(row), v, __ATOMIC_RELAXED);
	*pos += at;
	return (long)at;
}

long proc_sys_string_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	proc_sys_string_get(row, buf, size - 1);
	strlcpy(buf + strlen(buf), "\n", 2);
	return strlen(buf);
}

void proc_sys_string_get(const struct proc_sys_row *row, char *buf, size_t size)
{
	spin_lock(&proc_sys_lock);
	strlcpy(buf, row_data(row), size);
	spin_unlock(&proc_sys_lock);
}

long proc_sys_string_store(const struct proc_sys_row *row, const char *text, size_t len,
			   uint64_t *pos)
{
	char *s = row_data(row);
	size_t at;

	spin_lock(&proc_sys_lock);
	at = strlen(s);
	if (*pos > at) { /* past the end: taken, ignored, as Linux */
		spin_unlock(&proc_sys_lock);
		return len;
	}
	for (at = *pos; at < (size_t)row->max - 1 && at - *pos < len; at++) {
		char c = text[at - *pos];
		if (!c || c == '\n')
			break;
		s[at] = c;
	}
	s[at] = '\0';
	spin_unlock(&proc_sys_lock);
	*pos += len;
	return len;
}

/* ---- the files ---- */

static const struct proc_sys_row *row_of(struct file *f)
{
	return __proc_sys_start[PROC_I(f->inode)->fd];
}

/* The value's text, made at each read (a value changes between reads). */
static long sys_file_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	const struct proc_sys_row *row = row_of(f);
	char *text;
	size_t n;
	long len;

	if ((*pos && !row->text) || !iov_iter_count(to))
		return 0; /* numbers read whole at 0, as Linux */
	if (!(text = kmalloc(PAGE_SIZE)))
		return -ENOMEM;
	len = row->show(row, text, PAGE_SIZE);
	if (*pos >= (uint64_t)len) {
		kfree(text);
		return 0;
	}
	n = copy_to_iter(text + *pos, len - *pos, to);
	kfree(text);
	*pos += n;
	return n ? (long)n : -EFAULT;
}

/* The writer's text (up to a page) copied first, whole or EFAULT. */
static long sys_file_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	const struct proc_sys_row *row = row_of(f);
	size_t len = iov_iter_count(from);
	char *text;
	long n;

	if (!row->store)
		return -EACCES;
	if (len > PAGE_SIZE - 1)
		len = PAGE_SIZE - 1;
	if (!(text = kmalloc(len + 1)))
		return -ENOMEM;
	text[len] = '\0';
	n = copy_from_iter_full(text, len, from) ? -EFAULT : row->store(row, text, len, pos);
	kfree(text);
	return n;
}

static const struct file_ops proc_sys_file_ops = {
    .read_iter = sys_file_read,
    .write_iter = sys_file_write,
    .release = vfs_release_inode,
};

const struct file_ops *proc_sys_ops(void)
{
	return &proc_sys_file_ops;
}

/* Opening a read-only row for writing is EACCES, root too (Linux's
 * sysctl_perm: root gets the owner's bits, no more). */
int proc_sys_open(struct inode *ip, unsigned int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY && !(ip->mode & 0200))
		return -EACCES;
	return 0;
}

/* ---- the directories ---- */

/* Whether row i lies under the directory dir (its path begins with
 * dir's prefix). */
static bool under(int i, struct inode *dir)
{
	size_t plen = PROC_I(dir)->tid;

	return !plen ||
	       !memcmp(__proc_sys_start[i]->path, __proc_sys_start[PROC_I(dir)->pid]->path, plen);
}

/* The name row i has in dir: its length, and whether it is a directory. */
static size_t component(int i, struct inode *dir, bool *is_dir)
{
	const char *p = __proc_sys_start[i]->path + PROC_I(dir)->tid, *slash = strchr(p, '/');

	*is_dir = slash != NULL;
	return slash ? (size_t)(slash - p) : strlen(p);
}

/* Whether row i is the first one under dir with its name there (each
 * name is listed once). */
static bool first_of_name(int i, struct inode *dir)
{
	bool d;
	size_t len = component(i, dir, &d), at = PROC_I(dir)->tid;

	for (int j = 0; j < i; j++)
		if (under(j, dir) && component(j, dir, &d) == len &&
		    !memcmp(__proc_sys_start[j]->path + at, __proc_sys_start[i]->path + at, len))
			return false;
	return true;
}

static const struct dir_gen proc_sys_dir_gen;

/* A file for row i, mode its row's. */
static int sys_file(int i, struct inode **out)
{
	struct inode *ip =
	    proc_inode_alloc(S_IFCHR | __proc_sys_start[i]->mode, MKDEV(PROC_SYS_MAJOR, 0));

	if (!ip)
		return -ENOMEM;
	PROC_I(ip)->fd = i;
	ip->nlink = 1;
	*out = ip;
	return 0;
}

static int sys_dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	for (int i = 0; i < nrows(); i++) {
		bool is_dir;
		if (!under(i, dir) || component(i, dir, &is_dir) != len ||
		    memcmp(__proc_sys_start[i]->path + PROC_I(dir)->tid, name, len))
			continue;
		if (is_dir)
			return proc_gen_dir(dir, &proc_sys_dir_gen, i, PROC_I(dir)->tid + len + 1,
					    0555, out);
		return sys_file(i, out);
	}
	return -ENOENT;
}

/* Each name once, in row order: the cookie after row i's is
 * DIR_GEN_POS + i + 1. */
static void sys_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	for (int i = *pos - DIR_GEN_POS; i < nrows(); i++) {
		bool is_dir;
		size_t len = component(i, dir, &is_dir);
		if (under(i, dir) && first_of_name(i, dir) &&
		    !emit(ctx, __proc_sys_start[i]->path + PROC_I(dir)->tid, len,
			  SYS_INO_BASE + 2 * i + is_dir, (is_dir ? S_IFDIR : S_IFCHR) >> 12,
			  DIR_GEN_POS + i + 1))
			return;
		*pos = DIR_GEN_POS + i + 1;
	}
}

static const struct dir_gen proc_sys_dir_gen = {
    .lookup = sys_dir_lookup,
    .iterate = sys_dir_iterate,
};

void proc_sys_init(void)
{
	struct inode *sys;

	if (vfs_mkdir(NULL, "/proc/sys", 0555) || path_lookup(NULL, "/proc/sys", &sys))
		panic("vfs: cannot make /proc/sys");
	PROC_I(sys)->gen = &proc_sys_dir_gen; /* pid, tid 0: the root */
	inode_put(sys);
}
