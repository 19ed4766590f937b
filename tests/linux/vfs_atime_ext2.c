/* Access times on ext2 (as vfs_atime on a tmpfs): relatime by default,
 * its rules, strictatime, noatime and nodiratime by remount, statfs and
 * /proc/self/mounts; an atime a read wrote is on the disk (a new mount
 * reads it back), as Linux's ext2 marks the inode dirty.  On a scratch
 * ext2 made as LTP's tests make one (ext2_scratch.h), as root. */
#define _GNU_SOURCE
#include "ext2_scratch.h"
#include "atime_util.h"

int main(void)
{
	struct scratch s;
	time_t later = time(NULL) + 3600, fa, da;

	scratch_ext2(&s, "vfs_atime_ext2");
	plan(15);
	make_files(s.mnt);
	ok(st_atime_flags(s.mnt) == ST_RELATIME && options_are(s.mnt, "relatime"),
	   "ext2: relatime by default");
	relatime_rules(s.mnt, "ext2");
	strict_and_no(s.mnt, "ext2");
	ok(set_times(path_at(s.mnt, "f"), OLD, OLD) && read_file(path_at(s.mnt, "f"), 0) &&
	       set_times(path_at(s.mnt, "d"), later, OLD) &&
	       mount(NULL, s.mnt, NULL, MS_REMOUNT | MS_STRICTATIME, NULL) == 0 &&
	       read_dir(path_at(s.mnt, "d")),
	   "ext2: a read and a readdir update a file's and a directory's atime");
	fa = atime_of(path_at(s.mnt, "f"));
	da = atime_of(path_at(s.mnt, "d"));
	ok(umount(s.mnt) == 0 && mount(s.dev, s.mnt, "ext2", 0, NULL) == 0 &&
	       atime_of(path_at(s.mnt, "f")) == fa && atime_of(path_at(s.mnt, "d")) == da &&
	       fa > OLD && da < later,
	   "ext2: the atimes are on the disk (a new mount reads them back)");
	scratch_done(&s);
	return done();
}
