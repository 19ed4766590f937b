/*
 * /proc/config.gz: this kernel's configuration in Linux's option names
 * (Linux's CONFIG_IKCONFIG_PROC), for the programs and test suites that
 * gate features on it (LTP's needs_kconfigs: without the file its tests
 * break instead of skipping what is missing).  Derived wherever the kernel
 * can tell: an option that stands for system calls is set exactly when the
 * syscall table has them all, and the build's switches (LOCKDEP, CPUs,
 * the tick) come from the build.  Features fdkernel lacks are listed as
 * "not set", as a Linux build without them lists them.  Served gzipped,
 * in stored (uncompressed) deflate blocks: zcat reads it, and the kernel
 * needs no compressor.
 */
#include "lib/crc32.h"
#include "sys/kconfig.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/sysinfo.h"
#include "sys/syscall_list.h"
#include <uapi/errno.h>

/* The names of the implemented calls (the table's own list). */
#define NAME_ENTRY(nr, name) #name,
static const char *const implemented[] = {SYSCALL_LIST(NAME_ENTRY)};

/* Options that stand for system calls: set when all of calls (names,
 * space-separated) are implemented, as Linux's Kconfig selects them. */
static const struct {
	const char *option, *calls;
} by_calls[] = {
    {"ADVISE_SYSCALLS", "madvise fadvise64"},
    {"AIO", "io_setup io_submit io_getevents io_destroy"},
    {"BPF_SYSCALL", "bpf"},
    {"CROSS_MEMORY_ATTACH", "process_vm_readv process_vm_writev"},
    {"EPOLL", "epoll_create1 epoll_ctl epoll_wait"},
    {"EVENTFD", "eventfd2"},
    {"FANOTIFY", "fanotify_init"},
    {"FHANDLE", "name_to_handle_at open_by_handle_at"},
    {"FILE_LOCKING", "flock"},
    {"FUTEX", "futex"},
    {"INOTIFY_USER", "inotify_init1 inotify_add_watch"},
    {"IO_URING", "io_uring_setup"},
    {"KCMP", "kcmp"},
    {"MEMBARRIER", "membarrier"},
    {"MEMFD_CREATE", "memfd_create"},
    {"MODULES", "init_module"},
    {"PERF_EVENTS", "perf_event_open"},
    {"POSIX_TIMERS", "timer_create timer_settime timer_delete"},
    {"QUOTACTL", "quotactl"},
    {"RSEQ", "rseq"},
    {"SECCOMP", "seccomp"},
    {"SIGNALFD", "signalfd4"},
    {"SYSVIPC", "shmget semget msgget"},
    {"TIMERFD", "timerfd_create"},
    {"USERFAULTFD", "userfaultfd"},
};

/* Options that stand for a file system type: set when the kernel has
 * the type (fs/super.c's list, as /proc/filesystems shows it). */
static const struct {
	const char *option, *fs;
} by_fs[] = {
    {"TMPFS", "tmpfs"},	 {"DEVTMPFS", "devtmpfs"},  {"SYSFS", "sysfs"},
    {"EXT2_FS", "ext2"}, {"UNIX98_PTYS", "devpts"},
};

/* What the kernel is, whatever its calls: x86_64 with 4-level paging,
 * /proc with /proc/sys, loopback AF_UNIX, AF_INET and AF_INET6, dnotify
 * (fcntl's F_NOTIFY), the block layer with loop devices (kernel/block),
 * uts, ipc, pid, time and user namespaces (and so NAMESPACES; mount
 * namespaces have no option), and this file itself. */
static const char *const always[] = {
    "X86_64",	    "64BIT",	  "MMU",     "PROC_FS",	  "PROC_SYSCTL", "NET",		  "UNIX",
    "INET",	    "IPV6",	  "DNOTIFY", "MULTIUSER", "IKCONFIG",	 "IKCONFIG_PROC", "BLOCK",
    "BLK_DEV_LOOP", "NAMESPACES", "UTS_NS",  "IPC_NS",	  "PID_NS",	 "TIME_NS",	  "USER_NS",
};

/* Features fdkernel does not have (update when one arrives): namespaces
 * but mount, uts, ipc, pid, time and user ones, control groups, NUMA,
 * swap, huge pages, memory-failure injection, the sanitizers.  Programs
 * ask about these. */
static const char *const never[] = {
    "NET_NS",	      "CGROUPS", "NUMA",  "SWAP", "HUGETLBFS", "TRANSPARENT_HUGEPAGE",
    "MEMORY_FAILURE", "KASAN",	 "UBSAN",
};

static bool call_implemented(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); i++)
		if (strlen(implemented[i]) == len && !memcmp(implemented[i], name, len))
			return true;
	return false;
}

/* Whether every call of the space-separated list is implemented. */
static bool calls_implemented(const char *calls)
{
	while (*calls) {
		const char *space = strchr(calls, ' ');
		size_t len = space ? (size_t)(space - calls) : strlen(calls);
		if (!call_implemented(calls, len))
			return false;
		calls += len + (calls[len] == ' ');
	}
	return true;
}

struct text {
	char *buf;
	size_t size, len;
};

static void line(struct text *t, const char *option, const char *value)
{
	int n =
	    value ? snprintk(t->buf + t->len, t->size - t->len, "CONFIG_%s=%s\n", option, value)
		  : snprintk(t->buf + t->len, t->size - t->len, "# CONFIG_%s is not set\n", option);

	if (n > 0 && (size_t)n < t->size - t->len)
		t->len += n;
}

/* The configuration text into t. */
static void config_text(struct text *t)
{
	char num[16];

	t->len = snprintk(t->buf, t->size, "#\n# fdkernel %s: its features as Linux options\n#\n",
			  FDKERNEL_VERSION);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		line(t, always[i], "y");
	line(t, "PGTABLE_LEVELS", "4");
	line(t, "SMP", "y");
	snprintk(num, sizeof(num), "%d", MAX_CPUS);
	line(t, "NR_CPUS", num);
	snprintk(num, sizeof(num), "%d", TIMER_HZ);
	line(t, "HZ", num);
#ifdef LOCKDEP
	line(t, "LOCKDEP", "y");
	line(t, "PROVE_LOCKING", "y");
#else
	line(t, "LOCKDEP", NULL);
	line(t, "PROVE_LOCKING", NULL);
#endif
	for (size_t i = 0; i < sizeof(by_calls) / sizeof(by_calls[0]); i++)
		line(t, by_calls[i].option, calls_implemented(by_calls[i].calls) ? "y" : NULL);
	for (size_t i = 0; i < sizeof(by_fs) / sizeof(by_fs[0]); i++)
		line(t, by_fs[i].option, fs_type_find(by_fs[i].fs) ? "y" : NULL);
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		line(t, never[i], NULL);
	/* What Linux gates on CHECKPOINT_RESTORE and programs and LTP use
	 * is here: kcmp, ns_last_pid, the <kind>_next_id files, msgrcv's
	 * MSG_COPY.  prctl's PR_SET_MM and PR_GET_TID_ADDRESS and
	 * /proc/<pid>/map_files are not (docs/linux-abi.md). */
	line(t, "CHECKPOINT_RESTORE", calls_implemented("kcmp msgget") ? "y" : NULL);
}

static void put_le(uint8_t *p, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

#define GZ_HEADER  10
#define GZ_TRAILER 8
#define STORED_MAX 65535 /* a stored deflate block's largest length */

/* The gzip member of in[0..len) in stored blocks into out (room for
 * gz_size(len) bytes): its length (RFC 1951 3.2.4, RFC 1952). */
static size_t gz_size(size_t len)
{
	return GZ_HEADER + len + 5 * (len / STORED_MAX + 1) + GZ_TRAILER;
}

static size_t gz_store(const uint8_t *in, size_t len, uint8_t *out)
{
	static const uint8_t header[GZ_HEADER] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	size_t o = GZ_HEADER, done = 0;

	memcpy(out, header, GZ_HEADER);
	do {
		size_t n = len - done < STORED_MAX ? len - done : STORED_MAX;
		out[o] = done + n == len; /* BFINAL, BTYPE 00: stored */
		put_le(out + o + 1, n, 2);
		put_le(out + o + 3, ~n & 0xffff, 2);
		memcpy(out + o + 5, in + done, n);
		o += 5 + n;
		done += n;
	} while (done < len);
	put_le(out + o, crc32_update(0, in, len), 4);
	put_le(out + o + 4, len, 4);
	return o + GZ_TRAILER;
}

#define TEXT_MAX 4096

/* f->priv: the gzip file, made at the first read and kept until release,
 * so every read of one open file sees the same bytes. */
struct config_gz {
	size_t len;
	uint8_t data[];
};

static struct config_gz *config_gz_make(void)
{
	struct text t = {.buf = kmalloc(TEXT_MAX), .size = TEXT_MAX};
	struct config_gz *gz = NULL;

	if (t.buf) {
		config_text(&t);
		if ((gz = kmalloc(sizeof(*gz) + gz_size(t.len))))
			gz->len = gz_store((const uint8_t *)t.buf, t.len, gz->data);
	}
	kfree(t.buf);
	return gz;
}

static long config_gz_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct config_gz *gz = __atomic_load_n((struct config_gz **)&f->priv, __ATOMIC_ACQUIRE);
	struct config_gz *none = NULL;
	size_t len = iov_iter_count(to), n;

	if (!gz) {
		if (!(gz = config_gz_make()))
			return -ENOMEM;
		/* Threads sharing the fd may race here: the first one wins. */
		if (!__atomic_compare_exchange_n((struct config_gz **)&f->priv, &none, gz, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			kfree(gz);
			gz = none;
		}
	}
	if (*pos >= gz->len)
		return 0;
	if (len > gz->len - *pos)
		len = gz->len - *pos;
	n = copy_to_iter(gz->data + *pos, len, to);
	*pos += n;
	return n || !len ? (long)n : -EFAULT;
}

/* Its own release: f->priv is a config_gz, not a snapshot's text. */
static void config_gz_release(struct file *f)
{
	kfree(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}

const struct file_ops config_gz_ops = {
    .read_iter = config_gz_read,
    .release = config_gz_release,
};
