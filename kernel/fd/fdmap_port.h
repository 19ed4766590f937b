/*
 * Portability header for fdmap.c and fdtable.c: the only thing they include,
 * so the same sources build into the kernel and, unchanged, into host tests.
 */
#ifndef FS_FDMAP_PORT_H
#define FS_FDMAP_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __KERNEL__

#include "fs/notify/dnotify.h"
#include "fs/file.h"
#include "fs/locks/reclock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "lib/spinlock.h"
#include <uapi/errno.h>

struct files_table;
/* FD_LENT's file for a lookup in @files (fd_install.c): the file an
 * io_uring request lent the calling task, referenced, or NULL. */
struct file *files_lookup_lent(struct files_table *files);

#else /* host: libc, and a spinlock good enough for tests and benchmarks */

#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* struct file and its references: tests/unit/fake_file.c. */
struct file;
void file_get(struct file *f);
void file_put(struct file *f);
bool file_tryget(struct file *f);
/* Fake files are never O_PATH ones. */
static inline bool file_is_path(const struct file *f)
{
	(void)f;
	return false;
}

/* No record locks or dnotify watches on the host: tests/unit/fake_file.c
 * counts the calls closing an fd makes to drop them (fake_close_state). */
struct files_table;
void reclock_close(struct file *f, struct files_table *files);
void dnotify_close(struct file *f, struct files_table *files);

/* Nothing is lent on the host. */
static inline struct file *files_lookup_lent(struct files_table *files)
{
	(void)files;
	return NULL;
}

/* The host heap is tests/unit's injectable allocator (fails on request). */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *ptr);

struct spinlock {
	int locked;
	const char *name;
};

#define SPINLOCK_INIT(n)                                                                           \
	{                                                                                          \
		.locked = 0, .name = (n)                                                           \
	}

static inline void spin_init(struct spinlock *lock, const char *name)
{
	lock->locked = 0;
	lock->name = name;
}

static inline void spin_lock(struct spinlock *lock)
{
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			;
}

static inline void spin_unlock(struct spinlock *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

static inline bool spin_held(const struct spinlock *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED) != 0;
}

static inline bool spin_trylock(struct spinlock *lock)
{
	return !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
}

/* No interrupts on the host: the kernel's task-context lock is the same. */
#define spin_lock_task	  spin_lock
#define spin_trylock_task spin_trylock
#define spin_unlock_task  spin_unlock

#endif /* __KERNEL__ */

/* Grace periods: the kernel's (sched/grace.c); on the host a queue that
 * grace_drain() empties (tests/unit/host_grace.c). */
#include "sched/grace.h"
#include <uapi/fcntl.h>

#endif
