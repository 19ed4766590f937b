/*
 * Allocation sites of live heap objects and page frames (see heaptrace.h).
 * An open-address hash table keyed by pointer, linear probing, deletion by
 * backward shift (no tombstones, so a long run stays as fast as a short
 * one).  Its own lock, a leaf (it takes none inside): kmalloc, kfree and
 * the frame allocator call in with any other lock held, the heap's too
 * (the heap takes frames under it), never frame_lock.
 */
#include "mm/heaptrace.h"

#include "lib/backtrace.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"

#define TABLE_BITS 18
#define TABLE_SIZE (1UL << TABLE_BITS)
#define TABLE_FILL (TABLE_SIZE / 8 * 7) /* entries at most: probes stay short */
#define REPORT_MAX 24

bool heaptrace_on;

/* trace_lock protects table, live, peak, serial and untraced. */
static struct spinlock trace_lock = SPINLOCK_INIT("heaptrace_lock");
static struct heap_site *table;
static size_t live, peak;
static uint64_t serial;
static uint64_t untraced; /* allocations the full table could not take */

void heaptrace_start(void)
{
	/* Allocated untraced, before the first reading: never reported. */
	table = kzalloc(TABLE_SIZE * sizeof(*table));
	if (!table)
		panic("heaptrace: no memory for %lu entries", TABLE_SIZE);
	heaptrace_on = true;
}

static size_t home(uint64_t ptr)
{
	return (ptr * 0x9e3779b97f4a7c15UL) >> (64 - TABLE_BITS);
}

static size_t next_slot(size_t i)
{
	return (i + 1) & (TABLE_SIZE - 1);
}

void heaptrace_add(const void *ptr, size_t size, uint64_t rbp)
{
	uint64_t rets[HEAPTRACE_FRAMES];
	int n = backtrace_save(rbp, rets, HEAPTRACE_FRAMES);
	struct heap_site s = {.ptr = (uint64_t)ptr, .size = size > UINT32_MAX ? UINT32_MAX : size};

	for (int k = 0; k < n && rets[k] > KERNEL_VMA; k++)
		s.ret[k] = (uint32_t)(rets[k] - KERNEL_VMA);
	spin_lock(&trace_lock);
	s.serial = ++serial;
	if (live == TABLE_FILL) {
		untraced++;
	} else {
		size_t i = home(s.ptr);
		while (table[i].ptr)
			i = next_slot(i);
		table[i] = s;
		if (++live > peak)
			peak = live;
	}
	spin_unlock(&trace_lock);
}

/* Whether an entry whose home is h may move back to the hole at i, the
 * entry now sitting at j: only if h is not cyclically within (i, j]. */
static bool may_fill(size_t h, size_t i, size_t j)
{
	return i <= j ? (h <= i || h > j) : (h <= i && h > j);
}

void heaptrace_del(const void *ptr)
{
	spin_lock(&trace_lock);
	size_t i = home((uint64_t)ptr);
	while (table[i].ptr && table[i].ptr != (uint64_t)ptr)
		i = next_slot(i);
	if (table[i].ptr) { /* not there: made before tracing or untraced */
		for (size_t j = next_slot(i); table[j].ptr; j = next_slot(j)) {
			if (may_fill(home(table[j].ptr), i, j)) {
				table[i] = table[j];
				i = j;
			}
		}
		table[i].ptr = 0;
		live--;
	}
	spin_unlock(&trace_lock);
}

uint64_t heaptrace_serial(void)
{
	spin_lock(&trace_lock);
	uint64_t s = serial;
	spin_unlock(&trace_lock);
	return s;
}

/* Inserts s into out[0..*n), kept sorted by serial and at most max long. */
static void keep_oldest(struct heap_site *out, size_t *n, size_t max, const struct heap_site *s)
{
	size_t k = *n < max ? (*n)++ : max;
	if (k == max && (!max || out[max - 1].serial < s->serial))
		return;
	if (k == max)
		k--;
	while (k > 0 && out[k - 1].serial > s->serial) {
		out[k] = out[k - 1];
		k--;
	}
	out[k] = *s;
}

size_t heaptrace_collect(uint64_t since, struct heap_site *out, size_t max)
{
	size_t total = 0, kept = 0;

	if (!heaptrace_on)
		return 0;
	spin_lock(&trace_lock);
	for (size_t i = 0; i < TABLE_SIZE; i++) {
		if (!table[i].ptr || table[i].serial <= since)
			continue;
		total++;
		keep_oldest(out, &kept, max, &table[i]);
	}
	spin_unlock(&trace_lock);
	return total;
}

static void print_site(const struct heap_site *s)
{
	char line[256];
	size_t len = s->ptr < KERNEL_HALF_BASE
			 ? snprintk(line, sizeof(line), "  #%lu frame %lx:", s->serial, s->ptr)
			 : snprintk(line, sizeof(line), "  #%lu %u bytes at %lx:", s->serial,
				    s->size, s->ptr);

	for (int k = 0; k < HEAPTRACE_FRAMES && s->ret[k] && len < sizeof(line); k++) {
		uint64_t off, addr = KERNEL_VMA + s->ret[k] - 1; /* the call, not after it */
		const char *fn = ksym_lookup(addr, &off);
		len += fn ? snprintk(line + len, sizeof(line) - len, " %s%s+0x%lx", k ? "< " : "",
				     fn, off)
			  : snprintk(line + len, sizeof(line) - len, " %s%lx", k ? "< " : "", addr);
	}
	printk("%s\n", line);
}

void heaptrace_report(uint64_t since)
{
	static struct heap_site sites[REPORT_MAX]; /* the leak report runs once */
	size_t n;

	if (!heaptrace_on)
		return;
	n = heaptrace_collect(since, sites, REPORT_MAX);
	spin_lock(&trace_lock);
	size_t at_peak = peak;
	uint64_t lost = untraced;
	spin_unlock(&trace_lock);
	printk("heaptrace: %zu allocation%s made since the first reading live on (table peak %zu "
	       "of %lu, %lu untraced); the oldest, with their callers:\n",
	       n, n == 1 ? "" : "s", at_peak, TABLE_FILL, lost);
	for (size_t i = 0; i < n && i < REPORT_MAX; i++)
		print_site(&sites[i]);
}
