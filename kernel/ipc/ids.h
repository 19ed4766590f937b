/*
 * What the three System V IPC kinds share (Linux's ipc/util.c): the
 * registry of one kind's objects by id and by key, ids with a sequence
 * number, the get logic (IPC_PRIVATE, keys, IPC_CREAT/IPC_EXCL), the
 * permission checks, struct ipc64_perm in and out, the memory the kinds
 * may hold, and the /proc/sysvipc files.  Internal to kernel/ipc/.
 *
 * Locks: each kind has a registry (struct ipc_ids) whose spinlock
 * protects the registry and every field of every object of that kind
 * (shm.c, sem.c and msg.c say which), so an object found under it stays
 * alive until it is dropped; and a mutex that serialises gets, so that a
 * key's lookup and the creation of its object are one step (two
 * IPC_CREAT|IPC_EXCL gets of one key cannot both create) while the
 * allocation itself sleeps freely.  Order: the get mutex, then the
 * registry lock; the registry lock is taken under a uvm's lock (a shm
 * attach freed by munmap), never the other way round.
 */
#ifndef IPC_IDS_H
#define IPC_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/nsfs.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/mutex.h"
#include "proc/nsproxy.h"
#include "sched/grace.h"
#include <uapi/ipc.h>

struct task;

/* An id is (seq << IPC_SEQ_SHIFT) + index, as Linux without ipcmni_extend. */
#define IPC_SEQ_SHIFT	15
#define IPCMNI		(1 << IPC_SEQ_SHIFT) /* indexes per kind */
#define IPC_SEQ_MAX	(0x7fffffff >> IPC_SEQ_SHIFT)
#define IPC_MIN_CYCLE	64 /* indexes cycle through at least this many (Linux) */
#define IPC_CHUNK	256
#define IPC_KEY_BUCKETS 64

#define S_IRWXUGO 0777
#define S_IRUGO	  0444
#define S_IWUGO	  0222

/* The part every object starts with (Linux's kern_ipc_perm).  Under its
 * registry's lock, like the rest of the object. */
struct kern_ipc_perm {
	int id;
	int32_t key; /* IPC_PRIVATE once a removed segment lives on */
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode; /* the 9 permission bits, and SHM_DEST, SHM_LOCKED */
	uint16_t seq;
	struct list_head key_link; /* in the registry's key hash unless key is IPC_PRIVATE */
};

struct ipc_ids {
	/* The registry and every field of its kind's objects. */
	struct spinlock lock;
	/* Serialises gets (above); taken before lock. */
	struct mutex get_lock;
	int in_use;
	int max_idx;		    /* the highest index in use, -1 when none */
	int last_idx;		    /* the last index given out: the next search starts after it */
	uint16_t seq;		    /* of the next id; grows each time the indexes cycle */
	int next_id;		    /* the id the next object gets, or -1 (<kind>_next_id) */
	int mni;		    /* the most objects of the kind (shmmni, semmni, msgmni) */
	uint64_t used[IPCMNI / 64]; /* bit i: index i holds an object */
	/* IPC_CHUNK slots each, allocated when first used, freed when empty */
	struct kern_ipc_perm **chunk[IPCMNI / IPC_CHUNK];
	struct list_head keys[IPC_KEY_BUCKETS];
	unsigned long *total; /* atomic: the kind's objects in all namespaces */
};

/*
 * An ipc namespace (Linux's CLONE_NEWIPC): the three registries, their
 * totals and the tunables /proc/sys/kernel shows (ipc_sysctl.c), written
 * with atomic stores and read atomically or under the registry's lock:
 * shmmax, shmall (pages); semmsl, semmns, semopm and semmni (sem_ctl[3]
 * is unused: semmni is sem_ids.mni); msgmax, msgmnb.  The caller's is
 * current_ipc() (proc/nsproxy.h); a system call uses it throughout, kept
 * by the caller's nsproxy.
 *
 * Lifetime: refs counts the nsproxies and nsfs inodes holding it, and
 * the vmas attaching its segments (so a process that left it keeps its
 * attaches working); the last put removes every object left in it, as
 * Linux's free_ipc_ns, and frees it.  The initial one is never freed.
 */
struct ipc_namespace {
	struct ns_common ns;
	int refs;
	struct user_namespace *owner; /* referenced; NULL: the initial one */
	struct ipc_ids shm_ids, sem_ids, msg_ids;
	uint64_t shm_tot;	      /* shm_ids.lock: pages of all segments, against shmall */
	int used_sems;		      /* sem_ids.lock: semaphores in all sets, against semmns */
	uint64_t msg_bytes, msg_hdrs; /* msg_ids.lock: queued in all queues (MSG_INFO) */
	uint64_t shm_ctlmax, shm_ctlall;
	int sem_ctl[4], msg_ctlmax, msg_ctlmnb;
	struct grace_head grace; /* its end, once unused (namespace.c) */
};

extern struct ipc_namespace init_ipc_ns;
/* Each kind's share of a namespace: its start (registry and tunables),
 * and its end once the namespace is unused (every object removed; no
 * waiter, attach or undo list can be left). */
void shm_init_ns(struct ipc_namespace *ns);
void sem_init_ns(struct ipc_namespace *ns);
void msg_init_ns(struct ipc_namespace *ns);
void shm_exit_ns(struct ipc_namespace *ns);
void sem_exit_ns(struct ipc_namespace *ns);
void msg_exit_ns(struct ipc_namespace *ns);

/* A registry of at most mni objects; total counts the kind's objects in
 * every namespace (the leak check's figure). */
void ipc_ids_init(struct ipc_ids *ids, const char *name, const char *get_name, int mni,
		  unsigned long *total);

/* What a get asks for.  size: shmget's; nsems: semget's. */
struct ipc_params {
	int32_t key;
	int flg;
	uint64_t size;
	int nsems;
};

struct ipc_get_ops {
	/* Makes and registers a new object for p (ids->get_lock held, not
	 * ids->lock): its id, or -errno.  ipc_addid does the registering. */
	int (*getnew)(struct ipc_ids *ids, const struct ipc_params *p);
	/* An object p's key found, under ids->lock: 0 or -errno. */
	int (*more_checks)(struct kern_ipc_perm *obj, const struct ipc_params *p);
};

/* shmget, semget, msgget: the id, or -ENOENT, -EEXIST, -EACCES, or getnew's
 * and more_checks' errors, in Linux's order. */
int ipcget(struct ipc_ids *ids, const struct ipc_get_ops *ops, const struct ipc_params *p);

/*
 * Registers obj (its key and mode set) under ids->lock with the caller as
 * owner and creator: its id, or -ENOSPC past the kind's limit (or when a
 * chunk of the table cannot be allocated: -ENOMEM).
 */
int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *obj);
/* Takes obj out of the registry (ids->lock held): its id is unused after. */
void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *obj);
/* A removed segment still attached: found by its id only (ids->lock held). */
void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *obj);
/* The object with this id (ids->lock held), or NULL: the index and the
 * sequence number must match (EINVAL, as Linux). */
struct kern_ipc_perm *ipc_find(struct ipc_ids *ids, int id);
/* The object at index id & (IPCMNI - 1), whatever its sequence number
 * (SHM_STAT and its kin take an index), or NULL. */
struct kern_ipc_perm *ipc_find_idx(struct ipc_ids *ids, int id);
/* What IPC_INFO and <kind>_INFO return: the highest index in use, or 0. */
int ipc_max_idx(struct ipc_ids *ids);

/*
 * Permission: whether the caller may use obj as the S_IRUGO/S_IWUGO-style
 * bits of flag ask (Linux's ipcperms; the get's flag works too): the
 * owner's bits for the owner or creator (effective uid), the group's for
 * a member (fsgid or supplementary), the others' otherwise;
 * CAP_IPC_OWNER passes.
 */
bool ipc_permitted(const struct kern_ipc_perm *obj, int flag);
/* IPC_SET and IPC_RMID: the owner, the creator or CAP_SYS_ADMIN (else EPERM). */
bool ipc_may_change(const struct kern_ipc_perm *obj);
/* SHM_LOCK and its kin: the owner, the creator or CAP_IPC_LOCK. */
bool ipc_may_lock(const struct kern_ipc_perm *obj);
/* Whether the caller may pass the limits root may pass (CAP_SYS_RESOURCE:
 * a msg_qbytes above msgmnb). */
bool ipc_privileged(void);

/* obj's struct ipc64_perm, for a *_STAT (ids->lock held). */
void ipc_perm_out(const struct kern_ipc_perm *obj, struct ipc64_perm *out);
/* IPC_SET: takes uid, gid and the permission bits from in: 0 or -EINVAL
 * (an id of -1). */
int ipc_update_perm(const struct ipc64_perm *in, struct kern_ipc_perm *obj);

/*
 * Waiting, for semop, msgsnd and msgrcv: a waiter's record (on its stack)
 * is queued on the object under the kind's lock; whoever ends the wait
 * dequeues it, sets its status from IPC_WAITING and wakes its task, all
 * under that lock (ipc_wake).  ipc_wait queues link at the tail of queue
 * (*status set to IPC_WAITING) and sleeps with lock dropped until the
 * status changes, a signal is pending or the deadline (monotonic ns, if
 * timed) passes; it returns with lock held and link dequeued: the status,
 * or IPC_WAITING for a signal or the deadline (the caller's errno).
 */
#define IPC_WAITING 1
int ipc_wait(struct spinlock *lock, struct list_head *link, struct list_head *queue, int *status,
	     bool timed, uint64_t deadline);
void ipc_wake(struct task *t, int *status, int value);

/*
 * The *_STAT commands (ids->lock taken here): IPC_STAT finds the object by
 * id, the kind's STAT and STAT_ANY by index (returning its id), and all
 * but STAT_ANY need read permission (EACCES); fill writes the object into
 * ds (zeroed by the caller), copied to buf after the lock (EFAULT).
 */
enum ipc_stat_kind { IPC_STAT_ID, IPC_STAT_INDEX, IPC_STAT_INDEX_ANY };
typedef void (*ipc_fill_fn)(struct kern_ipc_perm *obj, void *ds);
long ipc_stat(struct ipc_ids *ids, int id, enum ipc_stat_kind kind, ipc_fill_fn fill, void *ds,
	      size_t size, uint64_t buf);
/* IPC_INFO and <kind>_INFO: fill (ids->lock held, may be NULL) completes
 * info, copied to buf after; the highest index in use, or -EFAULT. */
long ipc_info(struct ipc_ids *ids, void (*fill)(void *info), void *info, size_t size, uint64_t buf);

/* The wall clock in seconds (what the *_time fields hold). */
int64_t ipc_now(void);
/* The caller's process id (cpid, lpid, sempid, lspid). */
int ipc_tgid(void);

/*
 * Kernel memory held by semaphore sets, undo structures and queued
 * messages, bounded in all by a quarter of RAM: Linux's defaults would let
 * 32000 queues hold 500 MiB, more than a small machine has, and a get or a
 * send past the bound fails with ENOMEM as Linux's failed allocation does.
 */
bool ipc_mem_charge(size_t bytes);
void ipc_mem_uncharge(size_t bytes);
size_t ipc_mem_used(void);

/*
 * /proc/sysvipc/{shm,sem,msg}: the header, then show() for each object by
 * index (ids->lock held; show appends one line of at most line_max bytes
 * to buf at *len), kmalloc'd for snapshot_read_made, or NULL.
 */
typedef void (*ipc_show_fn)(struct kern_ipc_perm *obj, char *buf, size_t size, size_t *len);
char *ipc_proc_text(struct ipc_ids *ids, const char *header, size_t line_max, ipc_show_fn show);
/* The file_ops NAME of such a file (the user includes fs/file.h and
 * fs/snapshot.h). */
#define IPC_PROC_OPS(name, ids, header, line_max, show)                                            \
	static char *name##_text(void)                                                             \
	{                                                                                          \
		return ipc_proc_text(&current_ipc()->ids, header, line_max, show);                 \
	}                                                                                          \
	static long name##_read(struct file *f, struct iov_iter *to, uint64_t *pos)                \
	{                                                                                          \
		return snapshot_read_made(f, to, pos, name##_text);                                \
	}                                                                                          \
	const struct file_ops name = {.read_iter = name##_read, .release = snapshot_release}

#endif
