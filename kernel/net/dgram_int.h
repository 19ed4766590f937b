/*
 * SOCK_DGRAM's inside, shared by dgram.c (the socket's operations, its
 * queue and reads) and dgram_send.c (sends: targets, queueing on the
 * receivers, groups, corks).  Only kernel/net/dgram*.c include it.
 */
#ifndef NET_DGRAM_INT_H
#define NET_DGRAM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/list.h"
#include "net/scm.h"
#include "net/socket.h"

/* A message queued on its receiver (socket.dgq). */
struct dgram {
	struct list_head link; /* in the receiver's dgq */
	size_t len;
	size_t truesize; /* charged to the receiver while queued (dgram_truesize) */
	struct sock_addr from;
	struct scm_fds *fds;
	struct scm_cred cred; /* its sender (pid 0: none attached) */
	/* Where it was sent, kmalloc'd, for a receiver that asked when it was
	 * queued (IP_RECVORIGDSTADDR: family dgram_ctl); else NULL. */
	struct sock_addr *to;
	/* The socket charged for it while it exists (socket.wmem), holding
	 * a reference; NULL where the family charges no sender. */
	struct socket *sender;
	char data[];
};

/* Conditions a sleeper re-checks; read without the lock, re-checked under it. */
static inline bool has_room(struct socket *t, size_t truesize)
{
	return list_empty(&t->dgq) || t->dgq_size + truesize <= t->rcvbuf || t->dead;
}

/* dgram.c */
void dgram_free(struct dgram *d);
int dgram_autobind(struct socket *sk, const struct sock_addr *dest);

/* dgram_send.c: sock_proto's sendmsg and uncork. */
long dgram_sendmsg(struct socket *sk, struct kmsg *m);
void dgram_uncork(struct socket *sk);

#endif
