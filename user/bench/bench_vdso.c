/* clock_gettime(CLOCK_MONOTONIC) through the vDSO, found by its
 * AT_SYSINFO_EHDR image's dynamic symbols, and through the system call
 * for comparison: ns per call (instructions under make bench's icount). */
#include <elf.h>
#include <fdkernel.h>

#include "bench.h"

#define CALLS		20000
#define REPS		11
#define AT_SYSINFO_EHDR 33
#define CLOCK_MONO	1

struct kts {
	long sec, nsec;
};
typedef long (*gettime_fn)(long, struct kts *);

/* __vdso_clock_gettime in the image at base (DT_HASH's symbol count), or
 * NULL. */
static gettime_fn vdso_gettime(uintptr_t base)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	uint32_t nsym = 0;

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			nsym = ((const uint32_t *)(base + dyn->d_un.d_ptr))[1];
	}
	for (uint32_t i = 1; sym && str && i < nsym; i++)
		if (!strcmp(str + sym[i].st_name, "__vdso_clock_gettime"))
			return (gettime_fn)(base + sym[i].st_value);
	return NULL;
}

static double vdso_rep(const char *name, void *arg)
{
	gettime_fn fn = (gettime_fn)arg;
	struct kts t;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < CALLS; i++)
		if (fn(CLOCK_MONO, &t) != 0) {
			bench_fail(name, "__vdso_clock_gettime failed");
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

static double syscall_rep(const char *name, void *arg)
{
	struct kts t;
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int i = 0; i < CALLS; i++)
		if (syscall(228 /* clock_gettime */, CLOCK_MONO, &t) != 0) {
			bench_fail(name, "clock_gettime: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

int main(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	gettime_fn fn = base ? vdso_gettime(base) : NULL;

	bench_begin("bench_vdso", "clock_gettime_vdso,clock_gettime_syscall");
	if (fn)
		bench_row("clock_gettime_vdso", "ns", REPS, vdso_rep, (void *)fn);
	else
		bench_fail("clock_gettime_vdso", "no vDSO (AT_SYSINFO_EHDR %#lx)",
			   (unsigned long)base);
	bench_row("clock_gettime_syscall", "ns", REPS, syscall_rep, NULL);
	return bench_end();
}
