/*
 * /proc/sys/kernel's System V IPC limits (Linux's ipc/ipc_sysctl.c), rows
 * of the /proc/sys table (fs/proc/proc_sys.h): shmmax, shmall (unsigned longs),
 * shmmni, msgmax, msgmnb, msgmni (ints with Linux's bounds), sem (semmsl
 * semmns semopm semmni) and the <kind>_next_id files that give the next
 * object a chosen id (Linux's CHECKPOINT_RESTORE).  The values are the
 * caller's ipc namespace's (ids.h), read and written atomically, one word
 * each; the next ids under their registry's lock.
 */
#include "fs/proc/proc_sys.h"
#include "ipc/ids.h"
#include "lib/printk.h"
#include <uapi/errno.h>

/* A row's variable: the field of the caller's namespace. */
#define IPC_FIELD(fn, field)                                                                       \
	static void *fn(const struct proc_sys_row *row)                                            \
	{                                                                                          \
		(void)row;                                                                         \
		return &current_ipc()->field;                                                      \
	}
IPC_FIELD(shmmax_of, shm_ctlmax)
IPC_FIELD(shmall_of, shm_ctlall)
IPC_FIELD(shmmni_of, shm_ids.mni)
IPC_FIELD(msgmni_of, msg_ids.mni)
IPC_FIELD(msgmax_of, msg_ctlmax)
IPC_FIELD(msgmnb_of, msg_ctlmnb)
IPC_FIELD(shm_ids_of, shm_ids)
IPC_FIELD(sem_ids_of, sem_ids)
IPC_FIELD(msg_ids_of, msg_ids)

/* ---- unsigned longs: shmmax, shmall (Linux's proc_doulongvec_minmax) ---- */

PROC_SYS_ROW(shmmax_row, .path = "kernel/shmmax", .mode = 0644, .show = proc_sys_ulong_show,
	     .store = proc_sys_ulong_store, .data_of = shmmax_of);
PROC_SYS_ROW(shmall_row, .path = "kernel/shmall", .mode = 0644, .show = proc_sys_ulong_show,
	     .store = proc_sys_ulong_store, .data_of = shmall_of);

/* ---- ints: Linux's bounds ---- */

PROC_SYS_ROW(shmmni_row, .path = "kernel/shmmni", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data_of = shmmni_of, .min = 0, .max = IPCMNI);
PROC_SYS_ROW(msgmni_row, .path = "kernel/msgmni", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data_of = msgmni_of, .min = 0, .max = IPCMNI);
PROC_SYS_ROW(msgmax_row, .path = "kernel/msgmax", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data_of = msgmax_of, .min = 0, .max = INT32_MAX);
PROC_SYS_ROW(msgmnb_row, .path = "kernel/msgmnb", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data_of = msgmnb_of, .min = 0, .max = INT32_MAX);

/* ---- sem: four ints ---- */

static int *sem_value(int i)
{
	struct ipc_namespace *ns = current_ipc();

	return i < 3 ? &ns->sem_ctl[i] : &ns->sem_ids.mni;
}

static long sem_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	(void)row;
	return snprintk(buf, size, "%d\t%d\t%d\t%d\n",
			__atomic_load_n(sem_value(0), __ATOMIC_RELAXED),
			__atomic_load_n(sem_value(1), __ATOMIC_RELAXED),
			__atomic_load_n(sem_value(2), __ATOMIC_RELAXED),
			__atomic_load_n(sem_value(3), __ATOMIC_RELAXED));
}

/*
 * Linux's proc_dointvec over the four: each value read is stored, a write
 * may give fewer, what follows the fourth is left unwritten (a short
 * count); then semmni outside [0, IPCMNI] is ERANGE and put back.
 */
static long sem_store(const struct proc_sys_row *row, const char *text, size_t len, uint64_t *pos)
{
	int old = __atomic_load_n(sem_value(3), __ATOMIC_RELAXED), n = 0;
	size_t at = 0, used;
	long v;
	int err;

	(void)row;
	if (*pos) {
		*pos += len;
		return (long)len;
	}
	for (; n < 4 && at < len; n++) {
		if ((err = proc_sys_parse_long(text + at, len - at, &v, &used)))
			return n ? err : -EINVAL;
		__atomic_store_n(sem_value(n), (int)v, __ATOMIC_RELAXED);
		at += used;
	}
	v = __atomic_load_n(sem_value(3), __ATOMIC_RELAXED);
	if (v < 0 || v > IPCMNI) {
		__atomic_store_n(sem_value(3), old, __ATOMIC_RELAXED);
		return -ERANGE;
	}
	*pos += at;
	return (long)at;
}

PROC_SYS_ROW(sem_row, .path = "kernel/sem", .mode = 0644, .show = sem_show, .store = sem_store);

/* ---- the next ids ---- */

static long next_id_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	struct ipc_ids *ids = row->data_of(row);
	int v;

	spin_lock(&ids->lock);
	v = ids->next_id;
	spin_unlock(&ids->lock);
	return snprintk(buf, size, "%d\n", v);
}

/* An id from 0 (-1 and below: EINVAL, as Linux's SYSCTL_ZERO bound). */
static long next_id_store(const struct proc_sys_row *row, const char *text, size_t len,
			  uint64_t *pos)
{
	struct ipc_ids *ids = row->data_of(row);
	size_t used;
	long v;
	int err;

	if (*pos) {
		*pos += len;
		return (long)len;
	}
	if ((err = proc_sys_parse_long(text, len, &v, &used)))
		return err;
	if (v < 0 || v > INT32_MAX)
		return -EINVAL;
	spin_lock(&ids->lock);
	ids->next_id = (int)v;
	spin_unlock(&ids->lock);
	*pos += used;
	return (long)used;
}

PROC_SYS_ROW(shm_next_id_row, .path = "kernel/shm_next_id", .mode = 0644, .show = next_id_show,
	     .store = next_id_store, .data_of = shm_ids_of);
PROC_SYS_ROW(sem_next_id_row, .path = "kernel/sem_next_id", .mode = 0644, .show = next_id_show,
	     .store = next_id_store, .data_of = sem_ids_of);
PROC_SYS_ROW(msg_next_id_row, .path = "kernel/msg_next_id", .mode = 0644, .show = next_id_show,
	     .store = next_id_store, .data_of = msg_ids_of);
