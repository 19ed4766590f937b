/* /proc/cpuinfo against what the test itself learns: one block per online
 * CPU, numbered from 0; vendor, family, model, stepping, model name and
 * address sizes from the CPUID this test executes; each CPU's initial APIC
 * id from CPUID run on that CPU (pinned there); a set of well-known flags
 * present exactly when their CPUID bit is set.  Also /proc/filesystems and
 * /proc/partitions in Linux's formats. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>

#include "testutil.h"

static char text[64 * 1024];

/* CPUID leaf.sub into r[4] (EAX, EBX, ECX, EDX). */
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* The value after "key\t...: " in the block, or NULL. */
static const char *field(const char *block, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = block; p && *p && !(p != block && p[0] == '\n');) {
		if (!strncmp(p, key, klen) && p[klen] == '\t') {
			const char *v = strstr(p, ": ");
			size_t n = v ? strcspn(v + 2, "\n") : 0;
			if (!v || n >= size)
				return NULL;
			memcpy(out, v + 2, n);
			out[n] = '\0';
			return out;
		}
		p = strchr(p, '\n');
		p = p && p[1] != '\n' ? p + 1 : NULL;
	}
	return NULL;
}

/* The blocks, split at blank lines, into blocks[]: their number. */
static int split_blocks(char *s, char **blocks, int max)
{
	int n = 0;

	while (*s && n < max) {
		blocks[n++] = s;
		char *end = strstr(s, "\n\n");
		if (!end)
			break;
		end[1] = '\0';
		s = end + 2;
	}
	return n;
}

static const struct flag {
	unsigned leaf, sub;
	int reg, bit;
	const char *name;
} flags[] = {
    {1, 0, 3, 0, "fpu"},
    {1, 0, 3, 4, "tsc"},
    {1, 0, 3, 8, "cx8"},
    {1, 0, 3, 15, "cmov"},
    {1, 0, 3, 19, "clflush"},
    {1, 0, 3, 23, "mmx"},
    {1, 0, 3, 25, "sse"},
    {1, 0, 3, 26, "sse2"},
    {1, 0, 2, 0, "pni"},
    {1, 0, 2, 9, "ssse3"},
    {1, 0, 2, 13, "cx16"},
    {1, 0, 2, 19, "sse4_1"},
    {1, 0, 2, 20, "sse4_2"},
    {1, 0, 2, 23, "popcnt"},
    {1, 0, 2, 25, "aes"},
    {1, 0, 2, 28, "avx"},
    {7, 0, 1, 3, "bmi1"},
    {7, 0, 1, 5, "avx2"},
    {7, 0, 1, 8, "bmi2"},
    {0x80000001, 0, 3, 11, "syscall"},
    {0x80000001, 0, 3, 20, "nx"},
    {0x80000001, 0, 3, 29, "lm"},
    {0x80000001, 0, 2, 0, "lahf_lm"},
};

/* Whether the flag list (space-separated) has name. */
static bool has_flag(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
	return false;
}

static bool flags_match(const char *block)
{
	static char list[8192];
	unsigned r[4], max, max_ext;

	cpuid(0, 0, r);
	max = r[0];
	cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (!field(block, "flags", list, sizeof list))
		return false;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		const struct flag *f = &flags[i];
		bool set = false;
		if (f->leaf < 0x80000000 ? f->leaf <= max : f->leaf <= max_ext) {
			cpuid(f->leaf, f->sub, r);
			set = r[f->reg] >> f->bit & 1;
		}
		if (set != has_flag(list, f->name)) {
			diag("flag %s: CPUID says %d", f->name, set);
			return false;
		}
	}
	return true;
}

/* The brand string, trimmed as Linux does. */
static void brand(char *out)
{
	unsigned r[4];
	char raw[49] = {0}, *p = raw, *end;

	cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000004) {
		strcpy(out, "unknown");
		return;
	}
	for (int i = 0; i < 3; i++) {
		cpuid(0x80000002 + i, 0, r);
		memcpy(raw + 16 * i, r, 16);
	}
	while (*p == ' ')
		p++;
	for (end = p + strlen(p); end > p && end[-1] == ' ';)
		*--end = '\0';
	strcpy(out, p);
}

/* Block b against this CPU's identity. */
static bool identity_matches(const char *b)
{
	unsigned r[4], family, model;
	char vendor[13] = {0}, v[64], name[49], want[64];

	cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4), memcpy(vendor + 4, &r[3], 4), memcpy(vendor + 8, &r[2], 4);
	cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	if (family >= 6)
		model += ((r[0] >> 16) & 0xf) << 4;
	brand(name);
	bool good = field(b, "vendor_id", v, sizeof v) && !strcmp(v, vendor) &&
		    field(b, "cpu family", v, sizeof v) && atoi(v) == (int)family &&
		    field(b, "model", v, sizeof v) && atoi(v) == (int)model &&
		    field(b, "stepping", v, sizeof v) && atoi(v) == (int)(r[0] & 0xf) &&
		    field(b, "model name", v, sizeof v) && !strcmp(v, name);
	cpuid(0x80000008, 0, r);
	snprintf(want, sizeof want, "%u bits physical, %u bits virtual", r[0] & 0xff,
		 (r[0] >> 8) & 0xff);
	return good && field(b, "address sizes", v, sizeof v) && !strcmp(v, want);
}

/* On CPU cpu (pinned), CPUID's initial APIC id. */
static int apic_id_on(int cpu)
{
	cpu_set_t set;
	unsigned r[4];

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		return -1;
	cpuid(1, 0, r);
	return r[1] >> 24;
}

static void test_cpuinfo(void)
{
	char *blocks[256], v[64];
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool numbered = true, ident = true, flagged = true, mhz = true, apic = true;
	cpu_set_t all;

	require(read_text("/proc/cpuinfo", text, sizeof text) > 0, "read /proc/cpuinfo");
	int n = split_blocks(text, blocks, 256);
	is_int(n, online, "one block per online CPU (sysconf: %ld)", online);
	sched_getaffinity(0, sizeof all, &all);
	for (int i = 0; i < n; i++) {
		numbered &= field(blocks[i], "processor", v, sizeof v) && atoi(v) == i;
		ident &= identity_matches(blocks[i]);
		flagged &= flags_match(blocks[i]);
		mhz &= field(blocks[i], "cpu MHz", v, sizeof v) && strtod(v, NULL) > 0;
		apic &= field(blocks[i], "initial apicid", v, sizeof v) && atoi(v) == apic_id_on(i);
	}
	sched_setaffinity(0, sizeof all, &all);
	ok(numbered, "processors numbered 0..%d", n - 1);
	ok(ident, "vendor, family, model, stepping, model name, address sizes: CPUID's");
	ok(flagged, "%zu flags present exactly when CPUID sets them",
	   sizeof flags / sizeof flags[0]);
	ok(mhz, "cpu MHz positive");
	ok(apic, "each CPU's initial apicid is CPUID's run on that CPU");
}

static void test_filesystems(void)
{
	char buf[2048];

	ok(read_text("/proc/filesystems", buf, sizeof buf) > 0 && strstr(buf, "nodev\ttmpfs\n") &&
	       strstr(buf, "nodev\tpipefs\n") && strstr(buf, "nodev\tsockfs\n"),
	   "/proc/filesystems lists tmpfs, pipefs and sockfs as nodev");
	ok(read_text("/proc/partitions", buf, sizeof buf) > 0 &&
	       !strncmp(buf, "major minor  #blocks  name\n\n", 28),
	   "/proc/partitions begins with Linux's header");
}

int main(void)
{
	plan(8);
	test_cpuinfo();
	test_filesystems();
	return done();
}
