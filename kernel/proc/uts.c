/*
 * The system's names: uname(2), sethostname(2), setdomainname(2) and the
 * /proc/sys/kernel rows that show the same strings (hostname and
 * domainname writable, as Linux lets root write them; ostype, osrelease
 * and version read-only).  The host and domain names are proc_sys_lock's
 * (fs/proc/proc_sys.h), so a uname never sees half a name.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "proc/sysinfo.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/utsname.h>

/* proc_sys_lock: the names sethostname and setdomainname set. */
static char hostname[UTSNAME_LENGTH] = "fdkernel";
static char domainname[UTSNAME_LENGTH] = "(none)";
/* Constant: ostype, osrelease and version show them. */
static char ostype[] = UTS_SYSNAME, osrelease[] = UTS_RELEASE, version[] = UTS_VERSION;

PROC_SYS_ROW(hostname_row, .path = "kernel/hostname", .mode = 0644, .text = true,
	     .show = proc_sys_string_show, .store = proc_sys_string_store, .data = hostname,
	     .max = UTSNAME_LENGTH);
PROC_SYS_ROW(domainname_row, .path = "kernel/domainname", .mode = 0644, .text = true,
	     .show = proc_sys_string_show, .store = proc_sys_string_store, .data = domainname,
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
	strlcpy(buf, hostname, size);
	spin_unlock(&proc_sys_lock);
}

SYSCALL_DEFINE1(uname, struct utsname *, ubuf)
{
	struct utsname u;

	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, UTS_SYSNAME, sizeof(u.sysname));
	strlcpy(u.release, UTS_RELEASE, sizeof(u.release));
	strlcpy(u.version, UTS_VERSION, sizeof(u.version));
	strlcpy(u.machine, "x86_64", sizeof(u.machine));
	spin_lock(&proc_sys_lock);
	strlcpy(u.nodename, hostname, sizeof(u.nodename));
	strlcpy(u.domainname, domainname, sizeof(u.domainname));
	spin_unlock(&proc_sys_lock);
	return copy_to_user(ubuf, &u, sizeof(u)) ? -EFAULT : 0;
}

/* Linux's checks: EPERM without CAP_SYS_ADMIN, first; EINVAL for a
 * negative length or one over 64 bytes, EFAULT; no NUL needed (the name
 * is the len bytes). */
static long set_name(char *name, const char *uname, int len)
{
	char buf[UTSNAME_LENGTH];

	if (!capable(CAP_SYS_ADMIN))
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
	return set_name(hostname, uname, len);
}

SYSCALL_DEFINE2(setdomainname, const char *, uname, int, len)
{
	return set_name(domainname, uname, len);
}
