/*
 * System V IPC (shmget, semget, msgget and their calls): Linux x86_64's
 * values and structures, the 64-bit forms (IPC_64) that x86_64's calls
 * take without a version bit.  Shared by the kernel and user space.
 */
#ifndef UAPI_IPC_H
#define UAPI_IPC_H

#include <stdint.h>

#define IPC_PRIVATE 0

/* get flags (the low nine bits are the mode) */
#define IPC_CREAT  00001000
#define IPC_EXCL   00002000
#define IPC_NOWAIT 00004000

/* ctl commands of all three kinds */
#define IPC_RMID 0
#define IPC_SET	 1
#define IPC_STAT 2
#define IPC_INFO 3

/* shm: shmget flags, shmat flags, shmctl commands, mode bits */
#define SHM_HUGETLB   04000
#define SHM_NORESERVE 010000
#define SHM_RDONLY    010000
#define SHM_RND	      020000
#define SHM_REMAP     040000
#define SHM_EXEC      0100000
#define SHM_LOCK      11
#define SHM_UNLOCK    12
#define SHM_STAT      13
#define SHM_INFO      14
#define SHM_STAT_ANY  15
#define SHM_DEST      01000 /* mode: removed, freed at the last detach */
#define SHM_LOCKED    02000 /* mode: SHM_LOCK'd */
#define SHMLBA	      4096

/* sem: semop flag, semctl commands */
#define SEM_UNDO     0x1000
#define GETPID	     11
#define GETVAL	     12
#define GETALL	     13
#define GETNCNT	     14
#define GETZCNT	     15
#define SETVAL	     16
#define SETALL	     17
#define SEM_STAT     18
#define SEM_INFO     19
#define SEM_STAT_ANY 20

/* msg: msgrcv flags, msgctl commands */
#define MSG_NOERROR  010000
#define MSG_EXCEPT   020000
#define MSG_COPY     040000
#define MSG_STAT     11
#define MSG_INFO     12
#define MSG_STAT_ANY 13

/* Linux's defaults (include/uapi/linux/{shm,sem,msg}.h). */
#define SHMMIN	1
#define SHMMNI	4096
#define SHMMAX	(~0UL - (1UL << 24))
#define SHMALL	(~0UL - (1UL << 24)) /* pages */
#define SEMMNI	32000
#define SEMMSL	32000
#define SEMMNS	(SEMMNI * SEMMSL)
#define SEMOPM	500
#define SEMVMX	32767
#define SEMAEM	SEMVMX
#define SEMMNU	SEMMNS
#define SEMUME	SEMOPM
#define SEMMAP	SEMMNS
#define SEMUSZ	20 /* what IPC_INFO reports as the size of an undo structure */
#define MSGMNI	32000
#define MSGMAX	8192
#define MSGMNB	16384
#define MSGPOOL (MSGMNI * MSGMNB / 1024) /* KiB, what msginfo reports */
#define MSGTQL	MSGMNB
#define MSGMAP	MSGMNB
#define MSGSSZ	16
#define MSGSEG	0xffff

struct ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;
	uint16_t seq;
	uint16_t pad2;
	uint64_t unused1, unused2;
};

struct shmid64_ds {
	struct ipc64_perm shm_perm;
	uint64_t shm_segsz;
	int64_t shm_atime, shm_dtime, shm_ctime;
	int32_t shm_cpid, shm_lpid;
	uint64_t shm_nattch;
	uint64_t unused4, unused5;
};

struct shminfo64 {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall;
	uint64_t unused1, unused2, unused3, unused4;
};

struct shm_info {
	int32_t used_ids;
	uint64_t shm_tot, shm_rss, shm_swp; /* pages */
	uint64_t swap_attempts, swap_successes;
};

struct semid64_ds {
	struct ipc64_perm sem_perm;
	int64_t sem_otime;
	uint64_t unused1;
	int64_t sem_ctime;
	uint64_t unused2;
	uint64_t sem_nsems;
	uint64_t unused3, unused4;
};

struct sembuf {
	uint16_t sem_num;
	int16_t sem_op;
	int16_t sem_flg;
};

struct seminfo {
	int32_t semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

struct msqid64_ds {
	struct ipc64_perm msg_perm;
	int64_t msg_stime, msg_rtime, msg_ctime;
	uint64_t msg_cbytes, msg_qnum, msg_qbytes;
	int32_t msg_lspid, msg_lrpid;
	uint64_t unused4, unused5;
};

struct msginfo {
	int32_t msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
	uint16_t msgseg;
};

#endif
