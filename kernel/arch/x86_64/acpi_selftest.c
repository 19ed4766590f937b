/*
 * ACPI self-tests: what QEMU's q35 firmware reports (any -smp count) and
 * that the APICs it names are in use, and
 * a hand-made MADT with the entries and the malformations parsing must
 * survive.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/lapic.h"
#include "lib/ktest.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "mm/paging.h"

static bool has_lapic_id(const struct acpi_info *a, uint32_t id)
{
	for (int i = 0; i < a->ncpus; i++)
		if (a->lapic_ids[i] == id)
			return true;
	return false;
}

/* True if one of the first register pages mmio_map gave maps pa uncached. */
static bool uncached_at(uint64_t pa)
{
	for (uint64_t va = MMIO_BASE; va < MMIO_BASE + 4 * PAGE_SIZE; va += PAGE_SIZE) {
		uint64_t got, flags;
		if (!translate(vm_kernel(), va, &got, &flags) && got == pa)
			return (flags & (PTE_PCD | PTE_PWT)) == (PTE_PCD | PTE_PWT);
	}
	return false;
}

/* QEMU q35: LAPIC ids 0..n-1, one I/O APIC at 0xfec00000 from GSI 0, the
 * PIT's IRQ 0 on GSI 2, the serial port's IRQ 4 not overridden. */
static void acpi_qemu_selftest(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	KTEST_OK(acpi_info.found && acpi_info.ncpus >= 1 && has_lapic_id(&acpi_info, b >> 24),
		 "acpi: MADT found, %d CPU(s), the boot CPU's LAPIC id %u among them",
		 acpi_info.ncpus, b >> 24);
	KTEST_OK(acpi_info.lapic_pa == 0xfee00000 && acpi_info.ioapic_pa == 0xfec00000 &&
		     acpi_info.ioapic_gsi_base == 0,
		 "acpi: LAPIC at %lx, I/O APIC at %lx GSI base %u", acpi_info.lapic_pa,
		 acpi_info.ioapic_pa, acpi_info.ioapic_gsi_base);
	KTEST_OK(lapic_enabled() && lapic_id() == b >> 24,
		 "apic: the I/O APIC took over, this CPU's local APIC is on (id %u)",
		 lapic_enabled() ? lapic_id() : ~0u);
	KTEST_OK(uncached_at(acpi_info.lapic_pa) && uncached_at(acpi_info.ioapic_pa),
		 "apic: the local and I/O APIC registers are mapped uncached");
	KTEST_OK(acpi_info.isa_gsi[0] == 2 && acpi_info.isa_gsi[4] == 4 && !acpi_info.isa_flags[4],
		 "acpi: ISA IRQ 0 on GSI %u, IRQ 4 on GSI %u edge/high", acpi_info.isa_gsi[0],
		 acpi_info.isa_gsi[4]);
}

static uint8_t madt_buf[128];
static uint32_t madt_len;

static void put(const void *p, uint32_t n)
{
	memcpy(madt_buf + madt_len, p, n);
	madt_len += n;
}

/* Sets the header's length and checksum over what put() added. */
static const struct acpi_sdt *madt_finish(void)
{
	struct acpi_sdt *h = (struct acpi_sdt *)madt_buf;
	uint8_t sum = 0;

	h->length = madt_len;
	h->checksum = 0;
	for (uint32_t i = 0; i < madt_len; i++)
		sum += madt_buf[i];
	h->checksum = (uint8_t)-sum;
	return h;
}

static const struct acpi_sdt *madt_build(void)
{
	struct acpi_sdt h = {.sig = "APIC", .revision = 4};
	const uint32_t lapic[2] = {0xfee00000, 1};
	/* type, len, uid, id, flags: enabled 0, disabled 1, enabled 3 */
	const uint8_t cpus[3][8] = {
	    {0, 8, 0, 0, 1, 0, 0, 0}, {0, 8, 1, 1, 0, 0, 0, 0}, {0, 8, 2, 3, 1, 0, 0, 0}};
	/* x2APIC id 300 enabled */
	const uint8_t x2[16] = {9, 16, 0, 0, 0x2c, 1, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0};
	const uint8_t io[12] = {1, 12, 5, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0};
	/* IRQ 0 -> GSI 2; IRQ 9 -> GSI 9 level, active low */
	const uint8_t iso[2][10] = {{2, 10, 0, 0, 2, 0, 0, 0, 0, 0},
				    {2, 10, 0, 9, 9, 0, 0, 0, 0x0f, 0}};

	madt_len = 0;
	put(&h, sizeof(h));
	put(lapic, sizeof(lapic));
	put(cpus, sizeof(cpus));
	put(x2, sizeof(x2));
	put(io, sizeof(io));
	put(iso, sizeof(iso));
	return madt_finish();
}

static void acpi_madt_selftest(void)
{
	static struct acpi_info a;
	const struct acpi_sdt *m = madt_build();
	const uint8_t zero_len[2] = {0x7f, 0};
	bool parsed = acpi_parse_madt(m, &a);

	KTEST_OK(parsed && a.ncpus == 3 && a.lapic_ids[0] == 0 && a.lapic_ids[1] == 3 &&
		     a.lapic_ids[2] == 300,
		 "acpi: MADT CPUs: disabled skipped, x2APIC entry read (%d)", a.ncpus);
	KTEST_OK(a.ioapic_pa == 0xfec00000 && a.ioapic_id == 5 && a.isa_gsi[0] == 2 &&
		     a.isa_gsi[9] == 9 &&
		     a.isa_flags[9] == (ACPI_IRQ_POLARITY_LOW | ACPI_IRQ_TRIGGER_LEVEL) &&
		     a.isa_gsi[4] == 4,
		 "acpi: MADT I/O APIC and ISA overrides");
	madt_buf[9] ^= 1; /* break the checksum */
	KTEST_OK(!acpi_parse_madt(m, &a), "acpi: MADT with a bad checksum rejected");
	madt_len = sizeof(struct acpi_sdt) + 8 + 8; /* first CPU only... */
	put(zero_len, sizeof(zero_len));	    /* ...then a zero-length entry */
	KTEST_OK(acpi_parse_madt(madt_finish(), &a) && a.ncpus == 1,
		 "acpi: a zero-length MADT entry ends the walk");
}

void acpi_selftest(void)
{
	acpi_qemu_selftest();
	acpi_madt_selftest();
}
