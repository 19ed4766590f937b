/*
 * kcmp(2): whether two processes share a kernel object (an open file, the
 * address space, the fd table, ...), for checkpoint/restore tools and
 * tests.  Objects compare by address, seen through a boot-random
 * permutation per kind (Linux's kptr_obfuscate), so the answer orders
 * objects consistently without telling where they are.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/event/eventpoll.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "lib/random.h"
#include "lib/spinlock.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include "proc/cred.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/kcmp.h>

/*
 * Per kind: an xor key and an odd multiplier (top bit set too, as Linux),
 * so (addr ^ key) * mul is a permutation of the addresses.  Written once,
 * under cookie_lock, before cookies_set is (release); constant after.
 */
static struct spinlock cookie_lock = SPINLOCK_INIT("kcmp_cookies");
static uint64_t cookies[KCMP_TYPES][2];
static bool cookies_set;

static void cookies_init(void)
{
	if (__atomic_load_n(&cookies_set, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&cookie_lock);
	if (!cookies_set) {
		for (int i = 0; i < KCMP_TYPES; i++) {
			cookies[i][0] = random_u64();
			cookies[i][1] = random_u64() | (1ULL << 63) | 1;
		}
		__atomic_store_n(&cookies_set, true, __ATOMIC_RELEASE);
	}
	spin_unlock(&cookie_lock);
}

/* 0 equal, 1 a before b, 2 a after b, in kind type's permuted order. */
static int order(uintptr_t a, uintptr_t b, int type)
{
	long x = (long)((a ^ cookies[type][0]) * cookies[type][1]);
	long y = (long)((b ^ cookies[type][0]) * cookies[type][1]);

	return (x < y) | ((x > y) << 1);
}

/* Linux asks ptrace_may_access(PTRACE_MODE_READ_REALCREDS) of both tasks
 * (EPERM); proc_lock held. */
static bool may_inspect(struct task *t)
{
	return ptrace_may_access_locked(t, false);
}

/*
 * Under proc_lock (which the swaps of uvm, files and fs hold): the address
 * of t's object of kind type, 0 for none (an exited task's memory, files
 * and fs, as Linux's NULL pointers).  sysvsem is set by t alone, without
 * the lock: a snapshot.  No task has an I/O context (there is no I/O
 * scheduler): KCMP_IO compares two absent ones, as between Linux tasks
 * that never got one, CLONE_IO or not.
 */
static uintptr_t object_of(struct task *t, int type)
{
	switch (type) {
	case KCMP_VM:
		return (uintptr_t)t->uvm;
	case KCMP_FILES:
		return (uintptr_t)t->files;
	case KCMP_FS:
		return (uintptr_t)t->fs;
	case KCMP_SIGHAND:
		return (uintptr_t)t->sighand;
	case KCMP_SYSVSEM:
		return (uintptr_t)__atomic_load_n(&t->sysvsem, __ATOMIC_RELAXED);
	default: /* KCMP_IO */
		return 0;
	}
}

/* The file on fd of files (NULL: an exited task's, none), referenced, or
 * NULL.  Linux cuts the index to 32 bits (its lookup takes an unsigned int). */
static struct file *file_at(struct files_table *files, unsigned int fd)
{
	return files && fd <= INT32_MAX ? files_lookup_raw(files, (int)fd) : NULL;
}

/* KCMP_EPOLL_TFD's target in files2, by address into *id: 0, -EBADF (no
 * such epoll fd), -EINVAL (not an epoll), -ENOENT (no such target). */
static int epoll_target(struct files_table *files2, const struct kcmp_epoll_slot *slot,
			uintptr_t *id)
{
	struct file *ef = file_at(files2, slot->efd);
	struct eventpoll *ep;
	int err;

	if (!ef)
		return -EBADF;
	ep = eventpoll_of(ef);
	err = ep ? eventpoll_target(ep, (int)slot->tfd, slot->toff, id) : -EINVAL;
	file_put(ef);
	return err;
}

/*
 * KCMP_FILE and KCMP_EPOLL_TFD, in Linux's order of errors: EFAULT (the
 * slot), EBADF (idx1, then the epoll fd), EINVAL, ENOENT.  Both files are
 * held while compared, so neither address can be reused meanwhile; the
 * epoll's target is compared by the address it had (Linux's rule too).
 */
static long compare_files(struct files_table *files1, struct files_table *files2, int type,
			  unsigned long idx1, unsigned long idx2)
{
	struct kcmp_epoll_slot slot;
	struct file *f1, *f2 = NULL;
	uintptr_t id2 = 0;
	long ret;

	if (type == KCMP_EPOLL_TFD && copy_from_user(&slot, (const void *)idx2, sizeof(slot)))
		return -EFAULT;
	if (!(f1 = file_at(files1, idx1)))
		return -EBADF;
	if (type == KCMP_FILE) {
		f2 = file_at(files2, idx2);
		ret = f2 ? 0 : -EBADF;
		id2 = (uintptr_t)f2;
	} else {
		ret = epoll_target(files2, &slot, &id2);
	}
	if (!ret)
		ret = order((uintptr_t)f1, id2, KCMP_FILE);
	file_put(f1);
	if (f2)
		file_put(f2);
	return ret;
}

SYSCALL_DEFINE5(kcmp, int, pid1, int, pid2, int, type, unsigned long, idx1, unsigned long, idx2)
{
	struct files_table *files1 = NULL, *files2 = NULL;
	struct task *t1, *t2;
	bool by_file = type == KCMP_FILE || type == KCMP_EPOLL_TFD;
	long ret = 0;

	cookies_init();
	spin_lock(&proc_lock);
	t1 = task_find_locked_vnr(pid1);
	t2 = task_find_locked_vnr(pid2);
	if (!t1 || !t2)
		ret = -ESRCH;
	else if (!may_inspect(t1) || !may_inspect(t2))
		ret = -EPERM;
	else if (type < 0 || type >= KCMP_TYPES)
		ret = -EINVAL;
	else if (!by_file)
		ret = order(object_of(t1, type), object_of(t2, type), type);
	else {
		/* borrowed: the tables stay, whatever their tasks do next */
		files1 = t1->files ? files_borrow(t1->files) : NULL;
		files2 = t2->files ? files_borrow(t2->files) : NULL;
	}
	spin_unlock(&proc_lock);
	if (ret || !by_file)
		return ret;
	ret = compare_files(files1, files2, type, idx1, idx2);
	if (files1)
		files_unborrow(files1);
	if (files2)
		files_unborrow(files2);
	return ret;
}
