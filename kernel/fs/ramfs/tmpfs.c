/*
 * The ramfs as file-system types (fs/super.h): tmpfs, an instance per
 * mount with its own size= and nr_inodes= limits (the ramfs_size= boot
 * option, or half of memory, is every instance's default size, as
 * Linux's tmpfs defaults to half of memory); devtmpfs, the one instance
 * /dev is; and the internal instance of the files nothing names
 * (memfds, System V shared memory).  Without a limit, `cat /dev/zero >
 * /tmp/big` took every frame and nothing could run afterwards, not
 * even rm; each instance's count is a lone atomic, charged before a
 * frame is taken, so no limit is ever exceeded.
 */
#include "cmdline.h"
#include "fs/ramfs/ramfs.h"
#include "fs/super.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>
#include <uapi/ioctl.h>
#include <stdint.h>

#define TMPFS_MAGIC 0x01021994

/*
 * A size as Linux's memparse reads it: digits with an optional k, m, g,
 * t (either case) or, for a size, a percentage of memory.  -EINVAL for
 * anything else.
 */
static int parse_size(const char *s, bool percent_ok, size_t total_pages, uint64_t *out)
{
	uint64_t n = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || (p[0] && p[1]))
		return -EINVAL;
	switch (*p | 0x20) {
	case '%':
		if (!percent_ok)
			return -EINVAL;
		*out = total_pages * n / 100 * PAGE_SIZE;
		return 0;
	case 't':
		n <<= 10; /* fall through */
	case 'g':
		n <<= 10; /* fall through */
	case 'm':
		n <<= 10; /* fall through */
	case 'k':
		n <<= 10; /* fall through */
	case ' ':	  /* the end: '\0' | 0x20 */
		*out = n;
		return 0;
	}
	return -EINVAL;
}

size_t ramfs_limit_pages(const char *s, size_t total)
{
	uint64_t bytes;

	if (parse_size(s, true, total, &bytes)) {
		if (*s)
			printk("ramfs: bad ramfs_size=%s ignored\n", s);
		return total / 2;
	}
	return bytes ? (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT : SIZE_MAX;
}

static size_t default_pages; /* set once by the first instance */

size_t tmpfs_default_pages(void)
{
	if (!default_pages) {
		default_pages = ramfs_limit_pages(kopts.ramfs_size, frame_total_count());
		if (default_pages == SIZE_MAX)
			printk_info("tmpfs: no default size limit\n");
		else
			printk_info("tmpfs: default size limit %zu KiB\n",
				    default_pages << (PAGE_SHIFT - 10));
	}
	return default_pages;
}

/* Linux's octal mode=, decimal uid= and gid=. */
static int parse_number(const char *s, unsigned int base, uint32_t max, uint32_t *out)
{
	uint64_t n = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');
		if (d >= base || (n = n * base + d) > max)
			return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

/* The limits and owner one mount's options ask for. */
struct tmpfs_opts {
	size_t pages, inodes;
	uint32_t mode, uid, gid;
	bool has_pages, has_inodes, has_mode, has_uid, has_gid;
};

/* One option: tmpfs's, or a generic one the VFS already took (ro, rw,
 * and the like, which mount(8) may also pass in the data). */
static int parse_opt(char *opt, struct tmpfs_opts *o)
{
	static const char *const generic[] = {
	    "ro",	"rw",	      "sync",	"async",       "dirsync",  "mand",    "nomand",
	    "lazytime", "nolazytime", "silent", "strictatime", "relatime", "noatime", "nodiratime"};
	char *val = strchr(opt, '=');
	uint64_t n;

	for (size_t i = 0; !val && i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(opt, generic[i]))
			return 0;
	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(opt, "size")) {
		if (parse_size(val, true, frame_total_count(), &n))
			return -EINVAL;
		o->pages = n ? (n + PAGE_SIZE - 1) >> PAGE_SHIFT : SIZE_MAX;
		return o->has_pages = true, 0;
	}
	if (!strcmp(opt, "nr_inodes")) {
		if (parse_size(val, false, 0, &n))
			return -EINVAL;
		o->inodes = n ? n : SIZE_MAX;
		return o->has_inodes = true, 0;
	}
	if (!strcmp(opt, "mode"))
		return (o->has_mode = true, parse_number(val, 8, 07777, &o->mode));
	if (!strcmp(opt, "uid"))
		return (o->has_uid = true, parse_number(val, 10, UINT32_MAX - 1, &o->uid));
	if (!strcmp(opt, "gid"))
		return (o->has_gid = true, parse_number(val, 10, UINT32_MAX - 1, &o->gid));
	return -EINVAL;
}

/* data: comma-separated options, up to mount(2)'s page (a copy is cut up). */
static int parse_opts(const char *data, struct tmpfs_opts *o)
{
	char *buf = kstrdup(data), *p = buf;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!err && p) {
		char *next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		if (*p)
			err = parse_opt(p, o);
		p = next;
	}
	kfree(buf);
	return err;
}

/* A ramfs root directory for sb: mode and owner from the options. */
static int make_root(struct super_block *sb)
{
	struct inode *root = ramfs_make_root(sb, sb->mode);

	if (!root)
		return -ENOMEM;
	root->uid = sb->uid;
	root->gid = sb->gid;
	return 0;
}

static int tmpfs_fill(struct super_block *sb, const char *data)
{
	struct tmpfs_opts o = {0};
	int err = parse_opts(data, &o);

	if (err)
		return err;
	sb->pages_max = o.has_pages ? o.pages : tmpfs_default_pages();
	sb->inodes_max = o.has_inodes ? o.inodes : SIZE_MAX;
	sb->mode = o.has_mode ? o.mode : 01777;
	sb->uid = o.uid;
	sb->gid = o.gid;
	return make_root(sb);
}

/* remount: size= and nr_inodes= may change, not below what is in use
 * (EINVAL, as Linux's shmem_reconfigure). */
static int tmpfs_remount(struct super_block *sb, unsigned long flags, const char *data)
{
	(void)flags;
	struct tmpfs_opts o = {0};
	int err = parse_opts(data, &o);

	if (err)
		return err;
	if (o.has_pages && o.pages < __atomic_load_n(&sb->pages_used, __ATOMIC_RELAXED))
		return -EINVAL;
	if (o.has_inodes && o.inodes < __atomic_load_n(&sb->inodes_used, __ATOMIC_RELAXED))
		return -EINVAL;
	if (o.has_pages)
		__atomic_store_n(&sb->pages_max, o.pages, __ATOMIC_RELAXED);
	if (o.has_inodes)
		__atomic_store_n(&sb->inodes_max, o.inodes, __ATOMIC_RELAXED);
	return 0;
}

/* As Linux's shmem_show_options: size and nr_inodes when limited, mode
 * when not 1777, uid and gid when not root. */
static void tmpfs_show_options(struct super_block *sb, char *buf, size_t size)
{
	size_t n = 0;

	if (sb->pages_max != SIZE_MAX)
		n += snprintk(buf + n, size - n, ",size=%zuk", sb->pages_max << (PAGE_SHIFT - 10));
	if (sb->inodes_max != SIZE_MAX && n < size)
		n += snprintk(buf + n, size - n, ",nr_inodes=%zu", sb->inodes_max);
	if (sb->mode != 01777 && n < size)
		n += snprintk(buf + n, size - n, ",mode=%o", sb->mode);
	if (sb->uid && n < size)
		n += snprintk(buf + n, size - n, ",uid=%u", sb->uid);
	if (sb->gid && n < size)
		snprintk(buf + n, size - n, ",gid=%u", sb->gid);
}

/* Linux's tmpfs (6.0+) keeps these. */
#define TMPFS_ATTR_FLAGS (FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL | FS_NOATIME_FL)

const struct fs_type tmpfs_type = {
    .attr_flags = TMPFS_ATTR_FLAGS,
    .name = "tmpfs",
    .sops = &ramfs_super_ops,
    .magic = TMPFS_MAGIC,
    .fill = tmpfs_fill,
    .remount = tmpfs_remount,
    .show_options = tmpfs_show_options,
};

/* devtmpfs: one instance, made at boot with /dev's nodes (fs/dev). */
static struct super_block *devtmpfs_sb;

const struct fs_type devtmpfs_type = {
    .attr_flags = TMPFS_ATTR_FLAGS,
    .name = "devtmpfs",
    .sops = &ramfs_super_ops,
    .magic = TMPFS_MAGIC,
    .fill = tmpfs_fill,
    .remount = tmpfs_remount,
    .show_options = tmpfs_show_options,
    .single = &devtmpfs_sb,
};

struct inode *devtmpfs_root(void)
{
	/* The instance outlives its mounts (the type holds it) and keeps
	 * its root: both constant once set at boot. */
	struct super_block *sb = __atomic_load_n(&devtmpfs_sb, __ATOMIC_ACQUIRE);
	struct inode *root = sb ? sb->root : NULL;

	if (root)
		inode_get(root);
	return root;
}

struct super_block *internal_sb;

const struct fs_type internal_type = {
    .name = "tmpfs",
    .sops = &ramfs_super_ops,
    .magic = TMPFS_MAGIC,
    .fill = tmpfs_fill,
    .single = &internal_sb,
};
