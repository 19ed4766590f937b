/* Creating tasks (clone.c), shared by clone, clone3, fork and vfork. */
#ifndef PROC_CLONE_H
#define PROC_CLONE_H

#include <stdbool.h>
#include <stdint.h>

/* One request, in clone(2)'s terms: flags with the exit signal in the low
 * byte, the child's stack top (0: the caller's), the tid words, the TLS. */
struct clone_req {
	unsigned long flags;
	uint64_t stack, parent_tid, child_tid, tls;
	bool clear_sighand; /* clone3's CLONE_CLEAR_SIGHAND: handlers back to default */
	uint64_t pidfd;	    /* CLONE_PIDFD: where the pidfd goes (clone: parent_tid) */
	bool newtime;	    /* clone3's CLONE_NEWTIME (clone's bit is the exit signal's) */
	/* clone3's set_tid: the child's pids, its namespace's first (the
	 * caller's copy, set_tid_size of them; none for clone). */
	const int *set_tid;
	int set_tid_size;
};

/* Checks and carries out r: the child's tid, or -errno. */
long do_clone(const struct clone_req *r);

#endif
