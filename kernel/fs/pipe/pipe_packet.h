/*
 * A pipe's packets (O_DIRECT on the write end, Linux's packet mode): which
 * stretches of the byte stream are packets.  A read takes at most one
 * packet and drops what of it did not fit.  Linux keeps a packet per ring
 * slot (a page of the pipe's size), so a pipe holds at most size/PAGE_SIZE
 * packets however small; here that is the ring's capacity.  The pipe's
 * mutex protects a pkt_ring; n is also read atomically without it (the
 * writers' wait condition).
 */
#ifndef FS_PIPE_PACKET_H
#define FS_PIPE_PACKET_H

#include <stdbool.h>
#include <stddef.h>

struct pkt_span {
	size_t start, end; /* stream positions (the pipe's head and tail count) */
};

struct pkt_ring {
	struct pkt_span *v; /* cap entries, or NULL until the first packet */
	unsigned int cap, first, n;
};

/* Makes room for cap packets (the pipe's size in pages): 0, -EBUSY if
 * more are held, -ENOMEM.  Allocates the ring the first time. */
int pkt_ring_resize(struct pkt_ring *r, unsigned int cap);
void pkt_ring_free(struct pkt_ring *r);
/* Whether one more packet fits (always when there are none).  This and
 * the two calls of every read below test the common case, no packet,
 * inline: each call was a few percent of a small pipe transfer. */
static inline bool pkt_ring_room(const struct pkt_ring *r)
{
	return !__atomic_load_n(&r->v, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&r->n, __ATOMIC_RELAXED) <
		   __atomic_load_n(&r->cap, __ATOMIC_RELAXED);
}
/* Whether the pipe's last bytes (up to head) are a packet's. */
bool pkt_ring_ends_packet(const struct pkt_ring *r, size_t head);
/* Records [start, end) as a packet; the caller checked pkt_ring_room. */
void pkt_ring_push(struct pkt_ring *r, size_t start, size_t end);
/* How many of the bytes from tail to head a read of up to len takes
 * (stream bytes, then at most one packet); *drop gets the bytes of that
 * packet it leaves, which go with it. */
size_t pkt_ring_read_span_slow(const struct pkt_ring *r, size_t tail, size_t head, size_t len,
			       size_t *drop);
static inline size_t pkt_ring_read_span(const struct pkt_ring *r, size_t tail, size_t head,
					size_t len, size_t *drop)
{
	if (r->n)
		return pkt_ring_read_span_slow(r, tail, head, len, drop);
	*drop = 0;
	return len < head - tail ? len : head - tail;
}

/* The stream was consumed up to tail: forgets the packets before it. */
void pkt_ring_consumed_slow(struct pkt_ring *r, size_t tail);
static inline void pkt_ring_consumed(struct pkt_ring *r, size_t tail)
{
	if (r->n)
		pkt_ring_consumed_slow(r, tail);
}

#endif
