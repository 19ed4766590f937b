/* What /proc tells about each CPU, as `top`, `mpstat` and a reader of
 * /proc/interrupts expect: a column per online CPU in /proc/interrupts with
 * local timer (LOC) and reschedule (RES) rows, and in /proc/stat a cpuN
 * line per CPU that sums to the cpu line, a total of interrupts and a
 * context-switch count that move; /proc/self/status' Cpus_allowed lines. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "threads.h"

#define MAX_CPUS 64

static char buf[65536];

static long read_file(const char *path)
{
	return read_text(path, buf, sizeof buf);
}

/* The numbers of /proc/interrupts' row label (e.g. "LOC:") into v; how
 * many, or -1 without the row. */
static int irq_row(const char *label, unsigned long long *v)
{
	char *p, *end;
	int n = 0;

	if (read_file("/proc/interrupts") < 0 || !(p = strstr(buf, label)))
		return -1;
	for (p += strlen(label); n < MAX_CPUS; p = end) {
		unsigned long long x = strtoull(p, &end, 10);

		if (end == p)
			break;
		v[n++] = x;
	}
	return n;
}

/* CPU columns in /proc/interrupts' header. */
static int header_cpus(void)
{
	int n = 0;

	if (read_file("/proc/interrupts") < 0)
		return -1;
	for (char *p = buf; (p = strstr(p, "CPU")) && p < strchr(buf, '\n'); p += 3)
		n++;
	return n;
}

static unsigned long long sum(const unsigned long long *v, int n)
{
	unsigned long long s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void busy_ms(long ms)
{
	long end = mono_ms() + ms;

	while (mono_ms() < end)
		;
}

static void test_interrupts(int ncpu)
{
	unsigned long long loc[MAX_CPUS], later[MAX_CPUS], res[MAX_CPUS];
	int n;

	is_int(header_cpus(), ncpu, "/proc/interrupts: a column per online CPU (%d)", ncpu);
	n = irq_row("LOC:", loc);
	busy_ms(100);
	bool both = n == ncpu && irq_row("LOC:", later) == ncpu;

	ok(both && sum(later, n) > sum(loc, n),
	   "LOC: a count per CPU; 100 ms of computing add %llu local timer interrupts",
	   both ? sum(later, n) - sum(loc, n) : 0);
	ok(irq_row("RES:", res) == ncpu, "RES: rescheduling interrupts, a count per CPU");
}

/* The first four fields (user, nice, system, idle) of the cpu line named
 * name ("cpu " or "cpuN ") into v. */
static bool cpu_line(const char *name, unsigned long long *v)
{
	char *p = strstr(buf, name);

	return p &&
	       sscanf(p + strlen(name), "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) == 4;
}

static unsigned long long stat_field(const char *name)
{
	char *p = strstr(buf, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

static void test_stat(int ncpu)
{
	unsigned long long total[4], each[4], sums[4] = {0}, ctxt, intr;
	char name[16];
	bool lines = read_file("/proc/stat") > 0 && cpu_line("cpu ", total);
	int found = 0, off = 0;

	for (int i = 0; lines && i < ncpu; i++) {
		snprintf(name, sizeof name, "\ncpu%d ", i);
		if (!cpu_line(name, each))
			continue;
		found++;
		for (int f = 0; f < 4; f++)
			sums[f] += each[f];
	}
	/* Linux reads each CPU twice (for the sums, then the lines): allow a
	 * tick per CPU between the readings. */
	for (int f = 0; f < 4; f++)
		off |= sums[f] > total[f] + ncpu || total[f] > sums[f] + ncpu;
	snprintf(name, sizeof name, "\ncpu%d ", ncpu);
	ok(lines && found == ncpu && !cpu_line(name, each) && !off,
	   "/proc/stat: a cpuN line for each of %d CPUs, summing to the cpu line (%llu user, "
	   "%llu system, %llu idle)",
	   found, total[0], total[2], total[3]);
	ctxt = stat_field("\nctxt ");
	intr = stat_field("\nintr ");
	for (int i = 0; i < 5; i++)
		usleep(2000);
	read_file("/proc/stat");
	unsigned long long ctxt2 = stat_field("\nctxt "), intr2 = stat_field("\nintr ");

	ok(ctxt2 >= ctxt + 5 && intr2 > intr,
	   "/proc/stat: five sleeps add %llu context switches; interrupts %llu, then %llu",
	   ctxt2 - ctxt, intr, intr2);
}

/* /proc/self/status' Cpus_allowed (hex) is mask and Cpus_allowed_list is
 * list. */
static bool status_cpus(unsigned long long mask, const char *list)
{
	char *p, *q;

	if (read_file("/proc/self/status") < 0 || !(p = strstr(buf, "\nCpus_allowed:\t")) ||
	    strtoull(p + 15, NULL, 16) != mask || !(q = strstr(buf, "\nCpus_allowed_list:\t")))
		return false;
	q += 20;
	return !strncmp(q, list, strlen(list)) && q[strlen(list)] == '\n';
}

static void test_status(int ncpu)
{
	char all[32], last[16];
	cpu_set_t s, old;

	snprintf(last, sizeof last, "%d", ncpu - 1);
	if (ncpu > 1)
		snprintf(all, sizeof all, "0-%d", ncpu - 1);
	else
		snprintf(all, sizeof all, "0");
	ok(status_cpus((1ull << ncpu) - 1, all), "/proc/self/status: Cpus_allowed_list %s", all);
	CPU_ZERO(&s);
	CPU_SET(ncpu - 1, &s);
	require(sched_getaffinity(0, sizeof old, &old) == 0 &&
		    sched_setaffinity(0, sizeof s, &s) == 0,
		"sched_setaffinity");
	ok(status_cpus(1ull << (ncpu - 1), last), "... and %s once bound to CPU %s", last, last);
	sched_setaffinity(0, sizeof old, &old);
}

int main(void)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	plan(7);
	test_interrupts(ncpu);
	test_stat(ncpu);
	test_status(ncpu);
	return done();
}
