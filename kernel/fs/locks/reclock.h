/*
 * Record locks: fcntl's byte-range locks, POSIX (owned by a files table,
 * so by a process) and open-file-description ones (owned by a struct
 * file).  Both kinds live in one table and conflict with each other as
 * on Linux; flock() locks (flock.h) are a separate, independent kind.
 * docs/locks.md.
 */
#ifndef FS_RECLOCK_H
#define FS_RECLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct files_table;

#define RECLOCK_EOF INT64_MAX /* an end of RECLOCK_EOF: "to the end of file", l_len 0 */
#define RECLOCK_MAX 4096      /* locks in the whole system (-ENOLCK beyond) */

/*
 * A request, or what F_GETLK reports: the bytes [start, end] (inclusive)
 * of the file, F_RDLCK, F_WRLCK or F_UNLCK; pid is the setter's process
 * id (-1 for an open-file-description lock), filled in by reclock_test.
 */
struct reclock_req {
	int64_t start, end;
	int type;
	int pid;
};

/*
 * Sets (F_RDLCK, F_WRLCK) or removes (F_UNLCK) req's range of f's locks
 * for the owner: the current process's files table, or f itself when ofd.
 * A process's own locks are split and merged as POSIX says; other owners'
 * conflicting locks make it -EAGAIN, or with wait a sleep until they go:
 * -EDEADLK when the POSIX owners' waits would form a cycle, -ERESTARTSYS
 * when a signal comes.  -ENOLCK past RECLOCK_MAX locks, -ENOMEM.
 */
int reclock_set(struct file *f, bool ofd, const struct reclock_req *req, bool wait);
/* F_GETLK: the first lock of another owner that conflicts with req (which
 * then holds it), else req's type becomes F_UNLCK.  A request of type
 * F_UNLCK (F_OFD_GETLK only) asks for the owner's own lock over the range. */
void reclock_test(struct file *f, bool ofd, struct reclock_req *req);
/*
 * A process closed an fd of f: every POSIX lock files holds on f's file
 * goes, whichever fd set it (POSIX's rule).  Cheap when no lock exists.
 */
void reclock_close(struct file *f, struct files_table *files);
/* f's last reference is going: its open-file-description locks go, and
 * any lock on f itself (a file without an inode is its own lock key). */
void reclock_release(struct file *f);
/* Sets up the table (vfs_init). */
void reclock_init(void);
/* Locks held now (leak accounting). */
unsigned long reclock_count(void);

#endif
