/* A dynamically linked program (built against musl's libc.so and against
 * glibc's) checks what execve gave it and its interpreter: the auxiliary
 * vector against its own ELF headers and /proc/self/maps, the placement
 * of the program and of ld.so with and without randomisation, and ld.so
 * run directly as a program. */
#include <cpuid.h>
#include <elf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/personality.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
#define ELF_ET_DYN_BASE 0x555555554000UL /* Linux x86_64's, page aligned */

static char self[PATH_MAX];
static uint64_t *auxv; /* the vector on the stack, after envp's NULL */

/* The kernel's value of type in the vector (glibc's getauxval gives its
 * own AT_HWCAP on x86_64). */
static uint64_t kernel_aux(uint64_t type)
{
	for (uint64_t *a = auxv; a[0]; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}

/* The start of the first line of /proc/self/maps naming path with file
 * offset 0, or 0. */
static uint64_t mapped_at(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t start = 0, end, off;

	require(f != NULL, "open /proc/self/maps");
	while (!start && fgets(line, sizeof line, f)) {
		char *name = strchr(line, '/'), *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		if (name && !strcmp(name, path) &&
		    sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 && off)
			start = 0;
	}
	fclose(f);
	return start;
}

/* Whether addr lies in the mapping named name ("[stack]"). */
static bool in_mapping(uint64_t addr, const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool in = false;

	require(f != NULL, "open /proc/self/maps");
	while (!in && fgets(line, sizeof line, f)) {
		uint64_t start, end;
		if (strstr(line, name) && sscanf(line, "%lx-%lx", &start, &end) == 2)
			in = addr >= start && addr < end;
	}
	fclose(f);
	return in;
}

/* The program's load bias from its PT_PHDR, and its PT_INTERP string. */
static uint64_t load_bias(const char **interp)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	uint64_t n = getauxval(AT_PHNUM), bias = 0;

	for (uint64_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uint64_t)ph - ph[i].p_vaddr;
	for (uint64_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			*interp = (const char *)(bias + ph[i].p_vaddr);
	return bias;
}

static void check_auxv(void)
{
	const char *interp = NULL, *platform = (const char *)getauxval(AT_PLATFORM);
	uint64_t bias = load_bias(&interp), base = getauxval(AT_BASE);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bias;
	char real[PATH_MAX], exe[PATH_MAX] = "";
	unsigned a, b, c, d;

	ok(interp != NULL, "the program has a PT_INTERP (%s)", interp ? interp : "none");
	require(interp && realpath(interp, real), "resolve the interpreter");
	ok(base && base == mapped_at(real), "AT_BASE %#lx is where %s is mapped", base, real);
	ok(!memcmp((const void *)base, ELFMAG, SELFMAG), "an ELF header at AT_BASE");
	ok(!memcmp(eh->e_ident, ELFMAG, SELFMAG) && bias + eh->e_phoff == getauxval(AT_PHDR),
	   "AT_PHDR %#lx: the program's headers, e_phoff past its ELF header", getauxval(AT_PHDR));
	ok(getauxval(AT_PHENT) == sizeof(Elf64_Phdr) && getauxval(AT_PHNUM) == eh->e_phnum,
	   "AT_PHENT %lu, AT_PHNUM %lu", getauxval(AT_PHENT), getauxval(AT_PHNUM));
	ok(getauxval(AT_ENTRY) == eh->e_entry + bias, "AT_ENTRY is e_entry plus the load bias");
	ok(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0 && mapped_at(exe) == bias,
	   "/proc/self/exe is the program (%s), mapped at the bias", exe);
	ok(getauxval(AT_PAGESZ) == 4096 && getauxval(AT_CLKTCK) == 100, "AT_PAGESZ, AT_CLKTCK");
	ok(getauxval(AT_UID) == getuid() && getauxval(AT_EUID) == geteuid() &&
	       getauxval(AT_GID) == getgid() && getauxval(AT_EGID) == getegid() &&
	       getauxval(AT_SECURE) == 0,
	   "AT_UID, AT_EUID, AT_GID, AT_EGID, AT_SECURE 0");
	ok(in_mapping(getauxval(AT_RANDOM), "[stack]"), "AT_RANDOM points into the stack");
	ok(platform && !strcmp(platform, "x86_64"), "AT_PLATFORM x86_64");
	ok(getauxval(AT_EXECFN) && !strcmp((const char *)getauxval(AT_EXECFN), self),
	   "AT_EXECFN is execve's path");
	__cpuid(1, a, b, c, d);
	ok(kernel_aux(AT_HWCAP) == d, "AT_HWCAP is CPUID 1's EDX (%#lx)", kernel_aux(AT_HWCAP));
	ok(kernel_aux(AT_BASE) == base && kernel_aux(AT_PHDR) == getauxval(AT_PHDR),
	   "getauxval agrees with the vector on the stack");
	ok(getauxval(AT_MINSIGSTKSZ) >= 1024 && getauxval(AT_MINSIGSTKSZ) <= 65536,
	   "AT_MINSIGSTKSZ %lu", getauxval(AT_MINSIGSTKSZ));
	ok(getauxval(AT_FLAGS) == 0, "AT_FLAGS 0");
	ok(getauxval(AT_SYSINFO_EHDR) && in_mapping(getauxval(AT_SYSINFO_EHDR), "[vdso]"),
	   "AT_SYSINFO_EHDR points at [vdso]");
}

/* Child mode "report": prints the program's and ld.so's bases. */
static int report(void)
{
	const char *interp = NULL;
	uint64_t bias = load_bias(&interp);

	printf("%lx %lx\n", bias, getauxval(AT_BASE));
	return 0;
}

/* Runs this program in mode "report" (through ld.so itself if ld), under
 * persona: its two bases. */
static bool run_report(unsigned long persona, const char *ld, uint64_t *prog, uint64_t *base)
{
	char out[256];
	char *argv_direct[] = {self, "report", NULL},
	     *argv_ld[] = {(char *)ld, self, "report", NULL};
	char *envp[] = {NULL};
	int status, old = personality(0xffffffff);

	personality(persona);
	status = run_capture(ld ? ld : self, ld ? argv_ld : argv_direct, envp, out, sizeof out);
	personality(old);
	return exited_with(status, 0) && sscanf(out, "%lx %lx", prog, base) == 2;
}

static int read_randomize(void)
{
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	int level = -1;

	if (f && fscanf(f, "%d", &level) != 1)
		level = -1;
	if (f)
		fclose(f);
	return level;
}

static void check_placement(void)
{
	uint64_t p1, b1, p2, b2;
	int level = read_randomize();

	require(run_report(ADDR_NO_RANDOMIZE, NULL, &p1, &b1) &&
		    run_report(ADDR_NO_RANDOMIZE, NULL, &p2, &b2),
		"run the program twice without randomisation");
	ok(p1 == ELF_ET_DYN_BASE && p2 == p1, "without randomisation the PIE is at %#lx (%#lx)",
	   ELF_ET_DYN_BASE, p1);
	ok(b1 == b2 && b1 > p1, "... and ld.so at the same place each time (%#lx)", b1);
	require(run_report(0, NULL, &p1, &b1) && run_report(0, NULL, &p2, &b2),
		"run the program twice");
	if (level > 0) {
		ok(b1 != b2 && p1 != p2,
		   "randomize_va_space %d: ld.so (%#lx, %#lx) and the PIE move", level, b1, b2);
		ok(p1 >= ELF_ET_DYN_BASE && p1 < ELF_ET_DYN_BASE + (1UL << 40),
		   "the PIE is within 1 TiB above ELF_ET_DYN_BASE");
	} else {
		ok(b1 == b2 && p1 == p2, "randomize_va_space 0: the same bases each run");
		ok(p1 == ELF_ET_DYN_BASE, "the PIE at ELF_ET_DYN_BASE");
	}
}

/* ld.so run as a program (an ET_DYN without PT_INTERP: the kernel's
 * AT_BASE is 0) loads this program itself. */
static void check_ld_direct(void)
{
	const char *interp = NULL;
	uint64_t prog, base;

	load_bias(&interp);
	ok(run_report(0, interp, &prog, &base) && base == 0,
	   "%s run directly runs the program, AT_BASE 0 (ld.so is the program)", interp);
}

int main(int argc, char **argv, char **envp)
{
	while (*envp)
		envp++;
	auxv = (uint64_t *)(envp + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report();
	/* Re-run under a known path: AT_EXECFN is execve's. */
	require(realpath("/proc/self/exe", self) != NULL, "resolve /proc/self/exe");
	if (argc < 2 || strcmp(argv[1], "checked")) {
		char *args[] = {self, "checked", NULL};
		execv(self, args);
		require(false, "re-exec");
	}
	plan(22);
	check_auxv();
	check_placement();
	check_ld_direct();
	return done();
}
