/*
 * Multiboot2 information → struct boot_info.  Everything is copied out, so
 * the frame allocator may later reuse the information structure's memory...
 * though we still reserve it, in case a caller kept a pointer.
 */
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/bootinfo.h"
#include "lib/ktest.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"

#define MB2_TAG_END	   0
#define MB2_TAG_CMDLINE	   1
#define MB2_TAG_MODULE	   3
#define MB2_TAG_MMAP	   6
#define MB2_TAG_EFI64	   12 /* EFI system table: we were booted by UEFI */
#define MB2_TAG_ACPI_OLD   14 /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW   15 /* a copy of the ACPI 2.0+ RSDP */
#define MB2_TAG_EFI_MMAP   17 /* the firmware's own memory map */
#define MB2_MMAP_AVAILABLE 1

struct mb2_tag {
	uint32_t type;
	uint32_t size;
};

struct mb2_module {
	struct mb2_tag tag;
	uint32_t start;
	uint32_t end;
	char cmdline[];
};

struct mb2_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;
	uint32_t entry_version;
};

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t len;
	uint32_t type;
	uint32_t reserved;
};

/* An EFI_MEMORY_DESCRIPTOR (UEFI spec 7.2); the tag gives its stride. */
struct efi_mmap_entry {
	uint32_t type;
	uint32_t pad;
	uint64_t phys;
	uint64_t virt;
	uint64_t pages; /* 4 KiB each */
	uint64_t attr;
};

/* EFI memory types that are free RAM once boot services have exited (GRUB
 * exits them before entering us): loader and boot-services code and data,
 * conventional memory. */
#define EFI_TYPES_USABLE ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 7))

struct boot_info boot_info;

static void add_range(struct mem_range *ranges, int *n, uint64_t base, uint64_t len)
{
	if (*n == BOOT_MAX_RANGES) {
		printk("boot: too many memory ranges, ignoring %lx+%lx\n", base, len);
		return;
	}
	ranges[*n].base = base;
	ranges[*n].len = len;
	(*n)++;
}

static void add_usable(struct boot_info *bi, uint64_t base, uint64_t len)
{
	add_range(bi->usable, &bi->nusable, base, len);
	if (base + len > bi->phys_top)
		bi->phys_top = base + len;
}

static void parse_mmap(struct boot_info *bi, const struct mb2_mmap *m)
{
	const uint8_t *p = (const uint8_t *)(m + 1);
	const uint8_t *end = (const uint8_t *)m + m->tag.size;

	for (; p + sizeof(struct mb2_mmap_entry) <= end; p += m->entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;
		if (e->type == MB2_MMAP_AVAILABLE && e->len)
			add_usable(bi, e->base, e->len);
	}
}

/* The EFI memory map tag: descriptor size, then version, then descriptors. */
static void parse_efi_mmap(struct boot_info *bi, const struct mb2_tag *t)
{
	const uint32_t *hdr = (const uint32_t *)(t + 1);
	uint32_t stride = hdr[0];
	const uint8_t *p = (const uint8_t *)(hdr + 2);
	const uint8_t *end = (const uint8_t *)t + t->size;

	if (stride < sizeof(struct efi_mmap_entry))
		return;
	for (; p + stride <= end; p += stride) {
		const struct efi_mmap_entry *e = (const void *)p;
		if (e->type < 32 && (EFI_TYPES_USABLE >> e->type & 1) && e->pages)
			add_usable(bi, e->phys, e->pages << 12);
	}
}

static void parse_module(struct boot_info *bi, const struct mb2_module *m)
{
	struct boot_module *bm;

	if (bi->nmodules == BOOT_MAX_MODULES) {
		printk("boot: too many modules, ignoring one\n");
		return;
	}
	bm = &bi->modules[bi->nmodules++];
	bm->start = m->start;
	bm->end = m->end;
	strlcpy(bm->cmdline, m->cmdline, sizeof(bm->cmdline));
	add_range(bi->reserved, &bi->nreserved, m->start, m->end - m->start);
}

/* Keeps the RSDP copy; the 2.0+ one wins over the 1.0 one whatever the order. */
static void parse_rsdp(struct boot_info *bi, const struct mb2_tag *t)
{
	uint32_t len = t->size - sizeof(*t);

	if (t->type == MB2_TAG_ACPI_OLD && bi->rsdp_len > 20)
		return;
	if (len > sizeof(bi->rsdp))
		len = sizeof(bi->rsdp);
	memcpy(bi->rsdp, t + 1, len);
	bi->rsdp_len = len;
}

/*
 * The memory map comes from the Multiboot2 map (type 6), which GRUB gives
 * under BIOS and UEFI; the EFI map (type 17) is used only when there is no
 * type 6 tag, so that no range is counted twice.
 */
void multiboot_parse_tags(const uint8_t *info, struct boot_info *bi)
{
	uint32_t total = *(const uint32_t *)info;
	const uint8_t *p = info + 8;
	const struct mb2_tag *efi_mmap = NULL;
	bool have_mmap = false;

	while (p < info + total) {
		const struct mb2_tag *tag = (const void *)p;
		if (tag->type == MB2_TAG_END)
			break;
		if (tag->type == MB2_TAG_CMDLINE)
			strlcpy(bi->cmdline, (const char *)(tag + 1), BOOT_CMDLINE_MAX);
		else if (tag->type == MB2_TAG_MODULE)
			parse_module(bi, (const void *)tag);
		else if (tag->type == MB2_TAG_MMAP) {
			parse_mmap(bi, (const void *)tag);
			have_mmap = true;
		} else if (tag->type == MB2_TAG_EFI_MMAP)
			efi_mmap = tag;
		else if (tag->type == MB2_TAG_EFI64)
			bi->uefi = true;
		else if ((tag->type == MB2_TAG_ACPI_OLD || tag->type == MB2_TAG_ACPI_NEW) &&
			 tag->size > sizeof(*tag))
			parse_rsdp(bi, tag);
		p += (tag->size + 7) & ~7u;
	}
	if (!have_mmap && efi_mmap)
		parse_efi_mmap(bi, efi_mmap);
}

/* Parses the information at physical address info_pa into boot_info. */
void multiboot_parse(uint64_t info_pa)
{
	const uint8_t *info = P2V(info_pa);

	add_range(boot_info.reserved, &boot_info.nreserved, (uint64_t)_kernel_phys_start,
		  (uint64_t)_kernel_phys_end - (uint64_t)_kernel_phys_start);
	add_range(boot_info.reserved, &boot_info.nreserved, info_pa, *(const uint32_t *)info);
	multiboot_parse_tags(info, &boot_info);
}

void multiboot_print_summary(void)
{
	uint64_t total = 0;

	for (int i = 0; i < boot_info.nusable; i++) {
		const struct mem_range *r = &boot_info.usable[i];
		printk_info("  usable  %016lx-%016lx %6lu KiB\n", r->base, r->base + r->len,
			    r->len >> 10);
		total += r->len;
	}
	for (int i = 0; i < boot_info.nreserved; i++) {
		const struct mem_range *r = &boot_info.reserved[i];
		printk_info("  in use  %016lx-%016lx %6lu KiB\n", r->base, r->base + r->len,
			    r->len >> 10);
	}
	printk_info("memory: %lu MiB usable in %d ranges, %d module(s)\n", total >> 20,
		    boot_info.nusable, boot_info.nmodules);
}

/* Appends a tag of type and payload to the information at buf[*len]. */
static void put_tag(uint8_t *buf, uint32_t *len, uint32_t type, const void *payload, uint32_t size)
{
	struct mb2_tag t = {type, (uint32_t)sizeof(t) + size};

	memcpy(buf + *len, &t, sizeof(t));
	memcpy(buf + *len + sizeof(t), payload, size);
	*len += (t.size + 7) & ~7u;
}

/* Information as GRUB may give it under UEFI: an EFI system table and an
 * EFI memory map with conventional, reserved and boot-services memory,
 * then (second pass) also a Multiboot2 map, which must win. */
void multiboot_selftest(void)
{
	static uint8_t info[512];
	static struct boot_info bi;
	const struct {
		uint32_t stride, version;
		struct efi_mmap_entry e[3];
	} efi = {
	    sizeof(struct efi_mmap_entry),
	    1,
	    {{7, 0, 0x100000, 0, 16, 0}, {0, 0, 0x110000, 0, 4, 0}, {4, 0, 0x200000, 0, 8, 0}}};
	const struct {
		uint32_t entry_size, entry_version;
		struct mb2_mmap_entry e;
	} mmap = {sizeof(struct mb2_mmap_entry), 0, {0x100000, 0x400000, MB2_MMAP_AVAILABLE, 0}};
	uint64_t systab = 0x7f000000;
	uint32_t len = 8;

	put_tag(info, &len, MB2_TAG_EFI64, &systab, sizeof(systab));
	put_tag(info, &len, MB2_TAG_EFI_MMAP, &efi, sizeof(efi));
	put_tag(info, &len, MB2_TAG_END, NULL, 0);
	memcpy(info, &len, sizeof(len));
	memset(&bi, 0, sizeof(bi));
	multiboot_parse_tags(info, &bi);
	KTEST_OK(bi.uefi && bi.nusable == 2 && bi.usable[0].base == 0x100000 &&
		     bi.usable[0].len == 0x10000 && bi.usable[1].base == 0x200000 &&
		     bi.usable[1].len == 0x8000 && bi.phys_top == 0x208000,
		 "multiboot: UEFI, no Multiboot2 map: the EFI map's usable types (%d ranges)",
		 bi.nusable);

	len -= 8; /* drop the end tag, add a Multiboot2 map */
	put_tag(info, &len, MB2_TAG_MMAP, &mmap, sizeof(mmap));
	put_tag(info, &len, MB2_TAG_END, NULL, 0);
	memcpy(info, &len, sizeof(len));
	memset(&bi, 0, sizeof(bi));
	multiboot_parse_tags(info, &bi);
	KTEST_OK(bi.nusable == 1 && bi.usable[0].len == 0x400000,
		 "multiboot: with both maps, only the Multiboot2 one counts (%d ranges)",
		 bi.nusable);
}

/* The ACPI tags: the 2.0+ RSDP copy wins over the 1.0 one in either order. */
void multiboot_rsdp_selftest(void)
{
	static uint8_t info[256];
	static struct boot_info bi;
	uint8_t v1[20] = "RSD PTR 1", v2[36] = "RSD PTR 2";
	uint32_t len = 8;

	put_tag(info, &len, MB2_TAG_ACPI_NEW, v2, sizeof(v2));
	put_tag(info, &len, MB2_TAG_ACPI_OLD, v1, sizeof(v1));
	put_tag(info, &len, MB2_TAG_END, NULL, 0);
	memcpy(info, &len, sizeof(len));
	memset(&bi, 0, sizeof(bi));
	multiboot_parse_tags(info, &bi);
	KTEST_OK(bi.rsdp_len == 36 && bi.rsdp[8] == '2',
		 "multiboot: the ACPI 2.0 RSDP tag wins over a later 1.0 one");
	len = 8;
	put_tag(info, &len, MB2_TAG_ACPI_OLD, v1, sizeof(v1));
	put_tag(info, &len, MB2_TAG_END, NULL, 0);
	memcpy(info, &len, sizeof(len));
	memset(&bi, 0, sizeof(bi));
	multiboot_parse_tags(info, &bi);
	KTEST_OK(bi.rsdp_len == 20 && bi.rsdp[8] == '1',
		 "multiboot: a lone ACPI 1.0 RSDP tag is kept");
}
