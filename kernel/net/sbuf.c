/*
 * Stream buffer (see sbuf.h): ring arithmetic on 64-bit stream positions,
 * reservations for the lock-free copy, attached fd sets.
 */
#include "net/sbuf.h"
#include "lib/iov_iter.h"
#include "lib/list.h"
#include "mm/heap.h"
#include "net/scm.h"
#include <uapi/errno.h>

struct sbuf_att {
	struct list_head link;
	uint64_t pos;	      /* the stream byte the set travels with */
	struct scm_fds *fds;  /* or NULL */
	struct scm_cred cred; /* the credentials of the bytes from pos on */
	bool cred_change;     /* they differ from the bytes' before (counted) */
};

void sbuf_init(struct sbuf *sb, size_t cap)
{
	*sb = (struct sbuf){.cap = cap};
	list_init(&sb->atts);
}

long sbuf_reserve(struct sbuf *sb, size_t want, const struct scm_cred *cred)
{
	size_t n = sbuf_space(sb);

	if (sb->writing || !sbuf_room(sb, cred))
		return 0;
	if (!sb->data && !(sb->data = kmalloc(sb->cap)))
		return -ENOMEM;
	sb->writing = true;
	return n < want ? n : want;
}

int sbuf_commit(struct sbuf *sb, size_t n, struct scm_fds *fds, const struct scm_cred *cred)
{
	bool change = !scm_cred_eq(cred, &sb->tail_cred);
	struct sbuf_att *a = NULL;

	sb->writing = false;
	if ((fds || change) && n) {
		a = kmalloc(sizeof(*a));
		if (!a)
			return -ENOMEM;
		*a = (struct sbuf_att){
		    .pos = sb->tail, .fds = fds, .cred = *cred, .cred_change = change};
		list_add_tail(&a->link, &sb->atts);
		sb->tail_cred = *cred;
		sb->cred_changes += change;
	}
	sb->tail += n;
	return 0;
}

size_t sbuf_readable(const struct sbuf *sb, struct scm_fds **fds, struct scm_cred *cred, bool split)
{
	size_t n = sbuf_ready(sb);
	struct sbuf_att *a;

	*fds = NULL;
	*cred = sb->head_cred;
	list_for_each_entry(a, &sb->atts, link)
	{
		if (a->pos == sb->head) {
			*fds = a->fds;
			*cred = a->cred;
		} else if (a->fds || (split && a->cred_change)) {
			if (a->pos - sb->head < n)
				n = a->pos - sb->head;
			break;
		}
	}
	return n;
}

void sbuf_consume(struct sbuf *sb, size_t n, struct list_head *dead)
{
	struct sbuf_att *a, *next;

	sb->head += n;
	list_for_each_entry_safe(a, next, &sb->atts, link)
	{
		if (a->pos >= sb->head)
			break;
		sb->head_cred = a->cred;
		sb->cred_changes -= a->cred_change;
		list_del(&a->link);
		list_add_tail(&a->link, dead);
	}
}

void sbuf_purge(struct sbuf *sb, struct list_head *dead)
{
	struct sbuf_att *a, *next;

	list_for_each_entry_safe(a, next, &sb->atts, link)
	{
		list_del(&a->link);
		list_add_tail(&a->link, dead);
	}
	sb->cred_changes = 0;
}

void sbuf_gc_fds(struct sbuf *sb, bool (*fn)(struct scm_fds *fds, void *arg), void *arg)
{
	struct sbuf_att *a;

	list_for_each_entry(a, &sb->atts, link)
	{
		if (a->fds && fn(a->fds, arg))
			a->fds = NULL; /* fn's now; the credentials stay */
	}
}

void sbuf_free_dead(struct list_head *dead)
{
	struct sbuf_att *a, *next;

	list_for_each_entry_safe(a, next, dead, link)
	{
		list_del(&a->link);
		scm_free(a->fds);
		kfree(a);
	}
}

void sbuf_destroy(struct sbuf *sb)
{
	kfree(sb->data);
	sb->data = NULL;
}

/* Copies n bytes between the ring at stream position pos and the iterator. */
static int ring_copy(char *data, size_t cap, uint64_t pos, struct iov_iter *it, size_t n, bool in)
{
	while (n) {
		size_t at = pos % cap, chunk = cap - at < n ? cap - at : n;
		int err = in ? copy_from_iter_full(data + at, chunk, it)
			     : copy_to_iter_full(data + at, chunk, it);
		if (err)
			return err;
		pos += chunk;
		n -= chunk;
	}
	return 0;
}

int sbuf_copy_in(struct sbuf *sb, uint64_t pos, struct iov_iter *it, size_t n)
{
	return ring_copy(sb->data, sb->cap, pos, it, n, true);
}

int sbuf_copy_out(const struct sbuf *sb, uint64_t pos, struct iov_iter *it, size_t n)
{
	return ring_copy(sb->data, sb->cap, pos, it, n, false);
}
