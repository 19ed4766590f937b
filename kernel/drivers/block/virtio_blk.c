/*
 * virtio-blk (virtio 1.2, 5.2): a disk per device, /dev/vda, /dev/vdb...
 * in probe order, registered with the block layer (block/blkdev.h).  Each
 * bio becomes one request on the submitting CPU's queue: a header the
 * device reads, the bio's segments, a status byte the device writes; many
 * are in flight at once, and each completes in its queue's interrupt on
 * whichever CPU the vector names.
 */
#include "arch/x86_64/percpu.h"
#include "block/blkdev.h"
#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "sched/wait.h"
#include <uapi/errno.h>

#define VIRTIO_ID_BLOCK 2

/* Feature bits (5.2.3). */
#define VIRTIO_BLK_F_SEG_MAX  2
#define VIRTIO_BLK_F_RO	      5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH    9
#define VIRTIO_BLK_F_MQ	      12

/* Device configuration (5.2.4). */
#define CFG_CAPACITY   0
#define CFG_SEG_MAX    12
#define CFG_BLK_SIZE   20
#define CFG_NUM_QUEUES 34

/* Request types and status (5.2.6). */
#define VIRTIO_BLK_T_IN	   0
#define VIRTIO_BLK_T_OUT   1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_S_OK	   0

#define VBLK_MAX_QUEUES 4
#define VBLK_MAX_DISKS	16 /* vda..vdp: minors 0..255 of VIRTBLK_MAJOR */

/* A device.  Constant after probe but for the queues (their locks) and
 * the waiters. */
struct virtblk {
	struct virtio_dev vd;
	struct gendisk *disk; /* held from probe on: disks are never removed */
	/* Submitters waiting for free descriptors; woken at each completion. */
	struct wait_queue space_wq;
};

/*
 * One request.  kmalloc'd (a small object: direct-mapped, inside one
 * page, so hdr and status have physical addresses) by submit, owned by
 * the queue from vq_submit until its completion frees it.  The bio is
 * the layer's, held for us until bio_endio.
 */
struct vblk_req {
	struct {
		uint32_t type, reserved;
		uint64_t sector;
	} hdr;
	uint8_t status;
	struct bio *bio;
};

static int ndisks; /* probe order: boot CPU only */

static void vblk_done(struct virtqueue *vq, void *token, uint32_t len)
{
	struct virtblk *vb = vq->priv;
	struct vblk_req *r = token;
	struct bio *b = r->bio;
	int status = r->status == VIRTIO_BLK_S_OK ? 0 : -EIO;

	(void)len;
	kfree(r);
	bio_endio(b, status);
	wake_up(&vb->space_wq);
}

/* The buffers of r: header, segments, status. */
static int vblk_bufs(struct vblk_req *r, struct vq_buf *bufs)
{
	struct bio *b = r->bio;
	int n = 0;

	bufs[n++] = (struct vq_buf){V2P(&r->hdr), sizeof(r->hdr), false};
	for (unsigned int i = 0; i < b->nseg && b->op != BIO_FLUSH; i++)
		bufs[n++] = (struct vq_buf){b->seg[i].pa, b->seg[i].len, b->op == BIO_READ};
	bufs[n++] = (struct vq_buf){V2P(&r->status), 1, true};
	return n;
}

/* Queues r on the CPU's queue, sleeping while every descriptor is in use. */
static void vblk_queue(struct virtblk *vb, struct vblk_req *r)
{
	struct vq_buf bufs[BIO_MAX_SEGS + 2];
	int n = vblk_bufs(r, bufs);
	struct virtqueue *vq = &vb->vd.vqs[this_cpu()->id % vb->vd.nvqs];

	for (;;) {
		DEFINE_WAIT(we);
		int err;

		prepare_to_wait(&vb->space_wq, &we);
		err = vq_submit(vq, bufs, n, r);
		if (err == -ENOSPC)
			schedule();
		finish_wait(&vb->space_wq, &we);
		if (err != -ENOSPC)
			return;
	}
}

static void vblk_submit(struct gendisk *d, struct bio *b)
{
	struct virtblk *vb = d->priv;
	struct vblk_req *r = kzalloc(sizeof(*r));

	if (!r) {
		bio_endio(b, -EIO);
		return;
	}
	r->bio = b;
	r->hdr.type = b->op == BIO_READ	   ? VIRTIO_BLK_T_IN
		      : b->op == BIO_WRITE ? VIRTIO_BLK_T_OUT
					   : VIRTIO_BLK_T_FLUSH;
	r->hdr.sector = b->op == BIO_FLUSH ? 0 : b->sector;
	r->status = 0xff; /* a device that writes nothing is no success */
	vblk_queue(vb, r);
}

static const struct disk_ops vblk_ops = {
    .submit = vblk_submit,
};

static int vblk_queues(struct virtblk *vb)
{
	int n = 1;

	if (virtio_has(&vb->vd, VIRTIO_BLK_F_MQ))
		n = (int)virtio_cfg_read(&vb->vd, CFG_NUM_QUEUES, 2);
	if (n > VBLK_MAX_QUEUES)
		n = VBLK_MAX_QUEUES;
	if (n > virtio_max_queues(&vb->vd))
		n = virtio_max_queues(&vb->vd);
	return n < 1 ? 1 : n;
}

/* The gendisk of a negotiated device, its queues running. */
static int vblk_disk(struct virtblk *vb)
{
	struct gendisk *d = disk_alloc();

	if (!d)
		return -ENOMEM;
	snprintk(d->name, sizeof d->name, "vd%c", 'a' + ndisks);
	d->major = VIRTBLK_MAJOR;
	d->first_minor = (uint32_t)ndisks * DISK_MAX_PARTS;
	d->minors = DISK_MAX_PARTS;
	d->capacity = virtio_cfg_read(&vb->vd, CFG_CAPACITY, 8);
	d->lbsize = 512;
	if (virtio_has(&vb->vd, VIRTIO_BLK_F_BLK_SIZE)) {
		uint32_t bs = (uint32_t)virtio_cfg_read(&vb->vd, CFG_BLK_SIZE, 4);
		if (bs >= 512 && bs <= 4096 && !(bs & (bs - 1)))
			d->lbsize = bs;
	}
	d->ro = virtio_has(&vb->vd, VIRTIO_BLK_F_RO);
	d->flush_ok = virtio_has(&vb->vd, VIRTIO_BLK_F_FLUSH);
	d->ops = &vblk_ops;
	d->priv = vb;
	vb->disk = d;
	return 0;
}

static int vblk_probe(struct pci_dev *pd)
{
	uint64_t wanted = 1UL << VIRTIO_F_EVENT_IDX | 1UL << VIRTIO_BLK_F_RO |
			  1UL << VIRTIO_BLK_F_BLK_SIZE | 1UL << VIRTIO_BLK_F_FLUSH |
			  1UL << VIRTIO_BLK_F_MQ | 1UL << VIRTIO_BLK_F_SEG_MAX;
	struct virtblk *vb;
	int err;

	if (virtio_pci_device_type(pd) != VIRTIO_ID_BLOCK)
		return -ENODEV;
	if (ndisks == VBLK_MAX_DISKS || !(vb = kzalloc(sizeof(*vb))))
		return -ENOMEM;
	wait_queue_init(&vb->space_wq, "virtblk_space");
	if ((err = virtio_dev_init(&vb->vd, pd, wanted)))
		goto bad;
	if (virtio_has(&vb->vd, VIRTIO_BLK_F_SEG_MAX) &&
	    virtio_cfg_read(&vb->vd, CFG_SEG_MAX, 4) < BIO_MAX_SEGS) {
		err = -ENODEV; /* a bio's segments would not fit in one request */
		goto bad;
	}
	if ((err = virtio_setup_queues(&vb->vd, vblk_queues(vb), vblk_done, vb, "virtio-blk")) ||
	    (err = vblk_disk(vb)))
		goto bad;
	virtio_driver_ok(&vb->vd);
	ndisks++;
	printk("virtio-blk %s: %lu sectors (%lu MiB), block %u, %d queue%s, %s%s%s%s\n",
	       vb->disk->name, vb->disk->capacity, vb->disk->capacity >> 11, vb->disk->lbsize,
	       vb->vd.nvqs, vb->vd.nvqs == 1 ? "" : "s", vb->vd.msix ? "MSI-X" : "INTx",
	       vb->disk->ro ? ", read-only" : "", vb->disk->flush_ok ? ", flush" : "",
	       virtio_has(&vb->vd, VIRTIO_F_EVENT_IDX) ? ", event index" : "");
	if ((err = disk_add(vb->disk)))
		printk("virtio-blk %s: not registered (%d)\n", vb->disk->name, err);
	return 0; /* the device is ours even if the layer refused its disk */
bad:
	/* The device is left failed; vb and what the queues took stay (a
	 * few pages, once, at boot): a device that may have been given
	 * their addresses must not see them reused. */
	return err;
}

static const struct pci_driver virtio_blk_driver = {
    .name = "virtio-pci",
    .vendor = VIRTIO_PCI_VENDOR,
    .dev_min = 0x1000,
    .dev_max = 0x107f,
    .probe = vblk_probe,
};
PCI_DRIVER(virtio_blk_driver);
