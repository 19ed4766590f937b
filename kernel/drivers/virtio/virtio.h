/*
 * virtio 1.x over PCI, modern transport only (virtio 1.2, 4.1): the
 * device's capabilities (common configuration, notifications, ISR,
 * device configuration), feature negotiation and split virtqueues
 * (virtqueue.c).  One small layer for every virtio driver: the block
 * driver now (drivers/block/virtio_blk.c), a network driver later.
 * docs/drivers.md describes the rings' memory ordering and lifetimes.
 */
#ifndef DRIVERS_VIRTIO_H
#define DRIVERS_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/spinlock.h"

struct pci_dev;

#define VIRTIO_PCI_VENDOR 0x1af4

/* Feature bits the transport knows (virtio 1.2, 6). */
#define VIRTIO_F_INDIRECT_DESC 28
#define VIRTIO_F_EVENT_IDX     29
#define VIRTIO_F_VERSION_1     32

/* Device status bits (2.1). */
#define VIRTIO_STATUS_ACK	  1
#define VIRTIO_STATUS_DRIVER	  2
#define VIRTIO_STATUS_DRIVER_OK	  4
#define VIRTIO_STATUS_FEATURES_OK 8
#define VIRTIO_STATUS_FAILED	  128

#define VQ_MAX_SIZE 256 /* descriptors per queue we use at most */

/* One buffer of a request: physical memory the device reads, or writes
 * when device_writes. */
struct vq_buf {
	uint64_t pa;
	uint32_t len;
	bool device_writes;
};

struct virtqueue;
/* A request came back: its token (vq_add's) and the bytes the device
 * wrote.  Runs in the queue's interrupt, any CPU, no lock held: it must
 * not sleep; it may add new requests. */
typedef void (*vq_done_fn)(struct virtqueue *vq, void *token, uint32_t len);

struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/*
 * A split virtqueue (2.7).  The three rings are in frames of the direct
 * map, shared with the device: the descriptor table and the available
 * ring are written by us, the used ring by the device.
 */
struct virtqueue {
	/* Protects the rings' driver side, the free list, tokens and the
	 * counters below; taken in the interrupt too (spin_lock). */
	struct spinlock lock;
	struct virtio_dev *vd; /* its device: lives as long (boot, forever) */
	uint16_t index, size;
	struct vring_desc *desc;
	volatile uint16_t *avail; /* flags, idx, ring[size], used_event */
	volatile uint16_t *used;  /* flags, idx, {u32 id, u32 len}[size], avail_event */
	uint16_t free_head, num_free;
	uint16_t avail_idx;  /* the next free slot of the available ring (ours) */
	uint16_t kicked_idx; /* avail_idx when the device was last notified */
	uint16_t last_used;  /* the used entries taken so far */
	volatile uint16_t *notify;
	bool event_idx; /* VIRTIO_F_EVENT_IDX negotiated */
	/* The token of each chain in flight, by its head descriptor: the
	 * caller's request, kept alive by the caller until done runs. */
	void *tokens[VQ_MAX_SIZE];
	vq_done_fn done;
	void *priv;	/* the driver's */
	uint64_t kicks; /* notifications sent, under the lock */
};

/*
 * A virtio PCI device once virtio_dev_init has found its capabilities.
 * Constant after the driver's probe, but for the queues' own state.
 */
struct virtio_dev {
	struct pci_dev *pci;
	volatile uint8_t *common, *isr, *devcfg, *notify_base;
	uint32_t notify_mult;
	uint64_t features; /* negotiated */
	int nvqs;
	struct virtqueue *vqs; /* kmalloc'd, nvqs of them */
	bool msix;	       /* a vector per queue, else INTx and the ISR */
};

/* The device type of a virtio PCI function (1: net, 2: block...), 0 if
 * it is none. */
int virtio_pci_device_type(const struct pci_dev *d);
/*
 * Finds the modern capabilities, resets the device and negotiates: the
 * features both offer among wanted (VERSION_1 is required).  0, or -ENODEV
 * (a legacy-only device, no VERSION_1, FEATURES_OK refused).
 */
int virtio_dev_init(struct virtio_dev *vd, struct pci_dev *d, uint64_t wanted);
static inline bool virtio_has(const struct virtio_dev *vd, int bit)
{
	return vd->features >> bit & 1;
}
/* Sets up n queues (at most the device's), their interrupts (MSI-X, a
 * vector per queue, else the INTx line) and calls done per completion.
 * 0 or -errno; then virtio_driver_ok. */
int virtio_setup_queues(struct virtio_dev *vd, int n, vq_done_fn done, void *priv,
			const char *irq_name);
void virtio_driver_ok(struct virtio_dev *vd);
/* How many queues the device offers. */
int virtio_max_queues(const struct virtio_dev *vd);
/* Device configuration at off, read consistently (config_generation). */
uint64_t virtio_cfg_read(const struct virtio_dev *vd, uint32_t off, int width);

/*
 * Queues a request of n buffers (the device-readable ones first, at most
 * VQ_MAX_SIZE), token its handle, and tells the device unless it said it
 * does not need to hear (its avail_event, or NO_NOTIFY); -ENOSPC when
 * fewer than n descriptors are free.  Any context, no lock of the queue
 * held.  The buffers' memory and token stay the caller's until done
 * returns them.
 */
int vq_submit(struct virtqueue *vq, const struct vq_buf *bufs, int n, void *token);
/* The interrupt's work: takes every used entry and calls done for it. */
void vq_interrupt(struct virtqueue *vq);
/* Sets up queue vq's rings (virtio_setup_queues' part). */
int vq_init(struct virtqueue *vq, struct virtio_dev *vd, uint16_t index, uint16_t size);
uint64_t vq_desc_pa(const struct virtqueue *vq);
uint64_t vq_avail_pa(const struct virtqueue *vq);
uint64_t vq_used_pa(const struct virtqueue *vq);
void virtqueue_selftest(void);

#endif
