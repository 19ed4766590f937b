/*
 * The virtio PCI transport, modern interface (virtio 1.2, 4.1.4): the
 * vendor capabilities name where in the BARs the common configuration,
 * the notification area, the ISR byte and the device configuration are;
 * the common configuration drives reset, feature negotiation and queue
 * set-up.  Everything here runs in the driver's probe, at boot, on CPU 0.
 */
#include "arch/x86_64/idt.h"
#include "drivers/pci/pci.h"
#include "drivers/virtio/virtio.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* virtio_pci_cap.cfg_type */
#define CAP_COMMON 1
#define CAP_NOTIFY 2
#define CAP_ISR	   3
#define CAP_DEVICE 4

/* struct virtio_pci_common_cfg's fields */
#define COMMON_DFSELECT	   0x00
#define COMMON_DF	   0x04
#define COMMON_GFSELECT	   0x08
#define COMMON_GF	   0x0c
#define COMMON_MSIX_CONFIG 0x10
#define COMMON_NUM_QUEUES  0x12
#define COMMON_STATUS	   0x14
#define COMMON_CFG_GEN	   0x15
#define COMMON_Q_SELECT	   0x16
#define COMMON_Q_SIZE	   0x18
#define COMMON_Q_MSIX	   0x1a
#define COMMON_Q_ENABLE	   0x1c
#define COMMON_Q_NOFF	   0x1e
#define COMMON_Q_DESC	   0x20
#define COMMON_Q_DRIVER	   0x28
#define COMMON_Q_DEVICE	   0x30
#define NO_VECTOR	   0xffff
#define ISR_QUEUE	   1u

#define REG8(vd, off)  (*(volatile uint8_t *)((vd)->common + (off)))
#define REG16(vd, off) (*(volatile uint16_t *)((vd)->common + (off)))
#define REG32(vd, off) (*(volatile uint32_t *)((vd)->common + (off)))

int virtio_pci_device_type(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_PCI_VENDOR || d->device < 0x1000 || d->device > 0x107f)
		return 0;
	/* Transitional devices (0x1000..0x103f) carry the type in the
	 * subsystem id; modern ones in the device id. */
	return d->device < 0x1040 ? d->subsys_device : d->device - 0x1040;
}

/* The structure a capability at cap names, mapped; NULL if its BAR is no
 * memory BAR or it does not fit in it. */
static volatile uint8_t *cap_map(struct pci_dev *d, uint8_t cap)
{
	uint8_t bar = pci_read8(d, cap + 4);
	uint32_t off = pci_read32(d, cap + 8), len = pci_read32(d, cap + 12);
	volatile uint8_t *base;

	if (bar >= PCI_NBARS || (uint64_t)off + len > d->bar[bar].size)
		return NULL;
	base = pci_map_bar(d, bar);
	return base ? base + off : NULL;
}

/* The first capability of each type we use (4.1.4: a driver takes the
 * first it can handle). */
static int find_caps(struct virtio_dev *vd, struct pci_dev *d)
{
	for (uint8_t cap = pci_find_cap(d, PCI_CAP_ID_VENDOR, 0); cap;
	     cap = pci_find_cap(d, PCI_CAP_ID_VENDOR, cap)) {
		uint8_t type = pci_read8(d, cap + 3);
		volatile uint8_t **slot = type == CAP_COMMON   ? &vd->common
					  : type == CAP_NOTIFY ? &vd->notify_base
					  : type == CAP_ISR    ? &vd->isr
					  : type == CAP_DEVICE ? &vd->devcfg
							       : NULL;
		if (!slot || *slot)
			continue;
		*slot = cap_map(d, cap);
		if (type == CAP_NOTIFY)
			vd->notify_mult = pci_read32(d, cap + 16);
	}
	return vd->common && vd->notify_base && vd->isr && vd->devcfg ? 0 : -ENODEV;
}

static uint64_t device_features(struct virtio_dev *vd)
{
	uint64_t f;

	REG32(vd, COMMON_DFSELECT) = 0;
	f = REG32(vd, COMMON_DF);
	REG32(vd, COMMON_DFSELECT) = 1;
	return f | (uint64_t)REG32(vd, COMMON_DF) << 32;
}

static void set_status(struct virtio_dev *vd, uint8_t bits)
{
	REG8(vd, COMMON_STATUS) = REG8(vd, COMMON_STATUS) | bits;
}

int virtio_dev_init(struct virtio_dev *vd, struct pci_dev *d, uint64_t wanted)
{
	uint64_t offered;
	int spins = 0;

	vd->pci = d;
	if (find_caps(vd, d))
		return -ENODEV;	     /* legacy-only: not ours */
	REG8(vd, COMMON_STATUS) = 0; /* reset; done when it reads back 0 */
	while (REG8(vd, COMMON_STATUS) && ++spins < 1000000)
		;
	set_status(vd, VIRTIO_STATUS_ACK | VIRTIO_STATUS_DRIVER);
	offered = device_features(vd);
	vd->features = offered & (wanted | 1UL << VIRTIO_F_VERSION_1);
	if (!virtio_has(vd, VIRTIO_F_VERSION_1))
		goto bad;
	REG32(vd, COMMON_GFSELECT) = 0;
	REG32(vd, COMMON_GF) = (uint32_t)vd->features;
	REG32(vd, COMMON_GFSELECT) = 1;
	REG32(vd, COMMON_GF) = (uint32_t)(vd->features >> 32);
	set_status(vd, VIRTIO_STATUS_FEATURES_OK);
	if (!(REG8(vd, COMMON_STATUS) & VIRTIO_STATUS_FEATURES_OK))
		goto bad;
	return 0;
bad:
	set_status(vd, VIRTIO_STATUS_FAILED);
	return -ENODEV;
}

int virtio_max_queues(const struct virtio_dev *vd)
{
	return REG16(vd, COMMON_NUM_QUEUES);
}

/* MSI-X: one queue per vector. */
static void queue_irq(void *data)
{
	vq_interrupt(data);
}

/* INTx: reading the ISR byte acknowledges the line; every queue is looked
 * at when it says a queue was used. */
static void intx_irq(void *data)
{
	struct virtio_dev *vd = data;

	if (!(*vd->isr & ISR_QUEUE))
		return;
	for (int i = 0; i < vd->nvqs; i++)
		vq_interrupt(&vd->vqs[i]);
}

static int setup_irqs(struct virtio_dev *vd, int n, const char *irq_name)
{
	struct pci_irq irqs[VEC_DEV_COUNT];

	if (n <= VEC_DEV_COUNT) {
		for (int i = 0; i < n; i++)
			irqs[i] = (struct pci_irq){irq_name, queue_irq, &vd->vqs[i]};
		if (!pci_enable_msix(vd->pci, n, irqs)) {
			vd->msix = true;
			return 0;
		}
	}
	irqs[0] = (struct pci_irq){irq_name, intx_irq, vd};
	return pci_enable_intx(vd->pci, &irqs[0]);
}

static int setup_queue(struct virtio_dev *vd, int i)
{
	struct virtqueue *vq = &vd->vqs[i];
	uint16_t size;
	int err;

	REG16(vd, COMMON_Q_SELECT) = (uint16_t)i;
	size = REG16(vd, COMMON_Q_SIZE);
	if (!size)
		return -ENODEV;
	while (size > VQ_MAX_SIZE)
		size /= 2; /* split queue sizes are powers of 2 */
	if ((err = vq_init(vq, vd, (uint16_t)i, size)))
		return err;
	REG16(vd, COMMON_Q_SIZE) = size;
	*(volatile uint64_t *)(vd->common + COMMON_Q_DESC) = vq_desc_pa(vq);
	*(volatile uint64_t *)(vd->common + COMMON_Q_DRIVER) = vq_avail_pa(vq);
	*(volatile uint64_t *)(vd->common + COMMON_Q_DEVICE) = vq_used_pa(vq);
	if (vd->msix) {
		REG16(vd, COMMON_Q_MSIX) = (uint16_t)i;
		if (REG16(vd, COMMON_Q_MSIX) != i)
			return -ENOSPC; /* the device could not take the vector */
	}
	vq->notify = (volatile uint16_t *)(vd->notify_base +
					   (uint32_t)REG16(vd, COMMON_Q_NOFF) * vd->notify_mult);
	REG16(vd, COMMON_Q_ENABLE) = 1;
	return 0;
}

int virtio_setup_queues(struct virtio_dev *vd, int n, vq_done_fn done, void *priv,
			const char *irq_name)
{
	int err;

	if (n < 1 || n > virtio_max_queues(vd))
		return -EINVAL;
	if (!(vd->vqs = kzalloc(sizeof(*vd->vqs) * (size_t)n)))
		return -ENOMEM;
	vd->nvqs = n;
	for (int i = 0; i < n; i++) {
		vd->vqs[i].done = done;
		vd->vqs[i].priv = priv;
	}
	if ((err = setup_irqs(vd, n, irq_name)))
		return err;
	REG16(vd, COMMON_MSIX_CONFIG) = NO_VECTOR; /* configuration changes: not watched */
	for (int i = 0; i < n; i++)
		if ((err = setup_queue(vd, i)))
			return err;
	return 0;
}

void virtio_driver_ok(struct virtio_dev *vd)
{
	set_status(vd, VIRTIO_STATUS_DRIVER_OK);
}

uint64_t virtio_cfg_read(const struct virtio_dev *vd, uint32_t off, int width)
{
	volatile uint8_t *p = vd->devcfg + off;
	uint64_t v;
	uint8_t gen;

	do {
		gen = REG8(vd, COMMON_CFG_GEN);
		v = width == 1	 ? *p
		    : width == 2 ? *(volatile uint16_t *)p
		    : width == 4
			? *(volatile uint32_t *)p
			: *(volatile uint32_t *)p | (uint64_t) * (volatile uint32_t *)(p + 4) << 32;
	} while (gen != REG8(vd, COMMON_CFG_GEN));
	return v;
}
