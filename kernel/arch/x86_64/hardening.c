/* Turning on SMEP, SMAP and UMIP (see hardening.h). */
#include "arch/x86_64/hardening.h"
#include "arch/x86_64/cpu.h"
#include "lib/printk.h"

#define CPUID7_EBX_SMEP (1u << 7)
#define CPUID7_EBX_SMAP (1u << 20)
#define CPUID7_ECX_UMIP (1u << 2)
#define CR4_UMIP	(1UL << 11)

uint8_t smap_enabled;
static bool smep_enabled;

void hardening_init(void)
{
	uint32_t a, b, c, d, max;
	uint64_t cr4 = read_cr4();

	cpuid(0, 0, &max, &b, &c, &d);
	if (max < 7) {
		printk_info("cpu: no SMEP/SMAP/UMIP (cpuid leaf 7 missing)\n");
		return;
	}
	cpuid(7, 0, &a, &b, &c, &d);
	smep_enabled = b & CPUID7_EBX_SMEP;
	smap_enabled = !!(b & CPUID7_EBX_SMAP);
	cr4 |= (smep_enabled ? CR4_SMEP : 0) | (smap_enabled ? CR4_SMAP : 0) |
	       ((c & CPUID7_ECX_UMIP) ? CR4_UMIP : 0);
	write_cr4(cr4);
	printk_info("cpu: SMEP %s, SMAP %s, UMIP %s\n", smep_enabled ? "on" : "absent",
		    smap_enabled ? "on" : "absent", (c & CPUID7_ECX_UMIP) ? "on" : "absent");
}

bool hardening_smep(void)
{
	return smep_enabled;
}
