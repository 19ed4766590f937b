/* Tests that mount: on the host they need root and a mount namespace of
 * their own, with / private, so that nothing they mount is seen outside
 * and all of it goes when they exit; in fdkernel they run as they are. */
#ifndef LINUX_MOUNT_NS_H
#define LINUX_MOUNT_NS_H

#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include "testutil.h"

static inline void own_mount_namespace(void)
{
	if (on_fdkernel())
		return;
	if (geteuid() != 0)
		skip_all("mounting needs root on the host");
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		skip_all("no mount namespace on this host");
}

#endif
