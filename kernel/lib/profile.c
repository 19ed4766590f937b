/*
 * Sampling profiler (see profile.h): the counters.  Kernel samples count
 * per function in an array parallel to the symbol table; user samples
 * count per program name.  /dev/profile (fs/dev/profile.c) reads them.
 */
#include "lib/profile.h"
#include "lib/backtrace.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"

#define USER_SLOTS 32

struct user_slot {
	char name[PROFILE_NAME_MAX];
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

void profile_sample(const struct trapframe *tf, const char *program)
{
	long idx;

	if (!profiling)
		return;
	spin_lock(&profile_lock);
	total++;
	if (trapframe_from_user(tf))
		count_user(program);
	else if ((idx = ksym_index(tf->rip)) >= 0)
		kernel_counts[idx]++;
	else
		kernel_other++;
	spin_unlock(&profile_lock);
}

/* The non-zero counters (profile_lock held). */
static size_t collect_locked(struct profile_entry *e, size_t max)
{
	size_t n = 0;

	/* kernel_counts is NULL when booted without `profile`. */
	for (size_t i = 0; kernel_counts && i < ksym_total() && n < max; i++)
		if (kernel_counts[i])
			e[n++] = (struct profile_entry){kernel_counts[i], ksym_name(i), false};
	for (int i = 0; i < USER_SLOTS && n < max; i++)
		if (user_slots[i].count)
			e[n++] =
			    (struct profile_entry){user_slots[i].count, user_slots[i].name, true};
	return n;
}

size_t profile_entries_max(void)
{
	return ksym_total() + USER_SLOTS;
}

size_t profile_collect(struct profile_entry *e, size_t max, uint64_t *samples)
{
	size_t n;

	spin_lock(&profile_lock);
	n = collect_locked(e, max);
	*samples = total;
	spin_unlock(&profile_lock);
	return n;
}

bool profile_enabled(void)
{
	return profiling;
}

void profile_clear(void)
{
	spin_lock(&profile_lock);
	if (kernel_counts)
		memset(kernel_counts, 0, ksym_total() * sizeof(uint64_t));
	memset(user_slots, 0, sizeof(user_slots));
	kernel_other = total = 0;
	spin_unlock(&profile_lock);
}
