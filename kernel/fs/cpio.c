/*
 * The initrd loader: unpacks a cpio "newc" archive (what `cpio -H newc`
 * writes) into the ramfs.  Every header field is checked against the archive
 * bounds first, so a malformed archive stops the unpacking with a message.
 * Directories, regular files, symbolic links and character devices, each
 * with the owner, group and mode its header gives (as Linux's initramfs:
 * chown, then chmod, since a chown clears the set-user-ID bit).  Several
 * archives may follow one another, NUL padding between them (Linux's
 * rule too): the build appends one per owner (iso/pack-initrd).
 */
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

#define NEWC_MAGIC     "070701"
#define NEWC_CRC_MAGIC "070702" /* same layout plus a checksum we do not verify */
#define NEWC_HDR_LEN   110
#define NEWC_TRAILER   "TRAILER!!!"

/* Field order of the header after the 6-byte magic, 8 hex digits each. */
enum newc_field {
	F_INO,
	F_MODE,
	F_UID,
	F_GID,
	F_NLINK,
	F_MTIME,
	F_FILESIZE,
	F_DEVMAJOR,
	F_DEVMINOR,
	F_RDEVMAJOR,
	F_RDEVMINOR,
	F_NAMESIZE,
	F_CHECK,
	F_COUNT
};

struct newc_entry {
	uint32_t f[F_COUNT];
	const char *name; /* NUL-terminated inside the archive */
	const void *data;
	size_t size;
};

static size_t align4(size_t x)
{
	return (x + 3) & ~3UL;
}

/* Parses 8 hex digits; false if any is not one. */
static bool parse_hex8(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

/*
 * Parses the entry at *off of an archive of len bytes and moves *off past
 * it.  Returns 0 or -EINVAL with a reason in *why.
 */
static int parse_entry(const char *ar, size_t len, size_t *off, struct newc_entry *e,
		       const char **why)
{
	size_t at = *off, name_end, data_end;

	if (len - at < NEWC_HDR_LEN) {
		*why = "truncated header";
		return -EINVAL;
	}
	if (memcmp(ar + at, NEWC_MAGIC, 6) && memcmp(ar + at, NEWC_CRC_MAGIC, 6)) {
		*why = "bad magic";
		return -EINVAL;
	}
	for (int i = 0; i < F_COUNT; i++) {
		if (!parse_hex8(ar + at + 6 + 8 * i, &e->f[i])) {
			*why = "bad hex field";
			return -EINVAL;
		}
	}
	name_end = at + NEWC_HDR_LEN + e->f[F_NAMESIZE];
	if (e->f[F_NAMESIZE] == 0 || e->f[F_NAMESIZE] > PATH_MAX || name_end > len ||
	    ar[name_end - 1] != '\0') {
		*why = "bad name";
		return -EINVAL;
	}
	e->name = ar + at + NEWC_HDR_LEN;
	e->size = e->f[F_FILESIZE];
	at = align4(name_end);
	data_end = at + e->size;
	if (at > len || e->size > len - at) {
		*why = "data past the end";
		return -EINVAL;
	}
	e->data = ar + at;
	*off = align4(data_end) < len ? align4(data_end) : len;
	return 0;
}

/* Writes a regular file's contents (an existing file is replaced). */
static int unpack_file(const struct path *root, const char *path, const struct newc_entry *e)
{
	struct inode *ip;
	int err = vfs_mknod(root, path, S_IFREG | (e->f[F_MODE] & 07777), 0);

	if (err && err != -EEXIST)
		return err;
	err = path_lookup(root, path, &ip);
	if (err)
		return err;
	if (!inode_is_reg(ip))
		err = -EEXIST;
	else if (!(err = inode_truncate(ip, 0)) && e->size &&
		 inode_write(ip, e->data, e->size, 0) != (long)e->size)
		err = -ENOSPC;
	if (!err) {
		spin_lock(&ip->lock);
		ip->mtime_ns = ip->ctime_ns = (uint64_t)e->f[F_MTIME] * 1000000000UL;
		spin_unlock(&ip->lock);
	}
	inode_put(ip);
	return err;
}

/* A symbolic link: the data is the target (no NUL).  An existing
 * non-directory of that name is replaced, as for files. */
static int unpack_symlink(const struct path *root, const char *path, const struct newc_entry *e)
{
	char *target;
	int err;

	if (e->size == 0 || e->size >= PATH_MAX)
		return -EINVAL;
	target = kmalloc(e->size + 1);
	if (!target)
		return -ENOMEM;
	memcpy(target, e->data, e->size);
	target[e->size] = '\0';
	err = vfs_symlink(root, path, target);
	if (err == -EEXIST && !vfs_unlink(root, path))
		err = vfs_symlink(root, path, target);
	kfree(target);
	return err;
}

/* The header's owner and group, then its mode (a link has none of its
 * own); an entry that already existed takes them too, as on Linux. */
static int set_owner(const struct path *root, const char *path, const struct newc_entry *e)
{
	struct inode *ip;
	int err = path_lookup_flags(root, path, LOOKUP_NOFOLLOW, &ip);

	if (err)
		return err;
	inode_chown(ip, e->f[F_UID], e->f[F_GID]);
	if (!inode_is_link(ip))
		err = inode_chmod(ip, e->f[F_MODE] & 07777);
	inode_put(ip);
	return err;
}

/* Creates one entry; unsupported types (fifos, sockets, block devices) are skipped. */
static int unpack_entry(const struct path *root, const struct newc_entry *e)
{
	const char *path = e->name;
	uint32_t mode = e->f[F_MODE];
	int err;

	while ((path[0] == '.' && path[1] == '/') || path[0] == '/')
		path += path[0] == '/' ? 1 : 2;
	if (!strcmp(path, ".") || !*path)
		return 0; /* the root itself */
	if (S_ISREG(mode))
		err = unpack_file(root, path, e);
	else if (S_ISLNK(mode))
		err = unpack_symlink(root, path, e);
	else if (S_ISDIR(mode))
		err = vfs_mkdir(root, path, mode);
	else if (S_ISCHR(mode))
		err = vfs_mknod(root, path, mode, MKDEV(e->f[F_RDEVMAJOR], e->f[F_RDEVMINOR]));
	else {
		printk("cpio: %s: file type %o not supported, skipped\n", path, mode & S_IFMT);
		return 0;
	}
	if (err == -EEXIST && (S_ISDIR(mode) || S_ISCHR(mode)))
		err = 0;
	return err ? err : set_owner(root, path, e);
}

/* Past the NUL padding after a trailer: whether another archive follows. */
static bool next_archive(const char *ar, size_t len, size_t *off)
{
	while (*off < len && ar[*off] == '\0')
		(*off)++;
	return *off < len;
}

long cpio_unpack(const void *archive, size_t len, const struct path *root)
{
	const char *ar = archive, *why;
	struct newc_entry e;
	size_t off = 0;
	long count = 0;

	while (off < len) {
		if (parse_entry(ar, len, &off, &e, &why)) {
			printk("cpio: malformed archive at offset %lu: %s\n", off, why);
			return -EINVAL;
		}
		if (!strcmp(e.name, NEWC_TRAILER)) {
			if (!next_archive(ar, len, &off))
				return count;
			continue;
		}
		int err = unpack_entry(root, &e);
		if (err)
			printk("cpio: %s: error %d, skipped\n", e.name, err);
		else
			count++;
	}
	printk("cpio: archive ends without a trailer\n");
	return -EINVAL;
}
