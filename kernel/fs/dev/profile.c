/*
 * /dev/profile: the sampling profiler's report (lib/profile.c counts).
 * A read formats the top entries: samples, share, where; any write
 * clears the counters.
 */
#include "lib/profile.h"
#include "fs/dev/dev_ops.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include <uapi/errno.h>

#define REPORT_LINES 40
#define REPORT_MAX   (REPORT_LINES * 96 + 256)

static void sort_descending(struct profile_entry *e, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct profile_entry x = e[i];
		size_t j = i;
		for (; j > 0 && e[j - 1].count < x.count; j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/* Formats the report into buf. */
static void format_report(char *buf, size_t size)
{
	size_t max = profile_entries_max(), n, len;
	struct profile_entry *e = kmalloc(max * sizeof(*e));
	uint64_t all;

	if (!e) {
		snprintk(buf, size, "profile: out of memory\n");
		return;
	}
	n = profile_collect(e, max, &all);
	sort_descending(e, n);
	len = (size_t)snprintk(buf, size, "%lu samples%s\n  samples   share  where\n", all,
			       profile_enabled() ? "" : " (profiling is off: boot with `profile`)");
	for (size_t i = 0; i < n && i < REPORT_LINES && len < size; i++)
		len += (size_t)snprintk(buf + len, size - len, "%9lu %6lu.%lu%%  %s%s\n",
					e[i].count, e[i].count * 100 / (all ? all : 1),
					e[i].count * 1000 / (all ? all : 1) % 10,
					e[i].user ? "[user] " : "", e[i].what);
	kfree(e);
}

static long profile_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	return snapshot_read(f, to, pos, REPORT_MAX, format_report);
}

/* Any write clears the counters. */
static long profile_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)f, (void)pos;
	profile_clear();
	return iov_iter_count(from);
}

const struct file_ops profile_ops = {
    .read_iter = profile_read,
    .write_iter = profile_write,
    .release = snapshot_release,
};
