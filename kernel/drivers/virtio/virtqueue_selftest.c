/*
 * Self-test of the split virtqueue (virtqueue.c) against a device played
 * by the test: the chains and rings it publishes, notification
 * suppression by the device's avail_event (across the 16-bit wrap of
 * the indices), a full queue, and completions handed back in used order
 * with their descriptors freed and used_event advanced.
 */
#include "drivers/virtio/virtio.h"
#include "lib/ktest.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include <uapi/errno.h>

#define SIZE 8

static void *done_tokens[SIZE];
static uint32_t done_lens[SIZE];
static int ndone;

static void st_done(struct virtqueue *vq, void *token, uint32_t len)
{
	(void)vq;
	if (ndone < SIZE) {
		done_tokens[ndone] = token;
		done_lens[ndone] = len;
	}
	ndone++;
}

/* The device takes the avail entry at slot and puts it in the used ring
 * with len, then publishes the used index. */
static void device_use(struct virtqueue *vq, uint16_t avail_slot, uint32_t len)
{
	uint16_t head = vq->avail[2 + avail_slot % SIZE], at = vq->used[1];
	volatile uint32_t *e = (volatile uint32_t *)(vq->used + 2) + 2 * (at % SIZE);

	e[0] = head;
	e[1] = len;
	__atomic_store_n(&vq->used[1], (uint16_t)(at + 1), __ATOMIC_RELEASE);
}

/* Submits a request of n one-byte buffers; whether the device was told. */
static bool submit_counted(struct virtqueue *vq, int n, void *token, int *err)
{
	struct vq_buf bufs[4] = {
	    {0x1000, 1, false}, {0x2000, 1, true}, {0x3000, 1, true}, {0x4000, 1, true}};
	uint64_t kicks = vq->kicks;

	*err = vq_submit(vq, bufs, n, token);
	return vq->kicks != kicks;
}

static void chain_test(struct virtqueue *vq)
{
	uint16_t head;
	int err;
	bool told = submit_counted(vq, 3, (void *)1, &err);

	head = vq->avail[2];
	KTEST_OK(!err && vq->avail[1] == 1 && vq->desc[head].addr == 0x1000 &&
		     vq->desc[head].flags == 1 /* NEXT */ &&
		     vq->desc[vq->desc[head].next].flags == 3 /* NEXT|WRITE */ &&
		     vq->desc[vq->desc[vq->desc[head].next].next].flags == 2 /* WRITE */ &&
		     vq->num_free == SIZE - 3,
		 "virtqueue: a 3-buffer chain published (flags, avail idx 1, 5 descriptors left)");
	KTEST_OK(told, "virtqueue: the device is told when its avail_event is passed");
	vq->used[2 + 4 * SIZE] = 5; /* avail_event: hear of index 5 only */
	told = submit_counted(vq, 2, (void *)2, &err);
	KTEST_OK(!err && !told, "virtqueue: not told while avail_event lies ahead");
	told = submit_counted(vq, 4, (void *)3, &err);
	KTEST_OK(err == -ENOSPC && vq->avail[1] == 2,
		 "virtqueue: -ENOSPC when too few descriptors are free, nothing published");
}

static void completion_test(struct virtqueue *vq)
{
	device_use(vq, 1, 7); /* out of order: the second request first */
	device_use(vq, 0, 9);
	ndone = 0;
	vq_interrupt(vq);
	KTEST_OK(ndone == 2 && done_tokens[0] == (void *)2 && done_lens[0] == 7 &&
		     done_tokens[1] == (void *)1 && done_lens[1] == 9,
		 "virtqueue: completions in used order with their lengths");
	KTEST_OK(vq->num_free == SIZE && vq->avail[2 + SIZE] == 2,
		 "virtqueue: every descriptor free again, used_event at the next index");
	ndone = 0;
	vq_interrupt(vq);
	KTEST_OK(ndone == 0, "virtqueue: an interrupt with nothing used completes nothing");
}

/* Indices wrap at 2^16: near the wrap, the same rules hold. */
static void wrap_test(struct virtqueue *vq)
{
	int err, told = 0;

	vq->avail_idx = vq->kicked_idx = vq->last_used = 65534;
	vq->avail[1] = 65534;
	vq->used[1] = 65534;
	vq->used[2 + 4 * SIZE] = 0; /* the device wants to hear at index 0 (after the wrap) */
	told += submit_counted(vq, 1, (void *)4, &err); /* 65534 -> 65535 */
	told += submit_counted(vq, 1, (void *)5, &err); /* 65535 -> 0 */
	KTEST_OK(told == 0, "virtqueue: avail_event past the wrap: not told at 65535, 0");
	told = submit_counted(vq, 1, (void *)6, &err); /* 0 -> 1: passes 0 */
	KTEST_OK(told && vq->avail[1] == 1, "virtqueue: told once index 0 is passed (avail idx 1)");
	for (uint16_t s = 65534; s != 1; s++)
		device_use(vq, s, 1);
	ndone = 0;
	vq_interrupt(vq);
	KTEST_OK(ndone == 3 && done_tokens[2] == (void *)6 && vq->last_used == 1 &&
		     vq->num_free == SIZE,
		 "virtqueue: three completions across the wrap, all descriptors back");
}

void virtqueue_selftest(void)
{
	static struct virtqueue vq;
	struct virtio_dev vd = {.features = 1UL << VIRTIO_F_EVENT_IDX};
	uint16_t notify = 0;

	if (vq_init(&vq, &vd, 3, SIZE)) {
		KTEST_OK(false, "virtqueue: rings allocated");
		return;
	}
	vq.notify = &notify;
	vq.done = st_done;
	chain_test(&vq);
	completion_test(&vq);
	wrap_test(&vq);
	frame_free_kind(vq_desc_pa(&vq), FRAME_PLAIN);
	frame_free_kind(PAGE_ALIGN_DOWN(vq_avail_pa(&vq)), FRAME_PLAIN);
}
