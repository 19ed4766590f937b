/* A pipe's packets (see pipe_packet.h). */
#include "fs/pipe/pipe_packet.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include <uapi/errno.h>

static struct pkt_span *pkt_at(const struct pkt_ring *r, unsigned int i)
{
	return &r->v[(r->first + i) % r->cap];
}

int pkt_ring_resize(struct pkt_ring *r, unsigned int cap)
{
	struct pkt_span *v;

	if (r->n > cap)
		return -EBUSY;
	if (!(v = kmalloc(cap * sizeof(*v))))
		return -ENOMEM;
	for (unsigned int i = 0; i < r->n; i++)
		v[i] = *pkt_at(r, i);
	kfree(r->v);
	r->first = 0;
	__atomic_store_n(&r->v, v, __ATOMIC_RELAXED);
	__atomic_store_n(&r->cap, cap, __ATOMIC_RELAXED);
	return 0;
}

void pkt_ring_free(struct pkt_ring *r)
{
	kfree(r->v);
	r->v = NULL;
}

bool pkt_ring_ends_packet(const struct pkt_ring *r, size_t head)
{
	return r->n && pkt_at(r, r->n - 1)->end == head;
}

void pkt_ring_push(struct pkt_ring *r, size_t start, size_t end)
{
	kassert(r->n < r->cap); /* the writer waited for pkt_ring_room */
	*pkt_at(r, r->n) = (struct pkt_span){start, end};
	__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELAXED);
}

size_t pkt_ring_read_span_slow(const struct pkt_ring *r, size_t tail, size_t head, size_t len,
			       size_t *drop)
{
	const struct pkt_span *p = r->n ? pkt_at(r, 0) : NULL;
	size_t stream = (p ? p->start : head) - tail, n;

	*drop = 0;
	if (!p || len <= stream)
		return len < stream ? len : stream;
	n = p->end - p->start < len - stream ? p->end - p->start : len - stream;
	*drop = p->end - p->start - n;
	return stream + n;
}

void pkt_ring_consumed_slow(struct pkt_ring *r, size_t tail)
{
	while (r->n && pkt_at(r, 0)->end <= tail) {
		r->first = (r->first + 1) % r->cap;
		__atomic_store_n(&r->n, r->n - 1, __ATOMIC_RELAXED);
	}
	if (r->n && pkt_at(r, 0)->start < tail)
		pkt_at(r, 0)->start = tail; /* a splice took part of it */
}
