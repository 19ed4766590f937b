/*
 * /proc/sys/net/ipv4/conf: Linux's per-interface settings, for the one
 * interface fdkernel has, the loopback ("lo"), beside "all" and "default".
 * Only "tag" so far: a number the administrator may store and read back,
 * which Linux itself gives no meaning.  As Linux's devinet_conf_proc, a
 * write to default/tag also sets lo/tag unless lo's was written itself.
 * There is one network name space (no CONFIG_NET_NS: clone's
 * CLONE_NEWNET is EINVAL), so one set of values.
 */
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"

/* Serialises the writes of the rows below: protects lo_tag_set and the
 * copy of default's tag to lo's (a reader loads an int atomically). */
static struct spinlock devconf_lock = SPINLOCK_INIT("devconf");
static int all_tag, default_tag, lo_tag;
static bool lo_tag_set; /* lo's tag was written: default's no longer follows */

static long lo_tag_store(const struct proc_sys_row *row, const char *text, size_t len,
			 uint64_t *pos)
{
	long r;

	spin_lock(&devconf_lock);
	r = proc_sys_int_store(row, text, len, pos);
	if (r >= 0)
		lo_tag_set = true;
	spin_unlock(&devconf_lock);
	return r;
}

static long default_tag_store(const struct proc_sys_row *row, const char *text, size_t len,
			      uint64_t *pos)
{
	long r;

	spin_lock(&devconf_lock);
	r = proc_sys_int_store(row, text, len, pos);
	if (r >= 0 && !lo_tag_set)
		__atomic_store_n(&lo_tag, __atomic_load_n(&default_tag, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	spin_unlock(&devconf_lock);
	return r;
}

#define TAG_ROW(name, dir, var, writer)                                                            \
	PROC_SYS_ROW(name, .path = "net/ipv4/conf/" dir "/tag", .mode = 0644,                      \
		     .show = proc_sys_int_show, .store = writer, .data = &var,                     \
		     .min = -2147483647L - 1, .max = 2147483647L)

TAG_ROW(all_tag_row, "all", all_tag, proc_sys_int_store);
TAG_ROW(default_tag_row, "default", default_tag, default_tag_store);
TAG_ROW(lo_tag_row, "lo", lo_tag, lo_tag_store);
