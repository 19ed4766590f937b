/*
 * ACPI tables for SMP bring-up and PCI: RSDP → RSDT/XSDT → MADT (CPUs,
 * I/O APIC, ISA overrides) and MCFG (PCI's ECAM); no AML, no power
 * management.  Every
 * table is checksummed and every MADT entry bounded by its table, since
 * firmware tables are input like any other.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/bootinfo.h"
#include "arch/x86_64/cpu.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"

/* Tables are read through the direct map, which always covers the low
 * 4 GiB (paging.c); firmware puts them there on every PC we boot. */
#define ACPI_MAPPED_END	 (4UL << 30)
#define LAPIC_DEFAULT_PA 0xfee00000UL

#define MADT_LAPIC	 0
#define MADT_IOAPIC	 1
#define MADT_OVERRIDE	 2
#define MADT_LAPIC_ADDR	 5
#define MADT_X2APIC	 9
#define MADT_CPU_ENABLED 1u

struct acpi_rsdp {
	char sig[8];	  /* "RSD PTR " */
	uint8_t checksum; /* over the first 20 bytes */
	char oem_id[6];
	uint8_t revision; /* 0: ACPI 1.0, RSDT only; 2: XSDT too */
	uint32_t rsdt_pa;
	uint32_t length;
	uint64_t xsdt_pa;
	uint8_t ext_checksum; /* over length bytes */
	uint8_t reserved[3];
} __attribute__((packed));

struct madt_entry {
	uint8_t type;
	uint8_t length;
} __attribute__((packed));

struct acpi_info acpi_info;

static uint8_t sum_bytes(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (len--)
		s += *b++;
	return s;
}

static bool rsdp_valid(const struct acpi_rsdp *r, uint32_t avail)
{
	if (avail < 20 || memcmp(r->sig, "RSD PTR ", 8) || sum_bytes(r, 20))
		return false;
	if (r->revision < 2)
		return true;
	return avail >= sizeof(*r) && r->length >= sizeof(*r) && !sum_bytes(r, sizeof(*r));
}

/* The BIOS places the RSDP on a 16-byte boundary in the first KiB of the
 * EBDA or in 0xe0000-0xfffff (ACPI 5.2.5.1). */
static const struct acpi_rsdp *rsdp_scan(uint64_t pa, uint64_t len)
{
	for (uint64_t off = 0; off + 20 <= len; off += 16) {
		const struct acpi_rsdp *r = P2V(pa + off);
		if (rsdp_valid(r, (uint32_t)(len - off)))
			return r;
	}
	return NULL;
}

static const struct acpi_rsdp *rsdp_find(void)
{
	const struct acpi_rsdp *r = (const void *)boot_info.rsdp;
	uint64_t ebda = (uint64_t) * (const uint16_t *)P2V(0x40e) << 4;

	if (boot_info.rsdp_len && rsdp_valid(r, boot_info.rsdp_len))
		return r;
	if (boot_info.uefi) /* no BIOS data area to scan */
		return NULL;
	if (ebda >= 0x80000 && ebda < 0xa0000 && (r = rsdp_scan(ebda, 1024)))
		return r;
	return rsdp_scan(0xe0000, 0x20000);
}

/* The table at pa if it is mapped, whole and checksums to zero. */
static const struct acpi_sdt *sdt_map(uint64_t pa)
{
	const struct acpi_sdt *t;

	if (!pa || pa + sizeof(*t) > ACPI_MAPPED_END)
		return NULL;
	t = P2V(pa);
	if (t->length < sizeof(*t) || pa + t->length > ACPI_MAPPED_END || sum_bytes(t, t->length))
		return NULL;
	return t;
}

/* The table with signature sig listed in the XSDT (8-byte entries) or, for
 * ACPI 1.0, the RSDT (4-byte entries). */
static const struct acpi_sdt *sdt_find(const struct acpi_rsdp *r, const char *sig)
{
	bool x = r->revision >= 2 && r->xsdt_pa;
	const struct acpi_sdt *root = sdt_map(x ? r->xsdt_pa : r->rsdt_pa);
	uint32_t width = x ? 8 : 4;

	if (!root)
		return NULL;
	const uint8_t *e = (const uint8_t *)(root + 1);
	for (uint32_t n = (root->length - sizeof(*root)) / width; n--; e += width) {
		uint64_t pa = 0;
		memcpy(&pa, e, width); /* entries are unaligned in the RSDT */
		const struct acpi_sdt *t = sdt_map(pa);
		if (t && !memcmp(t->sig, sig, 4))
			return t;
	}
	return NULL;
}

static void madt_add_cpu(struct acpi_info *out, uint32_t lapic_id, uint32_t flags)
{
	if (!(flags & MADT_CPU_ENABLED))
		return;
	if (out->ncpus == ACPI_MAX_CPUS) {
		printk("acpi: more than %d CPUs, LAPIC id %u ignored\n", ACPI_MAX_CPUS, lapic_id);
		return;
	}
	out->lapic_ids[out->ncpus++] = lapic_id;
}

/* One MADT entry; e->length was checked to cover the fields read here. */
static void madt_entry(struct acpi_info *out, const uint8_t *e)
{
	uint32_t u32;
	uint16_t u16;

	switch (e[0]) {
	case MADT_LAPIC: /* uid u8, APIC id u8, flags u32 */
		memcpy(&u32, e + 4, 4);
		madt_add_cpu(out, e[3], u32);
		break;
	case MADT_X2APIC: /* reserved u16, x2APIC id u32, flags u32, uid u32 */
		memcpy(&u32, e + 8, 4);
		uint32_t id;
		memcpy(&id, e + 4, 4);
		madt_add_cpu(out, id, u32);
		break;
	case MADT_IOAPIC: /* id u8, reserved u8, address u32, GSI base u32 */
		if (out->ioapic_pa)
			break; /* the first one serves the ISA IRQs on a PC */
		out->ioapic_id = e[2];
		memcpy(&u32, e + 4, 4);
		out->ioapic_pa = u32;
		memcpy(&out->ioapic_gsi_base, e + 8, 4);
		break;
	case MADT_OVERRIDE: /* bus u8 (0 = ISA), source IRQ u8, GSI u32, flags u16 */
		if (e[2] != 0 || e[3] >= 16)
			break;
		memcpy(&out->isa_gsi[e[3]], e + 4, 4);
		memcpy(&u16, e + 8, 2);
		out->isa_flags[e[3]] = u16;
		break;
	case MADT_LAPIC_ADDR: /* reserved u16, 64-bit LAPIC address */
		memcpy(&out->lapic_pa, e + 4, 8);
		break;
	}
}

/* The shortest length of each entry type we read (2 for the others). */
static const uint8_t madt_min_length[] = {
    [MADT_LAPIC] = 8,	    [MADT_IOAPIC] = 12, [MADT_OVERRIDE] = 10,
    [MADT_LAPIC_ADDR] = 12, [MADT_X2APIC] = 16,
};

static bool madt_entry_fits(const uint8_t *p, const uint8_t *end)
{
	uint8_t min = 2;

	if (p + 2 > end)
		return false;
	if (p[0] < sizeof(madt_min_length) && madt_min_length[p[0]])
		min = madt_min_length[p[0]];
	return p[1] >= min && p + p[1] <= end;
}

bool acpi_parse_madt(const struct acpi_sdt *madt, struct acpi_info *out)
{
	/* Header, then the LAPIC address u32 and flags u32, then entries. */
	const uint8_t *p = (const uint8_t *)(madt + 1) + 8;
	const uint8_t *end = (const uint8_t *)madt + madt->length;
	uint32_t lapic_pa;

	if (madt->length < sizeof(*madt) + 8 || sum_bytes(madt, madt->length))
		return false;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 16; i++)
		out->isa_gsi[i] = (uint32_t)i;
	memcpy(&lapic_pa, madt + 1, 4);
	out->lapic_pa = lapic_pa;
	/* A zero or short length would loop or read past the table: stop. */
	while (madt_entry_fits(p, end)) {
		madt_entry(out, p);
		p += p[1];
	}
	out->found = out->ncpus > 0;
	return out->found;
}

/* MCFG: the header, 8 reserved bytes, then 16-byte entries: base u64,
 * segment u16, start bus u8, end bus u8, reserved u32. */
bool acpi_parse_mcfg(const struct acpi_sdt *mcfg, struct acpi_info *out)
{
	const uint8_t *e = (const uint8_t *)(mcfg + 1) + 8;
	const uint8_t *end = (const uint8_t *)mcfg + mcfg->length;

	for (; e + 16 <= end; e += 16) {
		uint64_t base;
		uint16_t seg;

		memcpy(&base, e, 8);
		memcpy(&seg, e + 8, 2);
		if (seg != 0 || !base || e[11] < e[10])
			continue;
		out->ecam_pa = base;
		out->ecam_bus_start = e[10];
		out->ecam_bus_end = e[11];
		return true;
	}
	return false;
}

/* The CPU running this: its initial APIC id (CPUID leaf 1, EBX[31:24]). */
static uint32_t boot_lapic_id(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	return b >> 24;
}

static void acpi_print(void)
{
	char ids[ACPI_MAX_CPUS * 11 + 1];
	int n = 0;

	for (int i = 0; i < acpi_info.ncpus; i++)
		n += snprintk(ids + n, sizeof(ids) - (size_t)n, "%s%u", i ? " " : "",
			      acpi_info.lapic_ids[i]);
	printk("acpi: %d CPU%s (LAPIC ids %s) at %lx, I/O APIC %u at %lx GSI %u, IRQ 0 on GSI %u\n",
	       acpi_info.ncpus, acpi_info.ncpus == 1 ? "" : "s", ids, acpi_info.lapic_pa,
	       acpi_info.ioapic_id, acpi_info.ioapic_pa, acpi_info.ioapic_gsi_base,
	       acpi_info.isa_gsi[0]);
}

void acpi_init(void)
{
	const struct acpi_rsdp *r = rsdp_find();
	const struct acpi_sdt *madt = r ? sdt_find(r, "APIC") : NULL;
	const struct acpi_sdt *mcfg = r ? sdt_find(r, "MCFG") : NULL;

	if (!madt || !acpi_parse_madt(madt, &acpi_info)) {
		printk("acpi: no %s, running on the boot CPU alone\n", r ? "valid MADT" : "RSDP");
		memset(&acpi_info, 0, sizeof(acpi_info));
		acpi_info.ncpus = 1;
		acpi_info.lapic_ids[0] = boot_lapic_id();
		acpi_info.lapic_pa = LAPIC_DEFAULT_PA;
		for (int i = 0; i < 16; i++)
			acpi_info.isa_gsi[i] = (uint32_t)i;
		return;
	}
	acpi_print();
	if (mcfg && acpi_parse_mcfg(mcfg, &acpi_info))
		printk("acpi: PCI ECAM at %lx, buses %u-%u\n", acpi_info.ecam_pa,
		       acpi_info.ecam_bus_start, acpi_info.ecam_bus_end);
}
