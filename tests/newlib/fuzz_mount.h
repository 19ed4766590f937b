/* The fuzzer's mount scenario: helpers walk into a tmpfs, make and rename
 * directories there, keep a working directory or a chroot in it, while
 * the scenario unmounts it (lazily or not), remounts it read-only and
 * back, stacks other mounts on it, binds its directory over itself or
 * the whole tree (recursively) into it and makes such binds read-only;
 * helpers may take a mount namespace of their own and mount there.
 * Teardown: every mount off, then
 * the mount point must be a plain directory again; the leak check counts
 * what is left (mounts, super blocks, inodes).  On the host it plays in
 * a mount namespace of its own, or not at all without root.
 * Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_MOUNT_H
#define FUZZ_MOUNT_H

#define FZ_MS_RDONLY  1L
#define FZ_MS_REMOUNT 32L
#define FZ_MS_BIND    4096L
#define FZ_MS_REC     16384L
#define FZ_MS_PRIVATE (1L << 18)
#define FZ_MNT_DETACH 2L

static long fz_mount(const char *src, const char *dir, const char *type, long flags,
		     const char *data)
{
	const long a[6] = {(long)src, (long)dir, (long)type, flags, (long)data, 0};
	return raw_syscall(__NR_mount, a);
}

/* A helper doing what users do in a mounted directory, for a while. */
static void mount_walker(void)
{
	struct stat st;

	if (helper() != 0)
		return;
	for (int i = 0; i < 64; i++) {
		switch (below(7)) {
		case 0:
			chdir(one_in(2) ? "mt/d" : "mt");
			break;
		case 1:
			close(open("mt/d/f", O_CREAT | O_WRONLY, 0600));
			break;
		case 2: /* a directory renamed while others walk through it */
			rename("mt/d", "mt/e"), rename("mt/e", "mt/d");
			break;
		case 3:
			mkdir("mt/d", 0700), mkdir("mt/d/x", 0700), rmdir("mt/d/x");
			break;
		case 4:
			stat("mt/d/../d/f", &st), stat("../..", &st);
			break;
		case 5:
			if (one_in(4))
				raw_call(__NR_chroot, (long)"mt", 0, 0);
			break;
		case 6: /* a namespace of its own, which goes when the helper does */
			if (one_in(4) &&
			    raw_call(__NR_unshare, 0x20000 /* CLONE_NEWNS */, 0, 0) == 0)
				fz_mount("none", "mt/d", "tmpfs", 0, "size=64k");
			break;
		}
	}
	_exit(0);
}

static void scenario_mounts(void)
{
	if (!on_fdkernel() && (raw_call(__NR_unshare, 0x20000 /* CLONE_NEWNS */, 0, 0) ||
			       fz_mount(NULL, "/", NULL, FZ_MS_REC | FZ_MS_PRIVATE, NULL)))
		return; /* no namespace of our own: the host's mounts stay untouched */
	mkdir("mt", 0700);
	if (fz_mount("none", "mt", "tmpfs", 0, "size=256k")) {
		rmdir("mt");
		return;
	}
	mkdir("mt/d", 0700);
	for (int i = 0, n = 1 + (int)below(3); i < n; i++)
		mount_walker();
	for (int i = 0; i < 16; i++) {
		switch (below(6)) {
		case 0:
			if (raw_call(__NR_umount2, (long)"mt", one_in(2) ? FZ_MNT_DETACH : 0, 0) ==
			    0)
				fz_mount("none", "mt", "tmpfs", 0, "size=64k"), mkdir("mt/d", 0700);
			break;
		case 1:
			fz_mount(NULL, "mt", NULL, FZ_MS_REMOUNT | (one_in(2) ? FZ_MS_RDONLY : 0),
				 NULL);
			break;
		case 2: /* a mount stacked on the first */
			fz_mount("none", "mt", "tmpfs", 0, NULL);
			break;
		case 3:
			settle();
			break;
		case 4: /* mount --bind d d, or --rbind mt mt/d */
			if (one_in(2))
				fz_mount("mt/d", "mt/d", NULL, FZ_MS_BIND, NULL);
			else
				fz_mount("mt", "mt/d", NULL, FZ_MS_BIND | FZ_MS_REC, NULL);
			break;
		case 5:
			fz_mount(NULL, "mt/d", NULL,
				 FZ_MS_REMOUNT | FZ_MS_BIND | (one_in(2) ? FZ_MS_RDONLY : 0), NULL);
			break;
		}
	}
	if (one_in(2))
		kill_helpers();
	for (int i = 0; i < helpers.n;)
		if (helper_wait(helpers.pid[i], HELPER_END_MS) < 0)
			kill_helper(i);
	/* Binds on mt/d may sit on the tmpfs's d or on the bare directory's. */
	for (bool more = true; more;) {
		more = false;
		while (raw_call(__NR_umount2, (long)"mt/d", FZ_MNT_DETACH, 0) == 0)
			more = true;
		while (raw_call(__NR_umount2, (long)"mt", FZ_MNT_DETACH, 0) == 0)
			more = true;
	}
	/* What walkers made while nothing was mounted is in the directory itself. */
	unlink("mt/d/f"), rmdir("mt/d/x"), rmdir("mt/d"), unlink("mt/e/f"), rmdir("mt/e");
	if (rmdir("mt") != 0 && errno == EBUSY)
		finding(F_MOUNT_LEFT);
}

#endif
