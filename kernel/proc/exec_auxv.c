/*
 * The auxiliary vector, in Linux x86_64's order (create_elf_tables with
 * ARCH_DLINFO first): what ld.so and libc learn from the kernel at start.
 * AT_BASE is the interpreter's load bias (0 without one), AT_PHDR and
 * AT_ENTRY the program's own, load bias added; AT_HWCAP is CPUID 1's EDX
 * as Linux gives it; AT_HWCAP2 is left out, as Linux does when it would
 * be 0 (neither ring-3 MWAIT nor FSGSBASE is offered here).
 */
#include "proc/exec_auxv.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/timer.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/elf.h"

#define AT_NULL		0
#define AT_PHDR		3
#define AT_PHENT	4
#define AT_PHNUM	5
#define AT_PAGESZ	6
#define AT_BASE		7
#define AT_FLAGS	8
#define AT_ENTRY	9
#define AT_UID		11
#define AT_EUID		12
#define AT_GID		13
#define AT_EGID		14
#define AT_PLATFORM	15
#define AT_HWCAP	16
#define AT_CLKTCK	17
#define AT_SECURE	23
#define AT_RANDOM	25
#define AT_EXECFN	31
#define AT_SYSINFO_EHDR 33
#define AT_MINSIGSTKSZ	51

static uint64_t hwcap(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	return d;
}

int exec_auxv_build(uint64_t *auxv, const struct elf_image *img, const struct auxv_places *at,
		    const struct cred *c, bool secure)
{
	uint64_t pairs[][2] = {
	    {AT_SYSINFO_EHDR, at->vdso}, /* dropped below without a vDSO */
	    {AT_MINSIGSTKSZ, sigframe_size()},
	    {AT_HWCAP, hwcap()},
	    {AT_PAGESZ, PAGE_SIZE},
	    {AT_CLKTCK, TIMER_HZ},
	    {AT_PHDR, img->phdr_va},
	    {AT_PHENT, img->phentsize},
	    {AT_PHNUM, img->phnum},
	    {AT_BASE, img->base},
	    {AT_FLAGS, 0},
	    {AT_ENTRY, img->entry},
	    /* The identities, in place: exec_auxv_put_ids' walk of the
	     * vector cost every exec 150 instructions (docs/bench.md). */
	    {AT_UID, c->uid},
	    {AT_EUID, c->euid},
	    {AT_GID, c->gid},
	    {AT_EGID, c->egid},
	    {AT_SECURE, secure},
	    {AT_RANDOM, at->random},
	    {AT_EXECFN, at->execfn},
	    {AT_PLATFORM, at->platform},
	    {AT_NULL, 0},
	};
	int skip = at->vdso ? 0 : 1, n = sizeof(pairs) / sizeof(pairs[0]) - skip;

	_Static_assert(sizeof(pairs) / sizeof(pairs[0]) <= EXEC_AUXV_PAIRS, "room for the vector");
	memcpy(auxv, pairs[skip], n * sizeof(pairs[0]));
	return n;
}

void exec_auxv_put_ids(uint64_t *auxv, const struct cred *c, bool secure)
{
	for (; auxv[0] != AT_NULL; auxv += 2)
		switch (auxv[0]) {
		case AT_UID:
			auxv[1] = c->uid;
			break;
		case AT_EUID:
			auxv[1] = c->euid;
			break;
		case AT_GID:
			auxv[1] = c->gid;
			break;
		case AT_EGID:
			auxv[1] = c->egid;
			break;
		case AT_SECURE:
			auxv[1] = secure;
			break;
		}
}
