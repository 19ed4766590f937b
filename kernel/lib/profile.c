/*
 * Sampling profiler (see profile.h).  Kernel samples count per function in
 * an array parallel to the symbol table; user samples count per program
 * name.  Reading /dev/profile formats a report: samples, share, where.
 */
#include "lib/profile.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "lib/backtrace.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

#define USER_SLOTS   32
#define REPORT_LINES 40
#define REPORT_MAX   (REPORT_LINES * 96 + 256)

struct user_slot {
	char name[TASK_NAME_MAX];
	uint64_t count;
};

/* Protects every counter below (taken in the timer interrupt too). */
static struct spinlock profile_lock = SPINLOCK_INIT("profile");
static bool profiling;
static uint64_t *kernel_counts; /* one per kernel symbol */
static uint64_t kernel_other, total;
static struct user_slot user_slots[USER_SLOTS];

void profile_init(bool enabled)
{
	if (!enabled)
		return;
	kernel_counts = kzalloc(ksym_total() * sizeof(uint64_t));
	profiling = kernel_counts != NULL;
	printk_info("profile: sampling at every timer tick; read /dev/profile\n");
}

static void count_user(const char *name)
{
	for (int i = 0; i < USER_SLOTS; i++) {
		struct user_slot *s = &user_slots[i];
		if (!s->count)
			strlcpy(s->name, name, sizeof(s->name));
		if (!strcmp(s->name, name)) {
			s->count++;
			return;
		}
	}
	kernel_other++; /* table full: counted, not attributed */
}

void profile_sample(const struct trapframe *tf)
{
	long idx;

	if (!profiling)
		return;
	spin_lock(&profile_lock);
	total++;
	if (trapframe_from_user(tf))
		count_user(current()->name);
	else if ((idx = ksym_index(tf->rip)) >= 0)
		kernel_counts[idx]++;
	else
		kernel_other++;
	spin_unlock(&profile_lock);
}

struct entry {
	uint64_t count;
	const char *what;
	bool user;
};

/* Snapshot of the non-zero counters (caller holds profile_lock). */
static size_t collect(struct entry *e, size_t max)
{
	size_t n = 0;

	/* kernel_counts is NULL when booted without `profile`. */
	for (size_t i = 0; kernel_counts && i < ksym_total() && n < max; i++)
		if (kernel_counts[i])
			e[n++] = (struct entry){kernel_counts[i], ksym_name(i), false};
	for (int i = 0; i < USER_SLOTS && n < max; i++)
		if (user_slots[i].count)
			e[n++] = (struct entry){user_slots[i].count, user_slots[i].name, true};
	return n;
}

static void sort_descending(struct entry *e, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct entry x = e[i];
		size_t j = i;
		for (; j > 0 && e[j - 1].count < x.count; j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/* Formats the report into buf. */
static void format_report(char *buf, size_t size)
{
	size_t max = ksym_total() + USER_SLOTS, n, len;
	struct entry *e = kmalloc(max * sizeof(*e));
	uint64_t all;

	if (!e) {
		snprintk(buf, size, "profile: out of memory\n");
		return;
	}
	spin_lock(&profile_lock);
	n = collect(e, max);
	all = total;
	spin_unlock(&profile_lock);
	sort_descending(e, n);
	len = (size_t)snprintk(buf, size, "%lu samples%s\n  samples   share  where\n", all,
			       profiling ? "" : " (profiling is off: boot with `profile`)");
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
	spin_lock(&profile_lock);
	if (kernel_counts)
		memset(kernel_counts, 0, ksym_total() * sizeof(uint64_t));
	memset(user_slots, 0, sizeof(user_slots));
	kernel_other = total = 0;
	spin_unlock(&profile_lock);
	return iov_iter_count(from);
}

const struct file_ops profile_ops = {
    .read_iter = profile_read,
    .write_iter = profile_write,
    .release = snapshot_release,
};
