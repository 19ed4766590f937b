/* What the image-account tests (users_*.c) share: asserting a file's
 * owner, group and permission bits. */
#ifndef OWNER_UTIL_H
#define OWNER_UTIL_H

#include <sys/stat.h>

#include "tap.h"

/* One assertion: PATH (not followed) has MODE's bits and belongs to UID:GID. */
static inline void owned(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st = {0};
	int err = lstat(path, &st);

	ok(err == 0 && (st.st_mode & 07777) == mode && st.st_uid == uid && st.st_gid == gid,
	   "%s: %04o %d:%d (is %04o %d:%d)", path, (unsigned)mode, (int)uid, (int)gid,
	   (unsigned)(st.st_mode & 07777), (int)st.st_uid, (int)st.st_gid);
}

#endif
