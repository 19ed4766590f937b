/*
 * signalfd: a file whose read() takes pending signals of a mask as
 * struct signalfd_siginfo records instead of delivering them.  As on
 * Linux, the file holds only the mask: the signals are the *reader's*
 * (the calling thread's own pending set, then its process's), whoever
 * created the file, so a signalfd passed on by fork or SCM_RIGHTS reads
 * the signals of the process that reads it.  Readers and pollers sleep
 * on their process's queue (thread_group.signalfd_wq), which every signal
 * sent to the process or one of its threads wakes.  docs/signalfd.md.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/event/eventpoll.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/event/signalfd.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "proc/group.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/signalfd.h>

#define SIGSET_BYTES 8

_Static_assert(sizeof(struct signalfd_siginfo) == 128, "Linux's layout");

/* A signalfd's state: its mask, set by signalfd() on the fd at any time
 * (atomic: read by readers and pollers without a lock).  Owned by the
 * file, freed at its release. */
struct signalfd_ctx {
	uint64_t mask; /* never SIGKILL or SIGSTOP */
};

static const struct file_ops signalfd_ops;

static uint64_t ctx_mask(struct file *f)
{
	struct signalfd_ctx *ctx = f->priv;

	return __atomic_load_n(&ctx->mask, __ATOMIC_ACQUIRE);
}

/* What the kernel knows of one signal, in Linux's record: the fields of
 * its layout (signalfd_copyinfo). */
static void fill_siginfo(struct signalfd_siginfo *ssi, int sig, const struct sig_info *info)
{
	*ssi = (struct signalfd_siginfo){
	    .ssi_signo = (uint32_t)sig,
	    .ssi_errno = info->err,
	    .ssi_code = info->code,
	};
	switch (siginfo_layout(sig, info->code)) {
	case SIL_RT:
		ssi->ssi_ptr = info->kill.value;
		ssi->ssi_int = (int32_t)info->kill.value;
		__attribute__((fallthrough));
	case SIL_KILL:
		ssi->ssi_pid = (uint32_t)info->kill.pid;
		ssi->ssi_uid = info->kill.uid;
		break;
	case SIL_TIMER:
		ssi->ssi_tid = (uint32_t)info->timer.tid;
		ssi->ssi_overrun = (uint32_t)info->timer.overrun;
		ssi->ssi_ptr = info->timer.value;
		ssi->ssi_int = (int32_t)info->timer.value;
		break;
	case SIL_CHLD:
		ssi->ssi_pid = (uint32_t)info->chld.pid;
		ssi->ssi_uid = info->chld.uid;
		ssi->ssi_status = info->chld.status;
		ssi->ssi_utime = (uint64_t)info->chld.utime;
		ssi->ssi_stime = (uint64_t)info->chld.stime;
		break;
	case SIL_FAULT:
		ssi->ssi_addr = info->fault.addr;
		break;
	case SIL_POLL:
		ssi->ssi_band = (uint32_t)info->poll.band;
		ssi->ssi_fd = info->poll.fd;
		break;
	}
}

/* The next signal of f's mask for the current thread: its number, 0 if
 * none and nonblock, or -ERESTARTSYS when a signal interrupts the wait. */
static int signalfd_dequeue(struct file *f, bool nonblock, struct sig_info *info)
{
	struct task *t = current();
	int sig = 0, err;

	if (nonblock)
		return signal_dequeue(t, ctx_mask(f), info);
	err = wait_event_interruptible(&t->group->signalfd_wq,
				       (sig = signal_dequeue(t, ctx_mask(f), info)) != 0);
	return err ? err : sig;
}

/*
 * As many whole records as fit and are pending; only the first waits
 * (unless O_NONBLOCK).  A buffer for none is -EINVAL; a fault returns the
 * records copied before it, else -EFAULT (that signal is lost, as Linux).
 */
static long signalfd_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	size_t count = iov_iter_count(to) / sizeof(struct signalfd_siginfo);
	bool nonblock = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK;
	struct signalfd_siginfo ssi;
	struct sig_info info;
	long total = 0;
	int sig;

	(void)pos;
	if (!count)
		return -EINVAL;
	for (; count; count--) {
		sig = signalfd_dequeue(f, nonblock || total, &info);
		if (sig <= 0)
			return total ? total : sig ? sig : -EAGAIN;
		fill_siginfo(&ssi, sig, &info);
		if (copy_to_iter_full(&ssi, sizeof(ssi), to))
			return total ? total : -EFAULT;
		total += (long)sizeof(ssi);
	}
	return total;
}

/* Readable while a signal of the mask is pending for the polling thread
 * (Linux evaluates for the caller, not the creator). */
static unsigned signalfd_poll(struct file *f, struct poll_table *pt)
{
	struct task *t = current();

	poll_wait(f, &t->group->signalfd_wq, pt);
	return signal_pending_set(t) & ctx_mask(f) ? POLLIN : 0;
}

static void signalfd_release(struct file *f)
{
	kfree(f->priv);
}

static const struct file_ops signalfd_ops = {
    .anon_name = "anon_inode:[signalfd]",
    .read_iter = signalfd_read,
    .poll = signalfd_poll,
    .release = signalfd_release,
};

void signalfd_group_free(struct thread_group *g)
{
	eventpoll_wq_gone(&g->signalfd_wq);
}

/* A new signalfd on mask: its fd, or -ENOMEM / -EMFILE. */
static long signalfd_create(uint64_t mask, int flags)
{
	struct signalfd_ctx *ctx = kmalloc(sizeof(*ctx));
	struct file *f = NULL;
	long fd;

	if (ctx)
		f = file_alloc(&signalfd_ops, O_RDWR | (flags & SFD_NONBLOCK), ctx);
	if (!f) {
		kfree(ctx);
		return -ENOMEM;
	}
	ctx->mask = mask;
	fd = fd_install_new(f, (unsigned int)flags & (SFD_CLOEXEC | SFD_CLOFORK));
	if (fd < 0)
		file_put(f);
	return fd;
}

/* A new mask for the signalfd at fd: fd, or -EBADF, -EINVAL (not a signalfd). */
static long signalfd_update(int fd, uint64_t mask)
{
	struct file *f = files_lookup(current()->files, fd);
	long ret = fd;

	if (!f)
		return -EBADF;
	if (f->ops == &signalfd_ops) {
		__atomic_store_n(&((struct signalfd_ctx *)f->priv)->mask, mask, __ATOMIC_RELEASE);
		wake_up(&current()->group->signalfd_wq); /* readers check the new mask */
	} else {
		ret = -EINVAL;
	}
	file_put(f);
	return ret;
}

/* Linux's order: sizemask, the mask's address, flags, then the fd. */
static long do_signalfd4(int fd, const uint64_t *umask, size_t sizemask, int flags)
{
	uint64_t mask;

	if (sizemask != SIGSET_BYTES)
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK | SFD_CLOFORK))
		return -EINVAL;
	mask &= ~SIG_UNBLOCKABLE; /* silently, as Linux */
	return fd == -1 ? signalfd_create(mask, flags) : signalfd_update(fd, mask);
}

SYSCALL_DEFINE3(signalfd, int, fd, const uint64_t *, umask, size_t, sizemask)
{
	return do_signalfd4(fd, umask, sizemask, 0);
}

SYSCALL_DEFINE4(signalfd4, int, fd, const uint64_t *, umask, size_t, sizemask, int, flags)
{
	return do_signalfd4(fd, umask, sizemask, flags);
}
