/*
 * Partition tables (docs/block.md, "Partitions"): MBR with its extended
 * chain of logical partitions, and GPT with its CRCs checked.  The parser
 * (partition_parse.c) is pure C over a sector-reading callback, so the
 * host unit tests feed it hostile tables; partition.c runs it on a disk.
 *
 * A table is untrusted input: every size and offset is checked, a
 * partition never reaches past the disk's end (one that starts past it is
 * dropped, one that ends past it is cut, as Linux), and walks are bounded.
 */
#ifndef BLOCK_PARTITION_H
#define BLOCK_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#define PART_MAX 15 /* partitions 1..15: virtio-blk's 16 minors per disk */

struct gendisk;

struct part_source {
	/* Reads logical block lba (lbsize bytes) into buf: 0 or -EIO. */
	int (*read)(void *ctx, uint64_t lba, void *buf);
	void *ctx;
	uint64_t nblocks; /* the disk's size in logical blocks */
	uint32_t lbsize;  /* 512..4096, a power of two */
};

/* One partition found, in 512-byte sectors. */
struct part_found {
	uint64_t start, nr_sects;
};

/*
 * Fills found[1..PART_MAX] (index = partition number; nr_sects 0: none)
 * from the disk's table: 1 for MBR, 2 for GPT, 0 for no table, -EIO when
 * the disk could not be read.  buf is scratch of lbsize bytes.
 */
int partition_parse(const struct part_source *src, struct part_found found[PART_MAX + 1],
		    void *buf);

/* Under d->scan_lock: reads d's table and publishes its partitions
 * (genhd.c's disk_install_part). */
void partition_scan(struct gendisk *d);

#endif
