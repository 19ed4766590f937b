/*
 * io_uring personalities: IORING_REGISTER_PERSONALITY keeps the caller's
 * credentials under an id; an SQE naming that id in its personality
 * field runs with them (io_uring_req.c: the task's cred_override while
 * the request runs, inline or on a worker).  Ids are 1..65535, given
 * cyclically as Linux's xa_alloc_cyclic does.  The table changes and is
 * read under the ring's submit_lock (register ops, submissions).  A
 * request without one that may run after its submission takes its
 * submitter's credentials then (IORING_FEAT_CUR_PERSONALITY).
 * docs/async.md.
 */
#include "async/io_uring_rsrc.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include <uapi/errno.h>

#define PERS_MAX   65535U /* the largest id (Linux's USHRT_MAX) */
#define PERS_FIRST 8U	  /* slots of a ring's first table */

/* A table of at least need slots, the old one's copied: 0 or -ENOMEM. */
static int pers_grow(struct io_ring *ring, uint32_t need)
{
	uint32_t n = ring->npers ? ring->npers : PERS_FIRST;
	const struct cred **t;

	while (n < need)
		n *= 2;
	if (n > PERS_MAX + 1)
		n = PERS_MAX + 1;
	if (!(t = kzalloc(n * sizeof(*t))))
		return -ENOMEM;
	if (ring->npers)
		memcpy(t, ring->pers, ring->npers * sizeof(*t));
	kfree(ring->pers);
	ring->pers = t;
	ring->npers = n;
	return 0;
}

/* A free id: the first from pers_next up, wrapping to 1 only once every
 * id above was given (Linux's cyclic order); 0 when all are in use. */
static uint32_t pers_free_id(struct io_ring *ring)
{
	uint32_t start = ring->pers_next ? ring->pers_next : 1;

	for (uint32_t id = start; id <= PERS_MAX; id++)
		if (id >= ring->npers || !ring->pers[id])
			return id;
	for (uint32_t id = 1; id < start; id++)
		if (!ring->pers[id])
			return id;
	return 0;
}

int io_personality_register(struct io_ring *ring)
{
	uint32_t id = pers_free_id(ring);
	int err;

	if (!id)
		return -EBUSY;
	if (id >= ring->npers && (err = pers_grow(ring, id + 1)))
		return err;
	ring->pers[id] = cred_get_current(); /* the ring's reference */
	ring->pers_next = id == PERS_MAX ? 1 : id + 1;
	return (int)id;
}

int io_personality_unregister(struct io_ring *ring, uint32_t id)
{
	if (!id || id >= ring->npers || !ring->pers[id])
		return -EINVAL;
	cred_put(ring->pers[id]);
	ring->pers[id] = NULL;
	return 0;
}

const struct cred *io_personality_get(struct io_ring *ring, uint16_t id)
{
	const struct cred *c = id < ring->npers ? ring->pers[id] : NULL;

	if (c)
		cred_get(c);
	return c;
}

void io_personalities_release(struct io_ring *ring)
{
	for (uint32_t id = 1; id < ring->npers; id++)
		cred_put(ring->pers[id]);
	kfree(ring->pers);
	ring->pers = NULL;
	ring->npers = 0;
}

void io_personality_submitter(struct io_req *req)
{
	if (!req->creds)
		req->creds = cred_get_current();
}
