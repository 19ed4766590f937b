/*
 * The stream buffer: one direction of a stream connection, a byte ring of
 * SO_RCVBUF bytes owned by the receiving socket, with SCM_RIGHTS sets
 * attached to the stream position of the first byte they were sent with,
 * and the senders' credentials (SCM_CREDENTIALS) where they change.
 *
 * Locking: the owning socket's lock protects every field.  Data moves
 * without it: one writer at a time reserves free space (writing = true)
 * and fills it, one reader at a time (the socket's rx_busy) drains
 * committed bytes, so neither touches the other's range and no user-page
 * fault happens under a spinlock.
 */
#ifndef NET_SBUF_H
#define NET_SBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "net/scm.h"

struct iov_iter;

/* Credential changes a ring holds at most: a writer whose credentials
 * differ from the last ones waits for its reader beyond that, so that
 * one-byte writes alternating credentials cannot take memory without
 * bound (Linux charges each skb to the buffer instead). */
#define SBUF_MAX_CRED_CHANGES 64

struct sbuf {
	char *data;    /* cap bytes, allocated at the first write */
	size_t cap;    /* ring size; fixed once data exists */
	uint64_t head; /* stream position of the first unread byte */
	uint64_t tail; /* stream position past the last committed byte */
	/* Readers see [head, pushed); committed bytes past it are held back
	 * by the sender (TCP's MSG_MORE and TCP_CORK) until sbuf_push. */
	uint64_t pushed;
	bool writing;	       /* a writer is filling [tail, tail + reserved) */
	struct list_head atts; /* struct sbuf_att, by position */
	/* The credentials of the byte at head (when no attachment is
	 * there) and of the last committed byte; changes: the attachments
	 * that change them. */
	struct scm_cred head_cred, tail_cred;
	unsigned int cred_changes;
};

void sbuf_init(struct sbuf *sb, size_t cap);
static inline size_t sbuf_used(const struct sbuf *sb)
{
	return sb->tail - sb->head;
}
static inline size_t sbuf_space(const struct sbuf *sb)
{
	return sb->cap - sbuf_used(sb);
}
/* Bytes a reader may take (committed and pushed). */
static inline size_t sbuf_ready(const struct sbuf *sb)
{
	return sb->pushed - sb->head;
}
/* Bytes committed but held back from readers. */
static inline size_t sbuf_held(const struct sbuf *sb)
{
	return sb->tail - sb->pushed;
}
/* Under the lock: shows readers everything committed. */
static inline void sbuf_push(struct sbuf *sb)
{
	sb->pushed = sb->tail;
}

/* Under the lock: whether a writer with credentials cred finds room. */
static inline bool sbuf_room(const struct sbuf *sb, const struct scm_cred *cred)
{
	return sbuf_space(sb) &&
	       (scm_cred_eq(cred, &sb->tail_cred) || sb->cred_changes < SBUF_MAX_CRED_CHANGES);
}
/* Under the lock: claims up to want free bytes at tail for one writer
 * with credentials cred: the count (0 if full or busy), or -ENOMEM. */
long sbuf_reserve(struct sbuf *sb, size_t want, const struct scm_cred *cred);
/* Under the lock: ends the reservation, committing n bytes sent with
 * cred and fds (taken over; NULL for none), held back until sbuf_push.
 * -ENOMEM leaves fds to the caller. */
int sbuf_commit(struct sbuf *sb, size_t n, struct scm_fds *fds, const struct scm_cred *cred);
/*
 * Under the lock: bytes a read starting at head may take (it stops before
 * the next attached set and, if split, before the credentials change)
 * and, in *fds and *cred, the set attached at head (stays queued) and the
 * credentials of the byte there.
 */
size_t sbuf_readable(const struct sbuf *sb, struct scm_fds **fds, struct scm_cred *cred,
		     bool split);
/* Under the lock: drops n read bytes; an attached set they cover goes to
 * *dead for scm_free outside the lock. */
void sbuf_consume(struct sbuf *sb, size_t n, struct list_head *dead);
/* Under the lock: moves every attached set to *dead (the socket closes). */
void sbuf_purge(struct sbuf *sb, struct list_head *dead);
/* Under the lock: calls fn on each attached set; a set for which it
 * returns true is fn's and leaves the buffer (the unix GC; its
 * credentials stay). */
void sbuf_gc_fds(struct sbuf *sb, bool (*fn)(struct scm_fds *fds, void *arg), void *arg);
/* Outside the lock: frees the sets collected on dead. */
void sbuf_free_dead(struct list_head *dead);
/* Frees the ring (the socket is destroyed; no attachments are left). */
void sbuf_destroy(struct sbuf *sb);

/* Without the lock: fill a reservation / copy out committed bytes at pos. */
int sbuf_copy_in(struct sbuf *sb, uint64_t pos, struct iov_iter *it, size_t n);
int sbuf_copy_out(const struct sbuf *sb, uint64_t pos, struct iov_iter *it, size_t n);

#endif
