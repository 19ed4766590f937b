/* Privilege checks on making device nodes, taking leases and taking a
 * terminal: mknod of a character or block device needs CAP_MKNOD (EPERM,
 * after EEXIST and the directory's EACCES) while FIFOs, sockets, regular
 * files and whiteouts (character 0:0) do not; F_SETLEASE on a file one
 * does not own needs CAP_LEASE (EACCES, after a bad type's EINVAL, before
 * a directory's EINVAL; F_UNLCK too); TIOCSCTTY through a terminal file
 * not open for reading needs CAP_SYS_ADMIN (EPERM). */
#include "cred_util.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>

#define CAP_MKNOD_BIT	  (1ULL << 27)
#define CAP_LEASE_BIT	  (1ULL << 28)
#define CAP_SYS_ADMIN_BIT (1ULL << 21)

static char dir[64];
static char path_buf[128];

static const char *in_dir(const char *name)
{
	snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
	return path_buf;
}

static void mknod_user(void)
{
	struct stat st;

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(mknod(in_dir("c"), S_IFCHR | 0600, makedev(1, 3)), EPERM,
		 "a character device: EPERM");
	is_errno(mknod(in_dir("b"), S_IFBLK | 0600, makedev(7, 0)), EPERM, "a block device: EPERM");
	ok(mknod(in_dir("f"), S_IFIFO | 0600, 0) == 0, "a FIFO: fine");
	ok(mknod(in_dir("s"), S_IFSOCK | 0600, 0) == 0, "a socket node: fine");
	ok(mknod(in_dir("r"), S_IFREG | 0600, 0) == 0, "a regular file: fine");
	ok(mknod(in_dir("w"), S_IFCHR | 0600, makedev(0, 0)) == 0 && stat(in_dir("w"), &st) == 0 &&
	       S_ISCHR(st.st_mode) && st.st_rdev == 0,
	   "a whiteout (character 0:0): fine");
	is_errno(mknod(in_dir("r"), S_IFCHR | 0600, makedev(1, 3)), EEXIST,
		 "an existing name: EEXIST first");
	is_errno(mknod("/etc/fdk_cred_nodes", S_IFCHR | 0600, makedev(1, 3)), EACCES,
		 "an unwritable directory: EACCES before EPERM");
}

static void mknod_root(void)
{
	struct caps c = caps_of(0);

	ok(mknod(in_dir("c0"), S_IFCHR | 0600, makedev(1, 3)) == 0, "root: a character device");
	ok(caps_set(c.eff & ~CAP_MKNOD_BIT, c.prm, c.inh) == 0, "drop CAP_MKNOD");
	is_errno(mknod(in_dir("c1"), S_IFCHR | 0600, makedev(1, 3)), EPERM,
		 "root without CAP_MKNOD: EPERM");
	ok(mknod(in_dir("f1"), S_IFIFO | 0600, 0) == 0, "a FIFO still: fine");
}

/* root owns "rootfile" and the directory; U1 owns "mine". */
static void leases_user(void)
{
	int theirs = open(in_dir("rootfile"), O_RDONLY), d = open(dir, O_RDONLY), mine;

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	mine = open(in_dir("mine"), O_CREAT | O_RDONLY, 0644);
	is_errno(fcntl(theirs, F_SETLEASE, F_RDLCK), EACCES, "a lease on root's file: EACCES");
	is_errno(fcntl(theirs, F_SETLEASE, F_UNLCK), EACCES, "F_UNLCK on it: EACCES");
	is_errno(fcntl(theirs, F_SETLEASE, 99), EINVAL, "a bad type: EINVAL first");
	is_int(fcntl(theirs, F_GETLEASE), F_UNLCK, "F_GETLEASE: anyone");
	is_errno(fcntl(d, F_SETLEASE, F_RDLCK), EACCES, "root's directory: EACCES before EINVAL");
	is_errno(fcntl(mine, F_SETLEASE, F_UNLCK), EAGAIN, "its own file, no lease: EAGAIN");
	ok(fcntl(mine, F_SETLEASE, F_RDLCK) == 0, "a lease on its own file");
	ok(fcntl(mine, F_SETLEASE, F_UNLCK) == 0, "and off");
}

static void leases_root(void)
{
	struct caps c = caps_of(0);
	int f = open(in_dir("theirs"), O_CREAT | O_RDONLY, 0644);

	ok(f >= 0 && fchown(f, U2, G2) == 0, "a file of U2's");
	ok(fcntl(f, F_SETLEASE, F_RDLCK) == 0 && fcntl(f, F_SETLEASE, F_UNLCK) == 0,
	   "root leases it (CAP_LEASE)");
	ok(caps_set(c.eff & ~CAP_LEASE_BIT, c.prm, c.inh) == 0, "drop CAP_LEASE");
	is_errno(fcntl(f, F_SETLEASE, F_RDLCK), EACCES, "root without CAP_LEASE: EACCES");
}

/* A new session's leader opens a pty slave write-only (no controlling
 * terminal yet) and asks for it. */
static int slave_of_new_pty(int *master)
{
	char *name;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0 || grantpt(*master) || unlockpt(*master) || !(name = ptsname(*master)))
		return -1;
	return open(name, O_WRONLY | O_NOCTTY);
}

static void ctty_user(void)
{
	int m, s;

	ok(setresuid(U1, U1, U1) == 0 && setsid() > 0, "U1, a session leader");
	s = slave_of_new_pty(&m);
	ok(s >= 0, "a pty slave open write-only");
	is_errno(ioctl(s, TIOCSCTTY, 0), EPERM, "TIOCSCTTY through it: EPERM");
	int r = open(ptsname(m), O_RDONLY | O_NOCTTY);
	ok(r >= 0 && ioctl(r, TIOCSCTTY, 0) == 0, "through a readable file: fine");
}

static void ctty_root(void)
{
	struct caps c = caps_of(0);
	int m, s;

	ok(setsid() > 0, "root, a session leader");
	s = slave_of_new_pty(&m);
	ok(caps_set(c.eff & ~CAP_SYS_ADMIN_BIT, c.prm, c.inh) == 0, "drop CAP_SYS_ADMIN");
	is_errno(ioctl(s, TIOCSCTTY, 0), EPERM, "write-only without CAP_SYS_ADMIN: EPERM");
	ok(caps_set(c.eff, c.prm, c.inh) == 0 && ioctl(s, TIOCSCTTY, 0) == 0,
	   "with CAP_SYS_ADMIN: fine");
}

int main(void)
{
	int fd;

	plan(34);
	require(getuid() == 0, "the test runs as root");
	snprintf(dir, sizeof dir, "/tmp/cred_nodes.%d", (int)getpid());
	require(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0, "a directory all may write");
	require((fd = open(in_dir("rootfile"), O_CREAT | O_RDWR, 0644)) >= 0, "root's file");
	close(fd);
	in_child("mknod as a user", mknod_user);
	in_child("mknod as root", mknod_root);
	in_child("leases as a user", leases_user);
	in_child("leases as root", leases_root);
	in_child("TIOCSCTTY as a user", ctty_user);
	in_child("TIOCSCTTY as root", ctty_root);
	const char *names[] = {"c",  "b",  "f",	 "s",	     "r",    "w",
			       "c0", "c1", "f1", "rootfile", "mine", "theirs"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(in_dir(names[i]));
	rmdir(dir);
	return done();
}
