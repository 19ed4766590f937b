/*
 * Split virtqueues (virtio 1.2, 2.7).  We own the descriptor table and
 * the available ring, the device owns the used ring.  Ordering (x86 keeps
 * stores in order and loads in order, but may pass a load ahead of an
 * earlier store):
 *   - descriptors and the avail ring entry are written before avail->idx
 *     (a release store), so the device never sees an index ahead of them;
 *   - avail->idx is stored before used->avail_event is read (a full
 *     fence), or a device that went idle in between would not be told;
 *   - used->idx is read (acquire) before the used entries it covers;
 *   - avail->used_event is stored before used->idx is read again (a full
 *     fence), or a completion landing in between would raise no interrupt.
 * Lifetimes: a token (the driver's request) belongs to the queue from
 * vq_submit until done is called with it; the queue itself lives forever.
 */
#include "drivers/virtio/virtio.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include <uapi/errno.h>

#define VRING_DESC_F_NEXT      1
#define VRING_DESC_F_WRITE     2
#define VRING_USED_F_NO_NOTIFY 1
#define USED_OFFSET	       1024 /* the used ring's place in the rings' second frame */

/* The avail ring's u16 fields: flags, idx, ring[size], used_event. */
#define AVAIL_IDX      1
#define AVAIL_RING(i)  (2 + (i))
#define USED_EVENT(vq) (2 + (vq)->size)
/* The used ring's: flags, idx, then {u32 id, u32 len}[size], avail_event. */
#define USED_IDX	1
#define AVAIL_EVENT(vq) (2 + 4 * (vq)->size)

int vq_init(struct virtqueue *vq, struct virtio_dev *vd, uint16_t index, uint16_t size)
{
	uint64_t desc_pa = frame_zalloc(), rings_pa = desc_pa ? frame_zalloc() : 0;

	if (!rings_pa) {
		if (desc_pa)
			frame_free_kind(desc_pa, FRAME_PLAIN);
		return -ENOMEM;
	}
	spin_init(&vq->lock, "virtqueue");
	vq->vd = vd;
	vq->index = index;
	vq->size = size;
	vq->desc = P2V(desc_pa);
	vq->avail = P2V(rings_pa);
	vq->used = (volatile uint16_t *)((uint8_t *)P2V(rings_pa) + USED_OFFSET);
	for (uint16_t i = 0; i + 1 < size; i++)
		vq->desc[i].next = i + 1;
	vq->free_head = 0;
	vq->num_free = size;
	vq->event_idx = virtio_has(vd, VIRTIO_F_EVENT_IDX);
	return 0;
}

/* Physical addresses of the three parts, for the common configuration. */
uint64_t vq_desc_pa(const struct virtqueue *vq)
{
	return V2P(vq->desc);
}

uint64_t vq_avail_pa(const struct virtqueue *vq)
{
	return V2P(vq->avail);
}

uint64_t vq_used_pa(const struct virtqueue *vq)
{
	return V2P(vq->used);
}

/* Chains bufs on free descriptors and publishes the chain's head.  Under
 * the lock. */
static int vq_add(struct virtqueue *vq, const struct vq_buf *bufs, int n, void *token)
{
	uint16_t head = vq->free_head, at = head;

	if (n < 1 || vq->num_free < n)
		return -ENOSPC;
	for (int i = 0; i < n; i++) {
		struct vring_desc *d = &vq->desc[at];
		d->addr = bufs[i].pa;
		d->len = bufs[i].len;
		d->flags = (bufs[i].device_writes ? VRING_DESC_F_WRITE : 0) |
			   (i + 1 < n ? VRING_DESC_F_NEXT : 0);
		at = d->next; /* the free list runs through next: the chain is its prefix */
	}
	vq->free_head = at;
	vq->num_free -= (uint16_t)n;
	vq->tokens[head] = token;
	vq->avail[AVAIL_RING(vq->avail_idx % vq->size)] = head;
	vq->avail_idx++;
	__atomic_store_n(&vq->avail[AVAIL_IDX], vq->avail_idx, __ATOMIC_RELEASE);
	return 0;
}

/* virtio 1.2, 2.7.10: whether the device asked to hear of the entries
 * between old and new (its event index is one of them). */
static bool need_event(uint16_t event, uint16_t new, uint16_t old)
{
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

/* Under the lock. */
static void vq_kick(struct virtqueue *vq)
{
	bool notify;

	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* avail->idx before avail_event */
	if (vq->event_idx)
		notify = need_event(vq->used[AVAIL_EVENT(vq)], vq->avail_idx, vq->kicked_idx);
	else
		notify = !(vq->used[0] & VRING_USED_F_NO_NOTIFY);
	vq->kicked_idx = vq->avail_idx;
	if (notify) {
		*vq->notify = vq->index;
		vq->kicks++;
	}
}

int vq_submit(struct virtqueue *vq, const struct vq_buf *bufs, int n, void *token)
{
	int err;

	spin_lock(&vq->lock);
	if (!(err = vq_add(vq, bufs, n, token)))
		vq_kick(vq);
	spin_unlock(&vq->lock);
	return err;
}

/* Returns the chain at head to the free list. */
static void free_chain(struct virtqueue *vq, uint16_t head)
{
	uint16_t at = head, n = 1;

	while (vq->desc[at].flags & VRING_DESC_F_NEXT && n < vq->size) {
		at = vq->desc[at].next;
		n++;
	}
	vq->desc[at].next = vq->free_head;
	vq->free_head = head;
	vq->num_free += n;
}

/* The next used entry's token and length, or NULL when there is none
 * (then the device is asked to interrupt at the next one).  Under the
 * lock. */
static void *vq_pop(struct virtqueue *vq, uint32_t *len)
{
	for (;;) {
		uint16_t idx = __atomic_load_n(&vq->used[USED_IDX], __ATOMIC_ACQUIRE);
		if (idx != vq->last_used) {
			volatile uint32_t *e =
			    (volatile uint32_t *)(vq->used + 2) + 2 * (vq->last_used % vq->size);
			uint32_t id = e[0];
			void *token;

			*len = e[1];
			vq->last_used++;
			if (id >= vq->size || !(token = vq->tokens[id])) {
				printk("virtio: queue %u: bad used id %u ignored\n", vq->index, id);
				continue;
			}
			vq->tokens[id] = NULL;
			free_chain(vq, (uint16_t)id);
			return token;
		}
		if (!vq->event_idx)
			return NULL;
		vq->avail[USED_EVENT(vq)] = vq->last_used;
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* used_event before idx again */
		if (__atomic_load_n(&vq->used[USED_IDX], __ATOMIC_ACQUIRE) == vq->last_used)
			return NULL;
	}
}

void vq_interrupt(struct virtqueue *vq)
{
	for (;;) {
		uint32_t len = 0;
		void *token;

		spin_lock(&vq->lock);
		token = vq_pop(vq, &len);
		spin_unlock(&vq->lock);
		if (!token)
			return;
		vq->done(vq, token, len); /* without the lock: it may submit */
	}
}
