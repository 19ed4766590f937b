/* The ext2 image fuzzer (docs/ext2.md, "Hostile images"): mutated copies
 * of the images tests/harness/ext2-images makes (ext2/ beside this
 * program) are each bound to a loop device, mounted (read-write when the
 * kernel writes ext2, else read-only), walked (getdents, lstat, stat,
 * readlink, every file read in part and its first page mapped), written
 * when read-write (create, write, mkdir, rename, unlink, rmdir), and
 * unmounted.  Each mutation picks a structure of the base image (the
 * super block, a group descriptor, an inode, a bitmap, a directory
 * block, an indirect block) and sets one of its fields to a boundary
 * value, or flips random bytes of the metadata.  Every answer must be a
 * clean error: EINVAL/EUCLEAN/EIO at mount, EIO/EUCLEAN (and the walk's
 * ENOENT/ENOTDIR/ELOOP...) on use, each with an "ext2:" line in the
 * kernel log; umount always works; the kernel never panics or hangs,
 * and the suite's leak check afterwards finds nothing of the instances.
 * Deterministic: the seed and the image count come from argv[1] and
 * argv[2], or /etc/ext2-fuzz.conf ("SEED COUNT", make fuzz-ext2), else
 * seed 1 and a short run for the suite.  fdkernel only: on the host it
 * would fuzz the host's kernel (SKIP). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

/* <sys/mount.h> would redefine blk_util.h's BLK* requests. */
#define MS_RDONLY 1UL
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);
int umount2(const char *target, int flags);

#define SUITE_IMAGES 300
#define MAX_LIST     256
#define WALK_BUDGET  1500	 /* lstat calls per image: a damaged tree may be huge */
#define WALK_DEPTH   6		 /* a directory entry naming an ancestor loops */
#define READ_HEAD    (128 << 10) /* bytes read from a file's start */
/* More entries than a directory of the base images' sizes can hold
 * (4 KiB blocks, a dozen of them, 8-byte records), read or not: a
 * listing that never ends. */
#define MAX_LISTING 16384

static const char *const bases[] = {"good-1k.img", "good-4k.img"};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

/* A base image and what its metadata is made of (the targets). */
struct base {
	unsigned char *data;
	size_t size;
	uint32_t bsize, blocks, ngroups, ipg, isize, gdt_block;
	uint32_t inodes[MAX_LIST], ninodes; /* in use */
	uint32_t dirblocks[MAX_LIST], ndirblocks;
	uint32_t indblocks[MAX_LIST], nindblocks;
	uint32_t bitmaps[2 * MAX_LIST], nbitmaps;
	uint32_t itables[MAX_LIST];
};

static struct base base[NBASES];
static unsigned char *image;
static uint64_t rng;
static char imgpath[64], mnt[64];

/* What the run saw (printed at the end, and the figures of docs/ext2.md). */
static struct {
	long images, refused, mounted, mounted_rw, eio, euclean, files, dirs, links, sigbus;
	long writes_ok, write_errors, unexpected, silent, umount_failed, endless;
	unsigned long long bytes;
} n;
/* Per image: errors seen, so that each is matched with a log line. */
static long img_errors;
static char first_unexpected[256];

static uint32_t rnd(uint32_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return below ? (uint32_t)(rng % below) : 0;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}
static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void add(uint32_t *list, uint32_t *count, uint32_t v, uint32_t cap)
{
	if (v && *count < cap)
		list[(*count)++] = v;
}

/* ---- The base images' metadata ---- */

static unsigned char *inode_at(struct base *b, unsigned char *img, uint32_t ino)
{
	uint32_t g = (ino - 1) / b->ipg, i = (ino - 1) % b->ipg;

	return img + (size_t)b->itables[g] * b->bsize + (size_t)i * b->isize;
}

/* The indirect blocks of an inode: its single, and its double's first
 * level (enough targets; the mutation reaches deeper by pointing). */
static void note_indirect(struct base *b, const unsigned char *ip)
{
	uint32_t ind = get32(ip + 40 + 12 * 4), dind = get32(ip + 40 + 13 * 4);

	add(b->indblocks, &b->nindblocks, ind, MAX_LIST);
	if (dind && dind < b->blocks) {
		add(b->indblocks, &b->nindblocks, dind, MAX_LIST);
		for (uint32_t k = 0; k < 4; k++)
			add(b->indblocks, &b->nindblocks,
			    get32(b->data + (size_t)dind * b->bsize + 4 * k), MAX_LIST);
	}
}

static void load_base(struct base *b, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	require(fd >= 0 && fstat(fd, &st) == 0, "open a base image");
	b->size = (size_t)st.st_size;
	b->data = malloc(b->size);
	require(b->data && read(fd, b->data, b->size) == (ssize_t)b->size, "read a base image");
	close(fd);
	const unsigned char *sb = b->data + 1024;
	b->bsize = 1024u << get32(sb + 24);
	b->blocks = get32(sb + 4);
	b->ipg = get32(sb + 40);
	b->isize = get32(sb + 76) ? (sb[88] | sb[89] << 8) : 128;
	b->ngroups = (b->blocks - get32(sb + 20) + get32(sb + 32) - 1) / get32(sb + 32);
	b->gdt_block = get32(sb + 20) + 1;
	require(b->ngroups <= MAX_LIST, "a base image of few groups");
	for (uint32_t g = 0; g < b->ngroups; g++) {
		const unsigned char *gd = b->data + (size_t)b->gdt_block * b->bsize + 32 * g;
		add(b->bitmaps, &b->nbitmaps, get32(gd), 2 * MAX_LIST);
		add(b->bitmaps, &b->nbitmaps, get32(gd + 4), 2 * MAX_LIST);
		b->itables[g] = get32(gd + 8);
	}
	for (uint32_t ino = 2; ino <= b->ngroups * b->ipg; ino++) {
		unsigned char *ip = inode_at(b, b->data, ino);
		uint32_t mode = ip[0] | ip[1] << 8;

		if (!mode || !(ip[26] | ip[27] << 8))
			continue;
		add(b->inodes, &b->ninodes, ino, MAX_LIST);
		if ((mode & 0170000) == 0040000)
			for (int k = 0; k < 12; k++)
				add(b->dirblocks, &b->ndirblocks, get32(ip + 40 + 4 * k), MAX_LIST);
		else if ((mode & 0170000) == 0100000)
			note_indirect(b, ip);
	}
}

/* ---- Mutations ---- */

/* A value a checker may get wrong: the ends of the ranges, off by one,
 * the block count, a metadata block (cross-linking), or anything. */
static uint32_t boundary(const struct base *b, uint32_t old)
{
	switch (rnd(14)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 2;
	case 3:
		return old + 1;
	case 4:
		return old - 1;
	case 5:
		return 0x7fffffff;
	case 6:
		return 0x80000000;
	case 7:
		return 0xffffffff;
	case 8:
		return 0xffff;
	case 9:
		return b->blocks + rnd(3) - 1;
	case 10:
		return b->itables[rnd(b->ngroups)] + rnd(4);
	case 11:
		return b->ndirblocks ? b->dirblocks[rnd(b->ndirblocks)] : 0;
	case 12:
		return old ^ (1u << rnd(32));
	default:
		return (uint32_t)rng;
	}
}

static void set_field(const struct base *b, unsigned char *p, int width)
{
	uint32_t v = boundary(b, width == 4 ? get32(p) : (uint32_t)(p[0] | p[1] << 8));

	if (width == 4)
		put32(p, v);
	else if (width == 2)
		put16(p, v);
	else
		*p = (unsigned char)v;
}

static void mutate_super(const struct base *b)
{
	/* count fields, first data block, block size, per-group counts,
	 * the magic, state, revision, first inode, inode size, features */
	static const unsigned char off[] = {0,	4,  8,	12, 16, 20, 24, 28, 32, 36,
					    40, 56, 58, 76, 84, 88, 92, 96, 100};
	static const unsigned char width[] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
					      4, 2, 2, 4, 4, 2, 4, 4, 4};
	uint32_t i = rnd(sizeof(off));

	set_field(b, image + 1024 + off[i], width[i]);
}

static void mutate_group(const struct base *b)
{
	static const unsigned char off[] = {0, 4, 8, 12, 14, 16}, width[] = {4, 4, 4, 2, 2, 2};
	uint32_t i = rnd(sizeof(off));

	set_field(b, image + (size_t)b->gdt_block * b->bsize + 32 * rnd(b->ngroups) + off[i],
		  width[i]);
}

static void mutate_inode(const struct base *b)
{
	unsigned char *ip = inode_at((struct base *)b, image, b->inodes[rnd(b->ninodes)]);
	uint32_t f = rnd(22);

	if (f < 15) /* a block pointer, i_block[f] */
		set_field(b, ip + 40 + 4 * f, 4);
	else {
		/* mode, size, links, i_blocks, flags, size_high, uid */
		static const unsigned char off[] = {0, 4, 26, 28, 32, 108, 2},
					   width[] = {2, 4, 2, 4, 4, 4, 2};
		set_field(b, ip + off[f - 15], width[f - 15]);
	}
}

static void mutate_block(const struct base *b, const uint32_t *list, uint32_t count, bool words)
{
	if (!count)
		return;
	unsigned char *blk = image + (size_t)list[rnd(count)] * b->bsize;
	/* a directory's entries are mostly at its start: bias there */
	uint32_t off = rnd(2) ? rnd(64) : rnd(b->bsize);

	if (words)
		set_field(b, blk + (off & ~3u), rnd(2) ? 4 : 2);
	else
		blk[off] = (unsigned char)rnd(256);
}

static void mutate_bytes(const struct base *b)
{
	/* the metadata lives in the first blocks: super block, descriptors,
	 * bitmaps, inode tables, the first directories */
	size_t span = (size_t)b->itables[0] * b->bsize + 64 * b->bsize;

	for (uint32_t i = 0, k = 1 + rnd(8); i < k; i++)
		image[rnd((uint32_t)(span < b->size ? span : b->size))] ^=
		    (unsigned char)(1 + rnd(255));
}

static void mutate(const struct base *b)
{
	for (uint32_t i = 0, k = 1 + rnd(3); i < k; i++) {
		switch (rnd(7)) {
		case 0:
			mutate_super(b);
			break;
		case 1:
			mutate_group(b);
			break;
		case 2:
			mutate_inode(b);
			break;
		case 3:
			mutate_block(b, b->bitmaps, b->nbitmaps, false);
			break;
		case 4:
			mutate_block(b, b->dirblocks, b->ndirblocks, true);
			break;
		case 5:
			mutate_block(b, b->indblocks, b->nindblocks, true);
			break;
		default:
			mutate_bytes(b);
			break;
		}
	}
}

/* ---- Using a mounted image ---- */

/* An errno from a damaged object: counted; the others are the walk's
 * own answers to odd names (ENOENT, ENOTDIR...) or a failure. */
static void seen(int err, const char *what, const char *path)
{
	switch (err) {
	case EIO:
		n.eio++;
		img_errors++;
		return;
	case EUCLEAN:
		n.euclean++;
		img_errors++;
		return;
	/* a damaged directory may list names that are not there, or a
	 * directory that is a file; a link may loop or be too long */
	case ENOENT:
	case ENOTDIR:
	case ELOOP:
	case ENAMETOOLONG:
	case EOVERFLOW:
	case EFBIG:
	case EINVAL:
	case EISDIR:
	case ENXIO:
	case ENODEV:
	case EACCES:
		return;
	}
	if (!n.unexpected++)
		snprintf(first_unexpected, sizeof first_unexpected, "%s %s: %s", what, path,
			 strerror(err));
}

static sigjmp_buf bus_jmp;
static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void map_first_page(int fd)
{
	volatile unsigned char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED) {
		seen(errno, "mmap", "");
		return;
	}
	if (!sigsetjmp(bus_jmp, 1))
		(void)p[0];
	else
		n.sigbus++; /* a block that cannot be read: SIGBUS, as Linux */
	munmap((void *)p, 4096);
}

static void read_file(const char *path, off_t size)
{
	static char buf[READ_HEAD];
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	ssize_t r;

	if (fd < 0)
		return seen(errno, "open", path);
	n.files++;
	if ((r = read(fd, buf, sizeof buf)) < 0)
		seen(errno, "read", path);
	else
		n.bytes += (unsigned long long)r;
	if (size > READ_HEAD) { /* the end, and somewhere in between */
		if ((r = pread(fd, buf, 4096, size - 4096)) < 0)
			seen(errno, "pread", path);
		if ((r = pread(fd, buf, 4096, (off_t)rnd(1u << 30) % size)) < 0)
			seen(errno, "pread", path);
	}
	if (size > 0)
		map_first_page(fd);
	close(fd);
}

static int budget;

static void walk(const char *dir, int depth)
{
	char buf[4096], path[512], target[256];
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long got;

	if (fd < 0)
		return seen(errno, "open dir", dir);
	n.dirs++;
	long entries = 0;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		if (entries > MAX_LISTING) {
			n.endless++;
			break;
		}
		for (long off = 0; off < got;) {
			struct dirent *d = (struct dirent *)(buf + off);
			struct stat st;

			off += d->d_reclen;
			entries++;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") || --budget < 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, d->d_name);
			if (lstat(path, &st)) {
				seen(errno, "lstat", path);
				continue;
			}
			if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH)
				walk(path, depth + 1);
			else if (S_ISREG(st.st_mode))
				read_file(path, st.st_size);
			else if (S_ISLNK(st.st_mode)) {
				n.links++;
				if (readlink(path, target, sizeof target) < 0)
					seen(errno, "readlink", path);
				if (stat(path, &st))
					seen(errno, "stat", path);
			}
		}
	}
	if (got < 0)
		seen(errno, "getdents", dir);
	close(fd);
}

/* A write that failed: cleanly with ENOSPC (damaged free counts or
 * bitmaps), EROFS (errors=remount-ro), EEXIST/ENOTEMPTY/EMLINK (a
 * damaged directory or link count), else as seen() says. */
static void write_failed(int err, const char *path)
{
	n.write_errors++;
	/* EPERM: a damaged inode's i_flags may say immutable or append-only,
	 * which ext2 enforces (as Linux's). */
	if (err != ENOSPC && err != EROFS && err != EEXIST && err != ENOTEMPTY && err != EMLINK &&
	    err != EPERM)
		seen(err, "write", path);
}

/* Writes through a read-write mount: each may fail cleanly (ENOSPC of
 * damaged counts, EIO of a damaged directory, EROFS after errors=,
 * EPERM of damaged flags). */
static void write_some(void)
{
	static char data[10000];
	char a[128], b[128], c[128];
	int fd;

	snprintf(a, sizeof a, "%s/fz-new", mnt);
	snprintf(b, sizeof b, "%s/fz-dir", mnt);
	snprintf(c, sizeof c, "%s/fz-dir/moved", mnt);
	memset(data, 'w', sizeof data);
	if ((fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0) {
		if (write(fd, data, sizeof data) == (ssize_t)sizeof data && !fsync(fd))
			n.writes_ok++;
		else
			write_failed(errno, a);
		close(fd);
	} else
		write_failed(errno, a);
	if (mkdir(b, 0755) || rename(a, c) || unlink(c) || rmdir(b))
		write_failed(errno, b);
	else
		n.writes_ok++;
}

/* ---- One image ---- */

/* Lines of the kernel log since the last clear that contain "ext2:". */
static int ext2_log_lines(void)
{
	static char log[1 << 16];
	int len = klogctl(3 /* READ_ALL */, log, sizeof log - 1), count = 0;

	if (len <= 0)
		return 0;
	log[len] = '\0';
	for (char *p = log; (p = strstr(p, "ext2:")); p++)
		count++;
	return count;
}

/* Mounts (read-write if ext2 takes it), uses and unmounts imgpath. */
static void run_image(void)
{
	char dev[32];
	int lfd = loop_bind(imgpath, 0, dev, sizeof dev), err = 0;
	struct statfs sf;
	bool rw = true;

	img_errors = 0;
	klogctl(5 /* CLEAR */, NULL, 0);
	if (mount(dev, mnt, "ext2", 0, NULL) && (err = errno) == EROFS) {
		rw = false;
		err = mount(dev, mnt, "ext2", MS_RDONLY, NULL) ? errno : 0;
	}
	if (err) {
		n.refused++;
		if (err != EINVAL && err != EUCLEAN && err != EIO)
			seen(err, "mount", imgpath);
		else
			img_errors++;
	} else {
		n.mounted++;
		n.mounted_rw += rw;
		budget = WALK_BUDGET;
		if (statfs(mnt, &sf))
			seen(errno, "statfs", mnt);
		walk(mnt, 0);
		if (rw)
			write_some();
		if (umount(mnt)) {
			n.umount_failed++;
			printf("# umount: %s\n", strerror(errno));
			umount2(mnt, 2 /* MNT_DETACH */);
		}
	}
	if (img_errors && !ext2_log_lines())
		n.silent++;
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
}

static void write_image(const unsigned char *data, size_t size)
{
	int fd = open(imgpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	require(fd >= 0 && write(fd, data, size) == (ssize_t)size, "write the image to /tmp");
	close(fd);
}

/* The seed and the count: argv, else /etc/ext2-fuzz.conf, else the suite's. */
static void settings(int argc, char **argv, unsigned long *seed, long *count)
{
	FILE *f;

	*seed = 1;
	*count = SUITE_IMAGES;
	if (argc > 2) {
		*seed = strtoul(argv[1], NULL, 0);
		*count = strtol(argv[2], NULL, 0);
	} else if ((f = fopen("/etc/ext2-fuzz.conf", "r"))) {
		if (fscanf(f, "%lu %ld", seed, count) != 2)
			*count = SUITE_IMAGES;
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	char self[256], imgdir[300], path[400];
	unsigned long seed;
	long count, clean_files = 0;
	bool clean = true;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!on_fdkernel())
		skip_all("mutated images are mounted on fdkernel only (here: the host's kernel)");
	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	settings(argc, argv, &seed, &count);
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(imgdir, sizeof imgdir, "%s/ext2", dirname(self));
	snprintf(imgpath, sizeof imgpath, "/tmp/ext2_fuzz.%d.img", (int)getpid());
	snprintf(mnt, sizeof mnt, "/tmp/ext2_fuzz.%d", (int)getpid());
	require(mkdir(mnt, 0755) == 0, "make the mount point");
	signal(SIGBUS, on_sigbus);
	plan(5);
	size_t max = 0;
	for (size_t i = 0; i < NBASES; i++) {
		snprintf(path, sizeof path, "%s/%s", imgdir, bases[i]);
		load_base(&base[i], path);
		max = base[i].size > max ? base[i].size : max;
	}
	require((image = malloc(max)) != NULL, "memory for an image");
	/* The walker on the images as they are: all of it, no error. */
	for (size_t i = 0; i < NBASES; i++) {
		write_image(base[i].data, base[i].size);
		run_image();
		clean = clean && n.mounted == (long)i + 1 && !n.eio && !n.euclean &&
			!n.unexpected && !n.umount_failed &&
			n.writes_ok == (n.mounted_rw ? 2 * (long)i + 2 : 0);
	}
	clean_files = n.files;
	ok(clean && clean_files >= 2 * 200,
	   "the base images mount and walk without an error (%ld files)", clean_files);
	memset(&n, 0, sizeof n);
	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	for (long i = 0; i < count; i++) {
		const struct base *b = &base[rnd(NBASES)];
		memcpy(image, b->data, b->size);
		mutate(b);
		write_image(image, b->size);
		n.images++;
		run_image();
		if (count >= 1000 && (i + 1) % 1000 == 0)
			printf("# %ld images: %ld refused, %ld mounted, %ld EIO\n", i + 1,
			       n.refused, n.mounted, n.eio);
	}
	unlink(imgpath);
	rmdir(mnt);
	printf("# ext2_fuzz: seed %lu: images %ld, mounts refused %ld, mounts ok %ld (read-write "
	       "%ld), EIO seen %ld, EUCLEAN seen %ld, files read %ld (%llu bytes), dirs listed "
	       "%ld, links %ld, SIGBUS %ld, writes ok %ld, write errors %ld\n",
	       seed, n.images, n.refused, n.mounted, n.mounted_rw, n.eio, n.euclean, n.files,
	       n.bytes, n.dirs, n.links, n.sigbus, n.writes_ok, n.write_errors);
	ok(n.images == count && n.refused > 0 && n.mounted > 0,
	   "%ld mutated images: some refused at mount (%ld), some mounted (%ld)", n.images,
	   n.refused, n.mounted);
	ok(!n.unexpected, "every error is a clean one (%ld others%s%s)", n.unexpected,
	   n.unexpected ? "; the first: " : "", first_unexpected);
	ok(!n.umount_failed && !n.endless,
	   "every mounted image unmounts (%ld did not), every listing ends (%ld did not)",
	   n.umount_failed, n.endless);
	ok(!n.silent, "every refused mount or damaged object logs an ext2 line (%ld did not)",
	   n.silent);
	return done();
}
