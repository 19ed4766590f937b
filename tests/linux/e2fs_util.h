/* The host's e2fsprogs, for the tests whose disks the host checks after
 * QEMU exits (ext2_rw --check, ext2_crash --check). */
#ifndef LINUX_E2FS_UTIL_H
#define LINUX_E2FS_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* The path of an e2fsprogs tool (/usr/sbin or /sbin), in memory of its
 * own (never freed: a test asks a few times). */
static inline const char *e2fs_tool(const char *name)
{
	char buf[64];

	snprintf(buf, sizeof buf, "/usr/sbin/%s", name);
	if (access(buf, X_OK))
		snprintf(buf, sizeof buf, "/sbin/%s", name);
	return strdup(buf);
}

/* Whether e2fsck and debugfs are there. */
static inline bool e2fs_tools_present(void)
{
	return !access(e2fs_tool("e2fsck"), X_OK) && !access(e2fs_tool("debugfs"), X_OK);
}

/* A tool's wait status, its output into out (run_capture). */
static inline int e2fs_run(char *const argv[], char *out, size_t size)
{
	char *envp[] = {"PATH=/usr/sbin:/sbin:/usr/bin:/bin", NULL};

	return run_capture(argv[0], argv, envp, out, size);
}

#endif
