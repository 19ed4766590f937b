/* The fuzzer's worker set-up: the fds it plays with, its buffer, its own
 * directory and the long path arguments, and the removal of what a run
 * leaves behind.  Included by fuzz.c only, after the other fuzz_*.h. */
#ifndef FUZZ_SETUP_H
#define FUZZ_SETUP_H

/* Most reads would block on an empty pipe or socket: the watchdog would
 * end the worker soon; non-blocking fds keep it busy (fcntl may change it). */
static void remember_nonblocking(int fd)
{
	fcntl(fd, F_SETFL, O_NONBLOCK);
	remember(fd);
}

/* A pty's master and slave, unlocked, neither the worker's terminal. */
static void open_pty(void)
{
	int unlock = 0, m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK), n = -1;
	char name[32];

	if (m < 0 || raw_call(__NR_ioctl, m, 0x40045431 /* TIOCSPTLCK */, (long)&unlock) < 0 ||
	    raw_call(__NR_ioctl, m, 0x80045430 /* TIOCGPTN */, (long)&n) < 0)
		return;
	remember(m);
	snprintf(name, sizeof name, "/dev/pts/%d", n);
	remember(open(name, O_RDWR | O_NOCTTY | O_NONBLOCK));
}

/*
 * The worker's own /dev, in a mount namespace of its own: a tmpfs with the
 * nodes it plays with, and devpts.  Given any call and any argument, a
 * root worker reaches fchmod or fchown of its fds on /dev/null and the
 * other system files, and the shared nodes would change for every test
 * after it (a /dev/null of mode 0000 once broke exec_setid's set-user-ID
 * program); here it changes only its own copies, which go with it.
 */
static void private_dev(void)
{
	static const struct {
		const char *path;
		unsigned int major, minor, mode;
	} nodes[] = {
	    {"/dev/null", 1, 3, 0666},	  {"/dev/zero", 1, 5, 0666},
	    {"/dev/full", 1, 7, 0666},	  {"/dev/urandom", 1, 9, 0666},
	    {"/dev/ptmx", 5, 2, 0666},	  {"/dev/profile", 10, 240, 0666},
	    {"/dev/console", 5, 1, 0600}, /* show_threads' */
	};

	if (raw_call(__NR_unshare, 0x20000 /* CLONE_NEWNS */, 0, 0) ||
	    fz_mount("fuzzdev", "/dev", "tmpfs", 0, "mode=755") || mkdir("/dev/pts", 0755) ||
	    fz_mount("devpts", "/dev/pts", "devpts", 0, ""))
		finish(SETUP_FAILED + 4);
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
		if (raw_call(__NR_mknod, (long)nodes[i].path, S_IFCHR | nodes[i].mode,
			     (long)((nodes[i].major << 8) | nodes[i].minor)) ||
		    chmod(nodes[i].path, nodes[i].mode)) /* past the umask */
			finish(SETUP_FAILED + 4);
}

/* fds to play with: the standard ones on /dev/null, a file and a directory
 * in the worker's own directory, a pipe, a socket pair, /dev/zero, a pty. */
static void open_playthings(void)
{
	int null = open("/dev/null", O_RDWR), fds[2];
	for (int fd = 0; fd < 3; fd++)
		if (dup2(null, fd) != fd)
			finish(SETUP_FAILED + 2); /* never fuzz with the console or TAP open */
	close(null);
	remember(open("f", O_RDWR | O_CREAT, 0600)); /* before "f" is chowned */
	remember(open(".", O_RDONLY));
	remember(open("/dev/zero", O_RDONLY));
	if (pipe(fds) == 0)
		remember_nonblocking(fds[0]), remember_nonblocking(fds[1]);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0)
		remember_nonblocking(fds[0]), remember(fds[1]);
	open_pty();
}

/* The writable buffer, with an unmapped page right after it. */
static char *map_buffer(void)
{
	char *p =
	    mmap(NULL, BUF_SIZE + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	munmap(p + BUF_SIZE, 4096);
	return p;
}

static void worker_dir(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/fuzz-%d", (int)pid);
}

static void remove_tree(const char *path)
{
	char child[512];
	struct dirent *de;
	while (raw_call(__NR_umount2, (long)path, 2 /* MNT_DETACH */, 0) == 0)
		; /* what a mounts scenario killed mid-way left (fuzz_mount.h) */
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(child, sizeof child, "%s/%s", path, de->d_name);
			remove_tree(child);
		}
	closedir(d);
	rmdir(path);
}

/*
 * A scenario plays in a directory of its own, own_dir/s<pid>: its files
 * have fixed names ("locks", "in/f"), and a worker's forked children may
 * play the same class at the same time from the same working directory.
 * Sharing the names, one scenario's helpers lock or watch the other's
 * file, and its check sees a lock or a watch it did not make (the "record
 * lock outlived its holder" finding of issue 29: in 100,000 calls of
 * args,locks, 24 such findings, each with two scenarios in one directory,
 * none without).  False if there is no room for one.
 */
static bool enter_scenario_dir(char *dir, size_t size)
{
	snprintf(dir, size, "%s/s%d", own_dir, (int)getpid());
	return mkdir(dir, 0700) == 0 && chdir(dir) == 0;
}

/* Path arguments: a 299-byte name, a 4999-byte path of 99-byte names. */
static void make_long_paths(void)
{
	memset(long_name, 'n', sizeof long_name - 1);
	for (size_t i = 0; i < sizeof long_path - 1; i++)
		long_path[i] = i % 100 == 99 ? '/' : 'p';
}

#endif
