/*
 * AF_UNIX files in flight: the per-user limit on them, and the garbage
 * collector for sockets whose files are held only by SCM_RIGHTS sets
 * queued inside each other (a socket sent over itself, a listener sent
 * into its own unaccepted connection), which nobody can ever read again.
 * docs/sockets.md.
 */
#ifndef NET_UNIX_GC_H
#define NET_UNIX_GC_H

struct scm_fds;

/*
 * A new set's files go in flight, counted against the sender's
 * RLIMIT_NOFILE (garbage is collected first when they would pass it):
 * 0, or -ETOOMANYREFS.
 */
int unix_inflight_charge(const struct scm_fds *fds);
/* The set is being dropped: its files are no longer in flight. */
void unix_inflight_uncharge(const struct scm_fds *fds);
/*
 * A receiver calls this after taking its references to a set's files and
 * before installing fds for them: it waits out a collection in progress,
 * so that a collection never sees a socket gain an fd.
 */
void unix_gc_barrier(void);
/* Frees the cycles nobody can reach (nothing if one is already running). */
void unix_gc(void);

#endif
