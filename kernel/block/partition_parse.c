/*
 * Partition-table parsing (partition.h): MBR (primary, extended, logical)
 * and GPT.  Pure C over a sector-reading callback: the kernel runs it on a
 * disk, the host unit tests (tests/unit/test_partition.c) on crafted and
 * corrupted tables.  Every field read from the disk is untrusted.
 */
#include "block/partition.h"
#include "lib/crc32.h"

#ifndef EIO
#define EIO 5 /* uapi/errno.h's, without it (the host build) */
#endif

#define MBR_SIG_OFF    510
#define MBR_TABLE_OFF  446
#define MBR_EBR_MAX    64 /* links of an extended chain followed, at most */
#define GPT_ENTRY_MAX  4096
#define GPT_ENTRY_SIZE 128

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* Sectors of 512 bytes in n logical blocks. */
static uint64_t to_sectors(const struct part_source *src, uint64_t n)
{
	return n * (src->lbsize / 512);
}

/*
 * Records partition no at [start, start + len) in logical blocks: dropped
 * when it starts past the disk or is empty, cut at the disk's end (Linux's
 * "extends beyond EOD, truncated").
 */
static void put_part(const struct part_source *src, struct part_found *found, unsigned int no,
		     uint64_t start, uint64_t len)
{
	if (no < 1 || no > PART_MAX || !len || start >= src->nblocks)
		return;
	if (len > src->nblocks - start)
		len = src->nblocks - start;
	found[no].start = to_sectors(src, start);
	found[no].nr_sects = to_sectors(src, len);
}

/* ---- MBR ---- */

static bool mbr_signed(const uint8_t *b)
{
	return b[MBR_SIG_OFF] == 0x55 && b[MBR_SIG_OFF + 1] == 0xaa;
}

static bool is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

/* Entry i of the table in b: its type, start and length (blocks). */
static uint8_t mbr_entry(const uint8_t *b, int i, uint64_t *start, uint64_t *len)
{
	const uint8_t *e = b + MBR_TABLE_OFF + 16 * i;

	*start = get_le(e + 8, 4);
	*len = get_le(e + 12, 4);
	return e[4];
}

/*
 * The logical partitions of the extended partition at [ext, ext + ext_len):
 * a chain of boot records, each naming one logical partition (relative to
 * itself) and the next record (relative to ext).  Numbered from 5; a chain
 * that loops, leaves the extended partition or goes on too long ends.
 */
static int mbr_logical(const struct part_source *src, struct part_found *found, uint64_t ext,
		       uint64_t ext_len, uint8_t *buf)
{
	uint64_t ebr = ext;
	unsigned int no = 5;

	for (int link = 0; link < MBR_EBR_MAX && no <= PART_MAX; link++) {
		uint64_t start, len, next = 0;
		bool taken;
		int i;

		if (ebr >= src->nblocks || src->read(src->ctx, ebr, buf))
			return link ? 0 : -EIO;
		if (!mbr_signed(buf))
			return 0;
		/* The first data entry is the partition, the first extended
		 * one the next link (Linux reads the four the same way). */
		for (i = 0, taken = false; i < 4; i++) {
			uint8_t type = mbr_entry(buf, i, &start, &len);

			if (!type || !len)
				continue;
			if (is_extended(type)) {
				if (!next)
					next = start;
			} else if (!taken) {
				put_part(src, found, no++, ebr + start, len);
				taken = true;
			}
		}
		if (!next || next >= ext_len || ext + next <= ebr)
			return 0; /* the end, or a link backwards (a loop) */
		ebr = ext + next;
	}
	return 0;
}

static bool mbr_protective(const uint8_t *b)
{
	uint64_t start, len;

	for (int i = 0; i < 4; i++)
		if (mbr_entry(b, i, &start, &len) == 0xee)
			return true;
	return false;
}

static int mbr_parse(const struct part_source *src, struct part_found *found, uint8_t *buf)
{
	uint64_t ext = 0, ext_len = 0;

	for (int i = 0; i < 4; i++) {
		uint64_t start, len;
		uint8_t type = mbr_entry(buf, i, &start, &len);

		if (!type)
			continue;
		if (is_extended(type)) {
			/* Linux shows the extended partition itself as 2 sectors
			 * (1 KiB): enough for a boot loader, never its data. */
			uint64_t stub = src->lbsize < 1024 ? 1024 / src->lbsize : 1;

			put_part(src, found, i + 1, start, len < stub ? len : stub);
			if (!ext && start < src->nblocks)
				ext = start, ext_len = len;
			continue;
		}
		put_part(src, found, i + 1, start, len);
	}
	if (ext && ext_len)
		return mbr_logical(src, found, ext, ext_len, buf);
	return 0;
}

/* ---- GPT ---- */

struct gpt_header {
	uint64_t my_lba, alt_lba, first_usable, last_usable, entries_lba;
	uint32_t nentries, entry_size, entries_crc;
};

static bool gpt_header_ok(const struct part_source *src, uint8_t *b, uint64_t lba,
			  struct gpt_header *h)
{
	static const char sig[8] = "EFI PART";
	uint32_t hsize = get_le(b + 12, 4), crc = get_le(b + 16, 4);

	for (int i = 0; i < 8; i++)
		if (b[i] != (uint8_t)sig[i])
			return false;
	if (hsize < 92 || hsize > src->lbsize)
		return false;
	b[16] = b[17] = b[18] = b[19] = 0; /* the CRC covers the header with its field zero */
	if (crc32_update(0, b, hsize) != crc)
		return false;
	h->my_lba = get_le(b + 24, 8);
	h->alt_lba = get_le(b + 32, 8);
	h->first_usable = get_le(b + 40, 8);
	h->last_usable = get_le(b + 48, 8);
	h->entries_lba = get_le(b + 72, 8);
	h->nentries = get_le(b + 80, 4);
	h->entry_size = get_le(b + 84, 4);
	h->entries_crc = get_le(b + 88, 4);
	return h->my_lba == lba && h->first_usable <= h->last_usable &&
	       h->last_usable < src->nblocks && h->entry_size == GPT_ENTRY_SIZE && h->nentries &&
	       h->nentries <= GPT_ENTRY_MAX && h->entries_lba < src->nblocks &&
	       (uint64_t)h->nentries * GPT_ENTRY_SIZE / src->lbsize <=
		   src->nblocks - h->entries_lba;
}

/* The entries' blocks, one at a time: per entry, fn(entry bytes, index);
 * 0 or -EIO. */
static int gpt_walk(const struct part_source *src, const struct gpt_header *h, uint8_t *buf,
		    void (*fn)(void *arg, const uint8_t *e, uint32_t i), void *arg)
{
	uint32_t per = src->lbsize / GPT_ENTRY_SIZE, i = 0;

	for (uint64_t lba = h->entries_lba; i < h->nentries; lba++) {
		if (src->read(src->ctx, lba, buf))
			return -EIO;
		for (uint32_t k = 0; k < per && i < h->nentries; k++, i++)
			fn(arg, buf + k * GPT_ENTRY_SIZE, i);
	}
	return 0;
}

static void gpt_crc_step(void *arg, const uint8_t *e, uint32_t i)
{
	(void)i;
	*(uint32_t *)arg = crc32_update(*(uint32_t *)arg, e, GPT_ENTRY_SIZE);
}

struct gpt_take {
	const struct part_source *src;
	const struct gpt_header *h;
	struct part_found *found;
};

/* A used entry inside the usable area becomes partition i + 1 (Linux
 * numbers GPT partitions by slot, gaps kept). */
static void gpt_take_step(void *arg, const uint8_t *e, uint32_t i)
{
	struct gpt_take *t = arg;
	uint64_t first = get_le(e + 32, 8), last = get_le(e + 40, 8);
	bool used = false;

	for (int k = 0; k < 16; k++)
		used |= e[k] != 0;
	if (!used || first > last || first < t->h->first_usable || last > t->h->last_usable)
		return;
	put_part(t->src, t->found, i + 1, first, last - first + 1);
}

/* The header at lba with its entries' CRC right: true and *h. */
static int gpt_read_header(const struct part_source *src, uint64_t lba, uint8_t *buf,
			   struct gpt_header *h)
{
	uint32_t crc = 0;

	if (lba >= src->nblocks || src->read(src->ctx, lba, buf))
		return -EIO;
	if (!gpt_header_ok(src, buf, lba, h))
		return 1;
	if (gpt_walk(src, h, buf, gpt_crc_step, &crc))
		return -EIO;
	return crc == h->entries_crc ? 0 : 1;
}

/* The primary header at block 1, or the backup at the last block (Linux's
 * find_valid_gpt): 0 and found filled, 1 for none valid, -EIO. */
static int gpt_parse(const struct part_source *src, struct part_found *found, uint8_t *buf)
{
	struct gpt_header h;
	struct gpt_take take = {src, &h, found};
	int r = gpt_read_header(src, 1, buf, &h);

	if (r > 0)
		r = gpt_read_header(src, src->nblocks - 1, buf, &h);
	if (r)
		return r;
	return gpt_walk(src, &h, buf, gpt_take_step, &take);
}

int partition_parse(const struct part_source *src, struct part_found found[PART_MAX + 1], void *buf)
{
	int r;

	for (int i = 0; i <= PART_MAX; i++)
		found[i] = (struct part_found){0, 0};
	if (src->nblocks < 2 || src->lbsize < 512 || src->lbsize > 4096 ||
	    (src->lbsize & (src->lbsize - 1)))
		return 0;
	if (src->read(src->ctx, 0, buf))
		return -EIO;
	if (!mbr_signed(buf))
		return 0;
	if (mbr_protective(buf)) {
		r = gpt_parse(src, found, buf);
		if (r <= 0)
			return r ? r : 2;
		for (int i = 0; i <= PART_MAX; i++) /* a bad GPT gives nothing */
			found[i] = (struct part_found){0, 0};
		return 0;
	}
	r = mbr_parse(src, found, buf);
	return r ? r : 1;
}
