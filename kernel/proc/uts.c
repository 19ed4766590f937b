/*
 * The system's names: uname(2), sethostname(2), setdomainname(2) and the
 * /proc/sys/kernel rows that show the same strings (hostname and
 * domainname writable, as Linux lets root write them; ostype, osrelease
 * and version read-only).  The host and domain names are the caller's
 * uts namespace's (Linux's CLONE_NEWUTS); their characters are
 * proc_sys_lock's (fs/proc/proc_sys.h), so a uname never sees half a
 * name.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/nsfs.h"
#include "fs/proc/proc_sys.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/nsproxy.h"
#include "proc/sysinfo.h"
#include "proc/user_namespace.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/utsname.h>

/*
 * Lifetime: refs counts the nsproxies and nsfs inodes holding the
 * namespace (atomic); the last put frees it.  The initial one holds a
 * reference of its own and is never freed.
 */
struct uts_namespace {
	struct ns_common ns;
	int refs;
	struct user_namespace *owner;  /* referenced; NULL: the initial one */
	char nodename[UTSNAME_LENGTH]; /* proc_sys_lock */
	char domainname[UTSNAME_LENGTH];
};

static const struct ns_ops uts_ops;
struct uts_namespace init_uts_ns = {
    .ns = {NS_UTS_INUM, &uts_ops}, .refs = 1, .nodename = "fdkernel", .domainname = "(none)"};
static unsigned long live_uts; /* atomic: namespaces but the initial one */

/* Constant: ostype, osrelease and version show them. */
static char ostype[] = UTS_SYSNAME, osrelease[] = UTS_RELEASE, version[] = UTS_VERSION;

struct uts_namespace *current_uts(void)
{
	return current_nsproxy()->uts;
}

static void *hostname_of(const struct proc_sys_row *row)
{
	(void)row;
	return current_uts()->nodename;
}

static void *domainname_of(const struct proc_sys_row *row)
{
	(void)row;
	return current_uts()->domainname;
}

PROC_SYS_ROW(hostname_row, .path = "kernel/hostname", .mode = 0644, .text = true,
	     .show = proc_sys_string_show, .store = proc_sys_string_store, .data_of = hostname_of,
	     .max = UTSNAME_LENGTH);
PROC_SYS_ROW(domainname_row, .path = "kernel/domainname", .mode = 0644, .text = true,
	     .show = proc_sys_string_show, .store = proc_sys_string_store, .data_of = domainname_of,
	     .max = UTSNAME_LENGTH);
PROC_SYS_ROW(ostype_row, .path = "kernel/ostype", .mode = 0444, .text = true,
	     .show = proc_sys_string_show, .data = ostype, .max = sizeof(ostype));
PROC_SYS_ROW(osrelease_row, .path = "kernel/osrelease", .mode = 0444, .text = true,
	     .show = proc_sys_string_show, .data = osrelease, .max = sizeof(osrelease));
PROC_SYS_ROW(version_row, .path = "kernel/version", .mode = 0444, .text = true,
	     .show = proc_sys_string_show, .data = version, .max = sizeof(version));

void uts_hostname(char *buf, size_t size)
{
	spin_lock(&proc_sys_lock);
	strlcpy(buf, current_uts()->nodename, size);
	spin_unlock(&proc_sys_lock);
}

SYSCALL_DEFINE1(uname, struct utsname *, ubuf)
{
	struct uts_namespace *uts = current_uts();
	struct utsname u;

	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, UTS_SYSNAME, sizeof(u.sysname));
	strlcpy(u.release, UTS_RELEASE, sizeof(u.release));
	strlcpy(u.version, UTS_VERSION, sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	spin_lock(&proc_sys_lock);
	strlcpy(u.nodename, uts->nodename, sizeof(u.nodename));
	strlcpy(u.domainname, uts->domainname, sizeof(u.domainname));
	spin_unlock(&proc_sys_lock);
	return copy_to_user(ubuf, &u, sizeof(u)) ? -EFAULT : 0;
}

/* Linux's checks: EPERM without CAP_SYS_ADMIN over the namespace's
 * owner, first; EINVAL for a negative length or one over 64 bytes,
 * EFAULT; no NUL needed (the name is the len bytes). */
static long set_name(char *name, const char *uname, int len)
{
	char buf[UTSNAME_LENGTH];

	if (!ns_capable(ns_owner(&current_uts()->ns), CAP_SYS_ADMIN))
		return -EPERM;
	if (len < 0 || len > UTSNAME_LENGTH - 1)
		return -EINVAL;
	if (copy_from_user(buf, uname, len))
		return -EFAULT;
	buf[len] = '\0';
	spin_lock(&proc_sys_lock);
	memcpy(name, buf, len + 1);
	spin_unlock(&proc_sys_lock);
	return 0;
}

SYSCALL_DEFINE2(sethostname, const char *, uname, int, len)
{
	return set_name(current_uts()->nodename, uname, len);
}

SYSCALL_DEFINE2(setdomainname, const char *, uname, int, len)
{
	return set_name(current_uts()->domainname, uname, len);
}

/* ---- the namespaces ---- */

struct uts_namespace *uts_ns_copy(struct uts_namespace *old, struct user_namespace *owner)
{
	struct uts_namespace *uts = kzalloc(sizeof(*uts));

	if (!uts)
		return NULL;
	uts->ns = (struct ns_common){nsfs_alloc_inum(), &uts_ops};
	user_ns_get(uts->owner = owner);
	uts->refs = 1;
	spin_lock(&proc_sys_lock);
	memcpy(uts->nodename, old->nodename, sizeof(uts->nodename));
	memcpy(uts->domainname, old->domainname, sizeof(uts->domainname));
	spin_unlock(&proc_sys_lock);
	__atomic_add_fetch(&live_uts, 1, __ATOMIC_RELAXED);
	return uts;
}

void uts_ns_get(struct uts_namespace *uts)
{
	__atomic_add_fetch(&uts->refs, 1, __ATOMIC_RELAXED);
}

void uts_ns_put(struct uts_namespace *uts)
{
	if (__atomic_sub_fetch(&uts->refs, 1, __ATOMIC_ACQ_REL))
		return;
	user_ns_put(uts->owner);
	kfree(uts);
	__atomic_sub_fetch(&live_uts, 1, __ATOMIC_RELAXED);
}

struct ns_common *uts_ns_common(struct uts_namespace *uts)
{
	return &uts->ns;
}

unsigned long uts_ns_count(void)
{
	return __atomic_load_n(&live_uts, __ATOMIC_RELAXED);
}

static struct uts_namespace *to_uts(struct ns_common *ns)
{
	return container_of(ns, struct uts_namespace, ns);
}

static void uts_ns_get_common(struct ns_common *ns)
{
	uts_ns_get(to_uts(ns));
}

static void uts_ns_put_common(struct ns_common *ns)
{
	uts_ns_put(to_uts(ns));
}

/* setns: Linux's utsns_install asks CAP_SYS_ADMIN over the namespace's
 * user namespace and the caller's. */
static int uts_install(struct ns_common *ns)
{
	struct nsproxy *n;

	if (!ns_may_install(ns))
		return -EPERM;
	if (!(n = nsproxy_copy_current()))
		return -ENOMEM;
	uts_ns_get(to_uts(ns));
	uts_ns_put(n->uts);
	n->uts = to_uts(ns);
	nsproxy_switch(n);
	return 0;
}

static struct user_namespace *uts_owner(struct ns_common *ns)
{
	return to_uts(ns)->owner;
}

static const struct ns_ops uts_ops = {
    .kind = NS_UTS,
    .get = uts_ns_get_common,
    .put = uts_ns_put_common,
    .install = uts_install,
    .owner = uts_owner,
};
