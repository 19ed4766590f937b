/*
 * Intrusive circular doubly-linked lists, as in Linux and many kernels:
 * the links live inside the listed object, so insertion never allocates.
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}
#define container_of(ptr, type, member)	     ((type *)((char *)(ptr)-offsetof(type, member)))
#define list_entry(ptr, type, member)	     container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each_entry(pos, head, member)                                                     \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head);     \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                                             \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),                             \
	    n = list_entry(pos->member.next, __typeof__(*pos), member);                            \
	     &pos->member != (head);                                                               \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

static inline void list_init(struct list_head *h)
{
	h->next = h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_insert_between(struct list_head *n, struct list_head *prev,
				       struct list_head *next)
{
	n->next = next;
	n->prev = prev;
	prev->next = n;
	next->prev = n;
}

/* Inserts n at the tail of h. */
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h->prev, h);
}

/* Inserts n at the head of h. */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	list_insert_between(n, h, h->next);
}

/* Unlinks n and leaves it an empty list, so a second list_del is harmless. */
static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

/* Moves every entry of from to the front of to; from ends empty. */
static inline void list_splice_init(struct list_head *from, struct list_head *to)
{
	if (list_empty(from))
		return;
	from->prev->next = to->next;
	to->next->prev = from->prev;
	to->next = from->next;
	from->next->prev = to;
	list_init(from);
}

#endif
