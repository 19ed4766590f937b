/*
 * /proc/cpuinfo: what each CPU's CPUID said when it came up (cpuinfo_
 * identify, run by the CPU itself, as Linux's identify_cpu), in Linux's
 * format and with Linux's flag names.  Only what CPUID and the kernel
 * know is shown: no microcode revision (an MSR), no topology lines, no
 * bugs; the flags are CPUID's bits plus the few Linux derives from them
 * (cpuid, constant_tsc and nonstop_tsc from the invariant TSC).
 */
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "proc/sysinfo.h"

/* The CPUID words the flags come from, in Linux's capability-word order. */
enum cpuid_word {
	W_1_EDX,  /* leaf 1 EDX: Linux's word 0 */
	W_X1_EDX, /* 0x80000001 EDX: word 1 */
	W_LINUX,  /* Linux's own (word 3): derived, see identify */
	W_1_ECX,  /* leaf 1 ECX: word 4 */
	W_X1_ECX, /* 0x80000001 ECX: word 6 */
	W_7_EBX,  /* leaf 7.0 EBX: word 9 */
	W_D1_EAX, /* leaf 0xd.1 EAX: word 10 */
	W_71_EAX, /* leaf 7.1 EAX: word 12 */
	W_X8_EBX, /* 0x80000008 EBX: word 13 */
	W_6_EAX,  /* leaf 6 EAX: word 14 */
	W_7_ECX,  /* leaf 7.0 ECX: word 16 */
	W_7_EDX,  /* leaf 7.0 EDX: word 18 */
	NWORDS
};

/* Linux's names (arch/x86/include/asm/cpufeatures.h); NULL: not shown. */
static const char *const flag_names[NWORDS][32] = {
    [W_1_EDX] = {"fpu",	 "vme",	  "de",	  "pse",     "tsc",  "msr", "pae",  "mce",
		 "cx8",	 "apic",  NULL,	  "sep",     "mtrr", "pge", "mca",  "cmov",
		 "pat",	 "pse36", "pn",	  "clflush", NULL,   "dts", "acpi", "mmx",
		 "fxsr", "sse",	  "sse2", "ss",	     "ht",   "tm",  "ia64", "pbe"},
    [W_X1_EDX] = {[11] = "syscall",
		  [19] = "mp",
		  [20] = "nx",
		  [22] = "mmxext",
		  [25] = "fxsr_opt",
		  [26] = "pdpe1gb",
		  [27] = "rdtscp",
		  [29] = "lm",
		  [30] = "3dnowext",
		  [31] = "3dnow"},
    [W_LINUX] = {[8] = "constant_tsc", [24] = "nonstop_tsc", [25] = "cpuid"},
    [W_1_ECX] = {"pni",	   "pclmulqdq", "dtes64", "monitor", "ds_cpl",
		 "vmx",	   "smx",	"est",	  "tm2",     "ssse3",
		 "cid",	   "sdbg",	"fma",	  "cx16",    "xtpr",
		 "pdcm",   NULL,	"pcid",	  "dca",     "sse4_1",
		 "sse4_2", "x2apic",	"movbe",  "popcnt",  "tsc_deadline_timer",
		 "aes",	   "xsave",	NULL,	  "avx",     "f16c",
		 "rdrand", "hypervisor"},
    [W_X1_ECX] = {"lahf_lm",	"cmp_legacy",  "svm",
		  "extapic",	"cr8_legacy",  "abm",
		  "sse4a",	"misalignsse", "3dnowprefetch",
		  "osvw",	"ibs",	       "xop",
		  "skinit",	"wdt",	       NULL,
		  "lwp",	"fma4",	       "tce",
		  NULL,		"nodeid_msr",  NULL,
		  "tbm",	"topoext",     "perfctr_core",
		  "perfctr_nb", NULL,	       "bpext",
		  "ptsc",	"perfctr_llc", "mwaitx"},
    [W_7_EBX] = {"fsgsbase", "tsc_adjust", "sgx",      "bmi1",	     "hle",	 "avx2",
		 NULL,	     "smep",	   "bmi2",     "erms",	     "invpcid",	 "rtm",
		 "cqm",	     NULL,	   "mpx",      "rdt_a",	     "avx512f",	 "avx512dq",
		 "rdseed",   "adx",	   "smap",     "avx512ifma", NULL,	 "clflushopt",
		 "clwb",     "intel_pt",   "avx512pf", "avx512er",   "avx512cd", "sha_ni",
		 "avx512bw", "avx512vl"},
    [W_D1_EAX] = {"xsaveopt", "xsavec", "xgetbv1", "xsaves", "xfd"},
    [W_71_EAX] = {[4] = "avx_vnni", [5] = "avx512_bf16"},
    [W_X8_EBX] =
	{[0] = "clzero", [1] = "irperf", [2] = "xsaveerptr", [4] = "rdpru", [9] = "wbnoinvd"},
    [W_6_EAX] = {[0] = "dtherm",
		 [1] = "ida",
		 [2] = "arat",
		 [4] = "pln",
		 [6] = "pts",
		 [7] = "hwp",
		 [8] = "hwp_notify",
		 [9] = "hwp_act_window",
		 [10] = "hwp_epp",
		 [11] = "hwp_pkg_req",
		 [19] = "hfi"},
    [W_7_ECX] = {[1] = "avx512vbmi",
		 [2] = "umip",
		 [3] = "pku",
		 [4] = "ospke",
		 [5] = "waitpkg",
		 [6] = "avx512_vbmi2",
		 [8] = "gfni",
		 [9] = "vaes",
		 [10] = "vpclmulqdq",
		 [11] = "avx512_vnni",
		 [12] = "avx512_bitalg",
		 [13] = "tme",
		 [14] = "avx512_vpopcntdq",
		 [16] = "la57",
		 [22] = "rdpid",
		 [24] = "bus_lock_detect",
		 [25] = "cldemote",
		 [27] = "movdiri",
		 [28] = "movdir64b",
		 [29] = "enqcmd",
		 [30] = "sgx_lc"},
    [W_7_EDX] = {[2] = "avx512_4vnniw",
		 [3] = "avx512_4fmaps",
		 [4] = "fsrm",
		 [8] = "avx512_vp2intersect",
		 [10] = "md_clear",
		 [14] = "serialize",
		 [16] = "tsxldtrk",
		 [18] = "pconfig",
		 [19] = "arch_lbr",
		 [20] = "ibt",
		 [22] = "amx_bf16",
		 [23] = "avx512_fp16",
		 [24] = "amx_tile",
		 [25] = "amx_int8",
		 [28] = "flush_l1d",
		 [29] = "arch_capabilities"},
};

/* Linux's x86_power_flags (0x80000007 EDX); "" is not shown. */
static const char *const power_names[] = {"ts",		 "fid",		  "vid",      "ttp", "tm",
					  "stc",	 "100mhzsteps",	  "hwpstate", "",    "cpb",
					  "eff_freq_ro", "proc_feedback", "acc_power"};

/* What one CPU's CPUID said; written by that CPU before it is online,
 * read-only after. */
struct cpu_ident {
	char vendor[13];
	char model_name[49];
	uint32_t max_leaf, max_ext;
	uint32_t leaf1_eax, leaf1_ebx;
	uint32_t words[NWORDS];
	uint32_t power; /* 0x80000007 EDX */
	uint32_t phys_bits, virt_bits;
	bool wp; /* CR0.WP */
};

static struct cpu_ident idents[MAX_CPUS];

static uint32_t leaf(uint32_t l, uint32_t sub, int reg)
{
	uint32_t r[4];

	cpuid(l, sub, &r[0], &r[1], &r[2], &r[3]);
	return r[reg];
}

enum { EAX, EBX, ECX, EDX };

/* The brand string (0x80000002..4), spaces trimmed both ends as Linux. */
static void model_name(struct cpu_ident *id)
{
	char raw[49] = {0};
	char *p = raw, *end;

	if (id->max_ext < 0x80000004) {
		strlcpy(id->model_name, "unknown", sizeof(id->model_name));
		return;
	}
	for (int i = 0; i < 3; i++)
		for (int r = 0; r < 4; r++) {
			uint32_t v = leaf(0x80000002 + i, 0, r);
			memcpy(raw + i * 16 + r * 4, &v, 4);
		}
	while (*p == ' ')
		p++;
	for (end = p + strlen(p); end > p && end[-1] == ' ';)
		*--end = '\0';
	strlcpy(id->model_name, p, sizeof(id->model_name));
}

void cpuinfo_identify(int cpu)
{
	struct cpu_ident *id = &idents[cpu];
	uint32_t v[4];

	cpuid(0, 0, &id->max_leaf, &v[1], &v[2], &v[3]);
	memcpy(id->vendor, &v[1], 4); /* EBX, EDX, ECX */
	memcpy(id->vendor + 4, &v[3], 4);
	memcpy(id->vendor + 8, &v[2], 4);
	id->max_ext = leaf(0x80000000, 0, EAX);
	cpuid(1, 0, &id->leaf1_eax, &id->leaf1_ebx, &id->words[W_1_ECX], &id->words[W_1_EDX]);
	if (id->max_leaf >= 6)
		id->words[W_6_EAX] = leaf(6, 0, EAX);
	if (id->max_leaf >= 7) {
		cpuid(7, 0, &v[0], &id->words[W_7_EBX], &id->words[W_7_ECX], &id->words[W_7_EDX]);
		if (v[0] >= 1)
			id->words[W_71_EAX] = leaf(7, 1, EAX);
	}
	if (id->max_leaf >= 0xd)
		id->words[W_D1_EAX] = leaf(0xd, 1, EAX);
	if (id->max_ext >= 0x80000001) {
		id->words[W_X1_ECX] = leaf(0x80000001, 0, ECX);
		id->words[W_X1_EDX] = leaf(0x80000001, 0, EDX);
	}
	if (id->max_ext >= 0x80000007)
		id->power = leaf(0x80000007, 0, EDX);
	id->phys_bits = 36, id->virt_bits = 48;
	if (id->max_ext >= 0x80000008) {
		uint32_t a = leaf(0x80000008, 0, EAX);
		id->phys_bits = a & 0xff, id->virt_bits = (a >> 8) & 0xff;
		id->words[W_X8_EBX] = leaf(0x80000008, 0, EBX);
	}
	/* Linux's: CPUID exists; an invariant TSC is constant and nonstop. */
	id->words[W_LINUX] = 1u << 25 | (id->power & (1u << 8) ? 1u << 8 | 1u << 24 : 0);
	id->wp = read_cr0() & CR0_WP;
	model_name(id);
}

static void append_flags(char *buf, size_t size, size_t *len, const struct cpu_ident *id)
{
	appendk(buf, size, len, "flags\t\t:");
	for (int w = 0; w < NWORDS; w++)
		for (int b = 0; b < 32; b++)
			if ((id->words[w] >> b & 1) && flag_names[w][b])
				appendk(buf, size, len, " %s", flag_names[w][b]);
	appendk(buf, size, len, "\n");
}

static void append_power(char *buf, size_t size, size_t *len, uint32_t power)
{
	appendk(buf, size, len, "power management:");
	for (int b = 0; b < 32; b++) {
		if (!(power >> b & 1))
			continue;
		if (b < (int)(sizeof(power_names) / sizeof(power_names[0])))
			appendk(buf, size, len, "%s%s", power_names[b][0] ? " " : "",
				power_names[b]);
		else
			appendk(buf, size, len, " [%d]", b);
	}
	appendk(buf, size, len, "\n\n");
}

/* Linux's show_cpuinfo for CPU n. */
static void append_cpu(char *buf, size_t size, size_t *len, int n)
{
	const struct cpu_ident *id = &idents[n];
	uint32_t eax = id->leaf1_eax, family = (eax >> 8) & 0xf, model = (eax >> 4) & 0xf;
	uint64_t khz = timer_tsc_khz(), bogo = khz / 5; /* lpj from the TSC, as Linux */

	if (family == 0xf)
		family += (eax >> 20) & 0xff;
	if (family >= 6)
		model += ((eax >> 16) & 0xf) << 4;
	appendk(buf, size, len,
		"processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		"model name\t: %s\nstepping\t: %u\ncpu MHz\t\t: %lu.%03lu\n"
		"apicid\t\t: %u\ninitial apicid\t: %u\nfpu\t\t: %s\nfpu_exception\t: %s\n"
		"cpuid level\t: %u\nwp\t\t: %s\n",
		n, id->vendor, family, model, id->model_name, eax & 0xf, khz / 1000, khz % 1000,
		cpu_get(n)->apic_id, id->leaf1_ebx >> 24, id->words[W_1_EDX] & 1 ? "yes" : "no",
		id->words[W_1_EDX] & 1 ? "yes" : "no", id->max_leaf, id->wp ? "yes" : "no");
	append_flags(buf, size, len, id);
	appendk(buf, size, len,
		"bogomips\t: %lu.%02lu\nclflush size\t: %u\ncache_alignment\t: %u\n"
		"address sizes\t: %u bits physical, %u bits virtual\n",
		bogo / 100, bogo % 100, ((id->leaf1_ebx >> 8) & 0xff) * 8,
		((id->leaf1_ebx >> 8) & 0xff) * 8, id->phys_bits, id->virt_bits);
	append_power(buf, size, len, id->power);
}

static void format_cpuinfo(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int n = 0; n < smp_cpus_online; n++)
		append_cpu(buf, size, &len, n);
}

/* About 1.5 KiB per CPU with every flag. */
#define CPUINFO_MAX (3072 * MAX_CPUS)

SNAPSHOT_OPS(cpuinfo, CPUINFO_MAX);
