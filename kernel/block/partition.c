/*
 * Reading a disk's partition table at registration and at BLKRRPART
 * (partition_parse.c does the parsing), and publishing what it found as
 * block_devices with their /dev nodes.
 */
#include "block/internal.h"
#include "block/partition.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/layout.h"

/* The parser's reads, through the whole disk's block_device (a frame:
 * bios want direct-mapped memory). */
struct scan_ctx {
	struct block_device *whole;
	void *frame;
};

static int scan_read(void *arg, uint64_t lba, void *buf)
{
	struct scan_ctx *c = arg;
	uint32_t lbsize = c->whole->disk->lbsize;
	int err = blkdev_rw_kernel(c->whole, BIO_READ, lba * lbsize, c->frame, lbsize);

	if (!err)
		memcpy(buf, c->frame, lbsize);
	return err;
}

void partition_scan(struct gendisk *d)
{
	struct part_found found[PART_MAX + 1];
	struct scan_ctx c = {d->parts[0], NULL};
	uint64_t pa = frame_alloc(), pb = frame_alloc();
	struct part_source src = {scan_read, &c, disk_capacity(d) / (d->lbsize / SECTOR_SIZE),
				  d->lbsize};
	int kind;

	if (!pa || !pb || !c.whole) {
		printk("block: %s: no memory to read its partition table\n", d->name);
		goto out;
	}
	c.frame = P2V(pa);
	kind = partition_parse(&src, found, P2V(pb));
	if (kind < 0)
		printk("block: %s: cannot read its partition table (%d)\n", d->name, kind);
	for (uint32_t i = 1; i <= PART_MAX && kind > 0; i++) {
		struct block_device *b;

		if (!found[i].nr_sects)
			continue;
		if (!(b = bdev_alloc(d, i, found[i].start, found[i].nr_sects))) {
			printk("block: %s: no memory for partition %u\n", d->name, i);
			break;
		}
		disk_install_part(d, b);
	}
out:
	if (pa)
		frame_unref(pa);
	if (pb)
		frame_unref(pb);
}
