/*
 * Unit tests of kernel/block/partition_parse.c (cmocka, ASan+UBSan): MBR
 * primaries, extended chains (looping, backwards, too long), partitions
 * past the disk's end, GPT with its primary or backup header, each CRC and
 * bound broken in turn, 4 KiB logical blocks, and thousands of randomly
 * corrupted tables: the parser never reads outside the disk and never
 * reports a partition outside it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "block/partition.h"
#include "lib/crc32.h"

struct disk {
	uint8_t *bytes;
	uint64_t nblocks;
	uint32_t lbsize;
	unsigned long reads;
};

static int disk_read(void *ctx, uint64_t lba, void *buf)
{
	struct disk *d = ctx;

	assert_true(lba < d->nblocks); /* the parser never asks past the end */
	d->reads++;
	memcpy(buf, d->bytes + lba * d->lbsize, d->lbsize);
	return 0;
}

static struct disk *disk_new(uint64_t nblocks, uint32_t lbsize)
{
	struct disk *d = calloc(1, sizeof(*d));

	d->bytes = calloc(nblocks, lbsize);
	d->nblocks = nblocks;
	d->lbsize = lbsize;
	return d;
}

static void disk_free(struct disk *d)
{
	free(d->bytes);
	free(d);
}

/* Parses d: the parser's result; found filled. */
static int parse(struct disk *d, struct part_found *found)
{
	struct part_source src = {disk_read, d, d->nblocks, d->lbsize};
	uint8_t *buf = malloc(d->lbsize);
	int r = partition_parse(&src, found, buf);

	free(buf);
	return r;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static void mbr_entry(struct disk *d, uint64_t lba, int i, uint8_t type, uint32_t start,
		      uint32_t len)
{
	uint8_t *s = d->bytes + lba * d->lbsize, *e = s + 446 + 16 * i;

	e[4] = type;
	put_le(e + 8, start, 4);
	put_le(e + 12, len, 4);
	s[510] = 0x55;
	s[511] = 0xaa;
}

static void test_no_table(void **state)
{
	struct part_found f[PART_MAX + 1];
	struct disk *d = disk_new(64, 512);

	(void)state;
	assert_int_equal(parse(d, f), 0);
	for (int i = 0; i <= PART_MAX; i++)
		assert_int_equal(f[i].nr_sects, 0);
	disk_free(d);
}

static void test_mbr_primaries_and_eod(void **state)
{
	struct part_found f[PART_MAX + 1];
	struct disk *d = disk_new(1000, 512);

	(void)state;
	mbr_entry(d, 0, 0, 0x83, 10, 100);
	mbr_entry(d, 0, 1, 0x83, 900, 500); /* cut at the end */
	mbr_entry(d, 0, 2, 0x83, 1000, 10); /* starts at the end: dropped */
	mbr_entry(d, 0, 3, 0x83, 500, 0);   /* empty: dropped */
	assert_int_equal(parse(d, f), 1);
	assert_int_equal(f[1].start, 10);
	assert_int_equal(f[1].nr_sects, 100);
	assert_int_equal(f[2].start, 900);
	assert_int_equal(f[2].nr_sects, 100);
	assert_int_equal(f[3].nr_sects, 0);
	assert_int_equal(f[4].nr_sects, 0);
	disk_free(d);
}

static void test_mbr_extended_chain(void **state)
{
	struct part_found f[PART_MAX + 1];
	struct disk *d = disk_new(4000, 512);

	(void)state;
	mbr_entry(d, 0, 1, 0x0f, 1000, 2000);
	mbr_entry(d, 1000, 0, 0x83, 10, 50);
	mbr_entry(d, 1000, 1, 0x05, 200, 100);
	mbr_entry(d, 1200, 1, 0x05, 400, 100); /* the link before the data entry */
	mbr_entry(d, 1200, 2, 0x83, 5, 20);
	mbr_entry(d, 1400, 0, 0x83, 1, 10);
	assert_int_equal(parse(d, f), 1);
	assert_int_equal(f[2].start, 1000); /* the extended one itself, 2 sectors */
	assert_int_equal(f[2].nr_sects, 2);
	assert_int_equal(f[5].start, 1010);
	assert_int_equal(f[5].nr_sects, 50);
	assert_int_equal(f[6].start, 1205);
	assert_int_equal(f[6].nr_sects, 20);
	assert_int_equal(f[7].start, 1401);
	assert_int_equal(f[7].nr_sects, 10);
	disk_free(d);
}

/* A link to itself, backwards, or out of the extended partition ends the
 * chain; a forward chain is cut at PART_MAX. */
static void test_mbr_chain_loops(void **state)
{
	struct part_found f[PART_MAX + 1];
	struct disk *d = disk_new(100000, 512);

	(void)state;
	mbr_entry(d, 0, 0, 0x05, 100, 90000);
	mbr_entry(d, 100, 0, 0x83, 1, 1);
	mbr_entry(d, 100, 1, 0x05, 0, 10); /* to itself */
	assert_int_equal(parse(d, f), 1);
	assert_int_equal(f[5].nr_sects, 1);
	assert_int_equal(f[6].nr_sects, 0);
	for (int i = 0; i < 40; i++) { /* a long forward chain */
		mbr_entry(d, 100 + 10 * i, 0, 0x83, 1, 1);
		mbr_entry(d, 100 + 10 * i, 1, 0x05, 10 * (i + 1), 10);
	}
	d->reads = 0;
	assert_int_equal(parse(d, f), 1);
	assert_int_equal(f[PART_MAX].nr_sects, 1);
	assert_true(d->reads < 80);
	disk_free(d);
}

/* A GPT: protective MBR, header at lba 1, entries at 2, backup at the end. */
static void gpt_header(struct disk *d, uint64_t lba, uint64_t entries_lba, uint32_t nentries,
		       uint32_t esize)
{
	uint8_t *h = d->bytes + lba * d->lbsize;
	uint8_t *e = d->bytes + entries_lba * d->lbsize;
	uint64_t ebytes = (uint64_t)nentries * esize, room = (d->nblocks - entries_lba) * d->lbsize;

	memset(h, 0, 92);
	memcpy(h, "EFI PART", 8);
	put_le(h + 12, 92, 4);
	put_le(h + 24, lba, 8);
	put_le(h + 32, lba == 1 ? d->nblocks - 1 : 1, 8);
	put_le(h + 40, 34, 8);
	put_le(h + 48, d->nblocks - 34, 8);
	put_le(h + 72, entries_lba, 8);
	put_le(h + 80, nentries, 4);
	put_le(h + 84, esize, 4);
	put_le(h + 88, crc32_update(0, e, ebytes < room ? ebytes : room), 4);
	put_le(h + 16, crc32_update(0, h, 92), 4);
}

static void gpt_entry(struct disk *d, uint64_t entries_lba, int slot, uint64_t first, uint64_t last)
{
	uint8_t *e = d->bytes + entries_lba * d->lbsize + 128 * slot;

	memset(e, 0x5a, 32);
	put_le(e + 32, first, 8);
	put_le(e + 40, last, 8);
}

static struct disk *gpt_disk(uint32_t lbsize)
{
	struct disk *d = disk_new(2048, lbsize);
	uint64_t ents = 2, back_ents = d->nblocks - 1 - 128 * 128 / lbsize;

	mbr_entry(d, 0, 0, 0xee, 1, 2047);
	gpt_entry(d, ents, 0, 100, 199);
	gpt_entry(d, ents, 4, 300, 399);
	gpt_entry(d, ents, 5, 50, 40);	  /* first past last: dropped */
	gpt_entry(d, ents, 6, 10, 20);	  /* before the usable area: dropped */
	gpt_entry(d, ents, 30, 400, 410); /* slot 31: past PART_MAX */
	memcpy(d->bytes + back_ents * lbsize, d->bytes + ents * lbsize, 128 * 128);
	gpt_header(d, 1, ents, 128, 128);
	gpt_header(d, d->nblocks - 1, back_ents, 128, 128);
	return d;
}

static void check_gpt(struct disk *d, struct part_found *f)
{
	uint64_t k = d->lbsize / 512;

	assert_int_equal(parse(d, f), 2);
	assert_int_equal(f[1].start, 100 * k);
	assert_int_equal(f[1].nr_sects, 100 * k);
	assert_int_equal(f[5].start, 300 * k);
	assert_int_equal(f[5].nr_sects, 100 * k);
	for (int i = 2; i <= PART_MAX; i++)
		if (i != 5)
			assert_int_equal(f[i].nr_sects, 0);
}

static void test_gpt(void **state)
{
	struct part_found f[PART_MAX + 1];

	(void)state;
	for (uint32_t bs = 512; bs <= 4096; bs *= 8) {
		struct disk *d = gpt_disk(bs);

		check_gpt(d, f);
		d->bytes[bs + 20] ^= 1; /* primary header broken: the backup serves */
		check_gpt(d, f);
		d->bytes[(d->nblocks - 1) * bs] ^= 1; /* both broken: nothing */
		assert_int_equal(parse(d, f), 0);
		assert_int_equal(f[1].nr_sects, 0);
		disk_free(d);
	}
}

/* Each bound of the header refused in turn (the CRC recomputed, so only
 * the bound is wrong). */
static void test_gpt_bounds(void **state)
{
	struct part_found f[PART_MAX + 1];

	(void)state;
	for (int c = 0; c < 5; c++) {
		struct disk *d = gpt_disk(512);
		uint8_t *h = d->bytes + 512;

		d->bytes[(d->nblocks - 1) * 512] = 0; /* no backup */
		switch (c) {
		case 0: /* entries' CRC wrong */
			d->bytes[2 * 512 + 40] ^= 1;
			break;
		case 1: /* entry size not 128 */
			gpt_header(d, 1, 2, 128, 256);
			break;
		case 2: /* too many entries */
			gpt_header(d, 1, 2, 1u << 30, 128);
			break;
		case 3: /* entries past the end */
			gpt_header(d, 1, d->nblocks - 2, 128, 128);
			break;
		case 4: /* usable area past the end */
			put_le(h + 48, d->nblocks + 5, 8);
			put_le(h + 16, 0, 4);
			put_le(h + 16, crc32_update(0, h, 92), 4);
			break;
		}
		assert_int_equal(parse(d, f), 0);
		assert_int_equal(f[1].nr_sects, 0);
		disk_free(d);
	}
}

/* Random corruption of MBR and GPT tables: whatever the parser says lies
 * inside the disk (ASan checks the reads, disk_read the block numbers). */
static void test_fuzz(void **state)
{
	struct part_found f[PART_MAX + 1];

	(void)state;
	srand(1);
	for (int round = 0; round < 3000; round++) {
		struct disk *d = round % 2 ? gpt_disk(512) : disk_new(4000, 512);
		int flips = 1 + rand() % 16;

		if (!(round % 2)) {
			mbr_entry(d, 0, 0, 0x05, 100, 3000);
			mbr_entry(d, 0, 1, 0x83, 3100, 500);
			mbr_entry(d, 100, 0, 0x83, 1, 100);
			mbr_entry(d, 100, 1, 0x05, 200, 300);
			mbr_entry(d, 300, 0, 0x83, 1, 100);
		}
		for (int i = 0; i < flips; i++) {
			uint64_t lba =
			    round % 2 ? (uint64_t)(rand() % 3) : (uint64_t)(rand() % 2) * 100;
			d->bytes[lba * 512 + rand() % 512] ^= 1 << (rand() % 8);
		}
		if (round % 2 && rand() % 2) { /* a consistent header with wild fields */
			uint8_t *h = d->bytes + 512;
			put_le(h + 16, 0, 4);
			put_le(h + 16, crc32_update(0, h, 92), 4);
		}
		parse(d, f);
		for (int i = 0; i <= PART_MAX; i++) {
			assert_true(f[i].start <= d->nblocks);
			assert_true(f[i].nr_sects <= d->nblocks - f[i].start);
		}
		disk_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_table),
	    cmocka_unit_test(test_mbr_primaries_and_eod),
	    cmocka_unit_test(test_mbr_extended_chain),
	    cmocka_unit_test(test_mbr_chain_loops),
	    cmocka_unit_test(test_gpt),
	    cmocka_unit_test(test_gpt_bounds),
	    cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
