/*
 * /proc/sys: the kernel's tunables, one file per row of a table that any
 * subsystem adds to from its own file with PROC_SYS_ROW (the rows sit in
 * the linker section proc_sys; fs/proc/proc_sys.c makes the directories from
 * the rows' paths).  A row names its file ("kernel/pid_max", under
 * /proc/sys), its mode (0644: root may write it; 0444: read-only, EACCES
 * on opening it for writing, even for root, as Linux) and how its value
 * reads and writes.  The common kinds (an int with bounds, a string) are
 * proc_sys_int_* and proc_sys_string_*; a row with rules of its own gives
 * its own functions.
 */
#ifndef FS_PROC_SYS_H
#define FS_PROC_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_ops;

struct proc_sys_row {
	const char *path; /* under /proc/sys, "dir/name", no leading or trailing '/' */
	uint16_t mode;	  /* 0644 or 0444 (permission bits of the file) */
	/*
	 * The value as text, with its newline, into buf (size bytes, NUL
	 * terminated): the length.
	 */
	long (*show)(const struct proc_sys_row *row, char *buf, size_t size);
	/*
	 * A write of text (len bytes copied from the writer, NUL-terminated)
	 * at the file position *pos, which it advances as Linux's handler
	 * does: the bytes taken, or -EINVAL (a value out of range or not a
	 * number), -errno.  NULL for a read-only row.
	 */
	long (*store)(const struct proc_sys_row *row, const char *text, size_t len, uint64_t *pos);
	/* Strings read on from the file position; numbers read whole at
	 * position 0 and give EOF after (Linux's proc_dointvec). */
	bool text;
	void *data; /* the variable (int, unsigned int, char[]) */
	/* The variable instead, where it is the caller's namespace's (the
	 * uts rows): kept by the caller's namespace for the call. */
	void *(*data_of)(const struct proc_sys_row *row);
	long min, max; /* proc_sys_int_store's bounds; a string's size */
};

/* Adds row NAME (a struct proc_sys_row initialiser) to /proc/sys. */
#define PROC_SYS_ROW(name, ...)                                                                    \
	static const struct proc_sys_row name = {__VA_ARGS__};                                     \
	static const struct proc_sys_row *const name##_ptr                                         \
	    __attribute__((used, section("proc_sys"))) = &name

/* An int at data: "%d\n". */
long proc_sys_int_show(const struct proc_sys_row *row, char *buf, size_t size);
/* Linux's proc_dointvec_minmax: one decimal (or 0x hex, 0 octal) int in
 * [min, max], whitespace around it; a write at a position past 0 is
 * taken and ignored. */
long proc_sys_int_store(const struct proc_sys_row *row, const char *text, size_t len,
			uint64_t *pos);
/*
 * The parsing of proc_sys_int_store, for rows with their own rules: the
 * number at the start of text (after whitespace) into *value, *used set
 * to the bytes taken (the number and the whitespace after it).  0 or
 * -EINVAL (no number, garbage after it, out of long's range).
 */
int proc_sys_parse_long(const char *text, size_t len, long *value, size_t *used);
/* An unsigned long (64 bits) at data: "%lu\n". */
long proc_sys_ulong_show(const struct proc_sys_row *row, char *buf, size_t size);
/* Linux's proc_doulongvec_minmax without bounds: one decimal unsigned
 * long, blanks around it; a minus sign is EINVAL; a write past position
 * 0 is taken and ignored. */
long proc_sys_ulong_store(const struct proc_sys_row *row, const char *text, size_t len,
			  uint64_t *pos);
/* A NUL-terminated string in the char[max] at data, under proc_sys_lock. */
long proc_sys_string_show(const struct proc_sys_row *row, char *buf, size_t size);
/* Linux's proc_dostring: the text up to its first newline or NUL
 * replaces the string from the write's position on (cut to max - 1
 * bytes); a write past the string's end is taken and ignored. */
long proc_sys_string_store(const struct proc_sys_row *row, const char *text, size_t len,
			   uint64_t *pos);
/* A copy of the string row's value (under its lock) into buf. */
void proc_sys_string_get(const struct proc_sys_row *row, char *buf, size_t size);

/* The string rows' values: protects the char arrays of every string row
 * (hostname and domainname included: uname and sethostname take it). */
struct spinlock;
extern struct spinlock proc_sys_lock;

/* Makes /proc/sys (fs/proc/proc_pid.c's proc_pid_init, before /proc is sealed). */
void proc_sys_init(void);
/* The file operations of its files (devices.c: major PROC_SYS_MAJOR). */
const struct file_ops *proc_sys_ops(void);
struct inode;
/* What opening its file ip with open's flags checks: 0 or -EACCES. */
int proc_sys_open(struct inode *ip, unsigned int flags);

#endif
