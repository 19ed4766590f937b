/*
 * ramfs: the in-memory file system behind every path.  File data lives in
 * page frames listed in a growable index, so large files (binaries that
 * execve reads) cost one page lookup per 4 KiB; directories are lists;
 * a symbolic link holds its target string.
 */
#include "fs/inode.h"
#include "fs/file.h"
#include "fs/notify/fsnotify.h"
#include "fs/ramfs/memfd.h"
#include "fs/pipe/pipe.h"
#include "fs/ramfs/ramfs_priv.h"
#include "fs/super.h"
#include "arch/x86_64/rtc.h"
#include "arch/x86_64/timer.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "proc/rlimit.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/dirent.h>
#include <uapi/errno.h>
#include <uapi/inotify.h>

#define RAMFS_MAX_PAGES (RAMFS_MAX_FILE >> PAGE_SHIFT)
#define RAMFS_MIN_INDEX 16

static uint64_t next_ino = 1;	  /* atomic */
static unsigned long live_inodes; /* atomic */
static uint64_t boot_epoch_ns;	  /* real time at boot; set once by ramfs_clock_init */

/* File times are real time: the RTC at boot plus the monotonic clock. */
void ramfs_clock_init(void)
{
	boot_epoch_ns = (uint64_t)rtc_read_epoch() * 1000000000UL;
}

uint64_t ramfs_now_ns(void)
{
	return boot_epoch_ns + clock_monotonic_ns();
}

/* An instance's inode count against its nr_inodes=: false past it. */
static bool charge_inode(struct super_block *sb)
{
	if (__atomic_add_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED) <=
	    __atomic_load_n(&sb->inodes_max, __ATOMIC_RELAXED))
		return true;
	__atomic_sub_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED);
	return false;
}

struct inode *ramfs_make_root(struct super_block *sb, uint32_t mode)
{
	struct inode *root = inode_alloc(sb, S_IFDIR | mode, 0);

	if (!root)
		return NULL;
	root->nlink = 2;
	root->dir.parent = root; /* its own parent, unreferenced */
	sb->root = root;
	return root;
}

int inode_alloc_error(const struct super_block *sb)
{
	return __atomic_load_n(&sb->inodes_used, __ATOMIC_RELAXED) >= sb->inodes_max ? -ENOSPC
										     : -ENOMEM;
}

struct inode *inode_alloc(struct super_block *sb, uint32_t mode, uint32_t rdev)
{
	struct inode *ip;

	if (!charge_inode(sb))
		return NULL;
	if (!(ip = kzalloc(sizeof(*ip)))) {
		__atomic_sub_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	ip->refcount = 1;
	ip->sb = sb;
	sb_get(sb);
	spin_lock(&sb->inodes_lock);
	list_add_tail(&ip->sb_link, &sb->inodes);
	spin_unlock(&sb->inodes_lock);
	ip->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	ip->mode = mode;
	ip->rdev = rdev;
	spin_init(&ip->lock, "inode");
	ip->mtime_ns = ip->ctime_ns = ip->atime_ns = ramfs_now_ns();
	if (S_ISDIR(mode)) {
		list_init(&ip->dir.entries);
		ip->dir.next_pos = 2; /* 0 and 1 are "." and ".." */
	}
	__atomic_add_fetch(&live_inodes, 1, __ATOMIC_RELAXED);
	return ip;
}

/* The target is charged as one page of the size limit, as tmpfs charges a
 * long symlink's page: links cannot take the heap without bound. */
int inode_alloc_symlink(struct super_block *sb, const char *target, size_t len, struct inode **out)
{
	struct inode *ip;

	if (!sb_charge_pages(sb, 1))
		return -ENOSPC;
	ip = inode_alloc(sb, S_IFLNK | 0777, 0);
	if (ip)
		ip->link.target = kmalloc(len + 1);
	if (!ip || !ip->link.target) {
		if (ip)
			inode_put(ip); /* uncharges */
		else
			sb_uncharge_pages(sb, 1);
		return -ENOMEM;
	}
	memcpy(ip->link.target, target, len);
	ip->link.target[len] = '\0';
	ip->size = len;
	*out = ip;
	return 0;
}

void inode_get(struct inode *ip)
{
	__atomic_add_fetch(&ip->refcount, 1, __ATOMIC_RELAXED);
}

static void free_dir(struct inode *dir)
{
	struct ramfs_dirent *e, *n;

	list_for_each_entry_safe(e, n, &dir->dir.entries, link)
	{
		inode_put(e->ip);
		kfree(e);
	}
	kfree(dir->dir.buckets);
	if (dir->dir.parent && dir->dir.parent != dir)
		inode_put(dir->dir.parent);
}

void ramfs_drop_pages(struct inode *ip, size_t idx, size_t end)
{
	size_t dropped = 0;

	for (size_t i = idx; i < end && i < ip->file.npages; i++) {
		if (!ip->file.pages[i])
			continue;
		frame_unref(ip->file.pages[i] & ~RAMFS_UNWRITTEN);
		ip->file.pages[i] = 0;
		dropped++;
	}
	ip->file.used -= dropped;
	sb_uncharge_pages(ip->sb, dropped);
}

static void free_data(struct inode *ip)
{
	ramfs_drop_pages(ip, 0, SIZE_MAX);
	kfree(ip->file.pages);
	if (ip->file.memfd)
		memfd_inode_gone();
}

/* The last reference frees the inode: no entry names it and nothing has it open. */
void inode_put(struct inode *ip)
{
	if (__atomic_sub_fetch(&ip->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	fsnotify_inode_gone(ip); /* IN_DELETE_SELF, IN_IGNORED: its watches go */
	if (S_ISDIR(ip->mode))
		free_dir(ip);
	else if (S_ISREG(ip->mode))
		free_data(ip);
	else if (S_ISFIFO(ip->mode) && ip->fifo.held)
		pipe_put(ip->fifo.pipe);
	else if (S_ISLNK(ip->mode)) {
		kfree(ip->link.target);
		if (ip->link.file)
			file_put(ip->link.file);
		if (ip->link.jump)
			inode_put(ip->link.jump);
		if (!ip->link.uncharged)
			sb_uncharge_pages(ip->sb, 1);
	}
	spin_lock(&ip->sb->inodes_lock);
	list_del(&ip->sb_link);
	spin_unlock(&ip->sb->inodes_lock);
	__atomic_sub_fetch(&ip->sb->inodes_used, 1, __ATOMIC_RELAXED);
	sb_put(ip->sb);
	__atomic_sub_fetch(&live_inodes, 1, __ATOMIC_RELAXED);
	kfree(ip);
}

unsigned long inode_count(void)
{
	return __atomic_load_n(&live_inodes, __ATOMIC_RELAXED);
}

/* ---- Regular-file data ---- */

/* Under ip->lock: makes pages[] hold index idx.  False when memory runs out. */
static bool index_reach(struct inode *ip, size_t idx)
{
	size_t n = ip->file.npages ? ip->file.npages : RAMFS_MIN_INDEX;
	uint64_t *pages;

	if (idx < ip->file.npages)
		return true;
	while (n <= idx)
		n *= 2;
	if (n > RAMFS_MAX_PAGES)
		n = RAMFS_MAX_PAGES;
	pages = kzalloc(n * sizeof(*pages));
	if (!pages)
		return false;
	if (ip->file.npages)
		memcpy(pages, ip->file.pages, ip->file.npages * sizeof(*pages));
	kfree(ip->file.pages);
	ip->file.pages = pages;
	ip->file.npages = n;
	return true;
}

static uint64_t page_at(struct inode *ip, size_t idx)
{
	return ramfs_frame(ip, idx);
}

uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged, bool written)
{
	bool prepaid = charged && *charged;
	uint64_t pa;

	if (!index_reach(ip, idx))
		return 0;
	if (ip->file.pages[idx]) {
		if (written)
			ip->file.pages[idx] &= ~RAMFS_UNWRITTEN;
		return page_at(ip, idx);
	}
	if (!prepaid && !sb_charge_pages(ip->sb, 1))
		return 0;
	if (!(pa = frame_zalloc())) {
		if (!prepaid)
			sb_uncharge_pages(ip->sb, 1);
		return 0;
	}
	if (prepaid)
		--*charged;
	ip->file.used++;
	ip->file.pages[idx] = written ? pa : pa | RAMFS_UNWRITTEN;
	return pa;
}

size_t ramfs_holes(struct inode *ip, size_t idx, size_t end)
{
	size_t n = 0;

	for (size_t i = idx; i < end; i++)
		n += !page_at(ip, i);
	return n;
}

static uint64_t page_fill(struct inode *ip, size_t idx)
{
	return ramfs_page_fill(ip, idx, NULL, true);
}

static void *page_ptr(uint64_t pa, uint64_t off)
{
	return (char *)P2V(pa) + (off & PAGE_MASK);
}

/*
 * The copies run without the lock, so a fault on a user page never happens
 * under a spinlock; the frame reference keeps the page alive if a truncate
 * drops it meanwhile.  A fault part-way returns the bytes done (Linux).
 */
long inode_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off)
{
	size_t done = 0, len = iov_iter_count(to);

	while (done < len) {
		spin_lock(&ip->lock);
		if (off >= ip->size) {
			spin_unlock(&ip->lock);
			break;
		}
		size_t n = PAGE_SIZE - (off & PAGE_MASK);
		if (n > len - done)
			n = len - done;
		if (n > ip->size - off)
			n = ip->size - off;
		uint64_t pa = page_at(ip, off >> PAGE_SHIFT);
		if (pa)
			frame_ref(pa);
		spin_unlock(&ip->lock);
		size_t c = pa ? copy_to_iter(page_ptr(pa, off), n, to) : zero_to_iter(n, to);
		if (pa)
			frame_unref(pa);
		done += c;
		off += c;
		if (c < n)
			return done ? (long)done : -EFAULT;
	}
	return done;
}

/* Under no lock; returns bytes written or -errno (see inode_read_iter for the copy). */
static long data_write(struct inode *ip, struct iov_iter *from, uint64_t off)
{
	size_t done = 0, len = iov_iter_count(from);
	long err = rlimit_fsize_write(off, &len);

	if (err)
		return err;
	if (off >= RAMFS_MAX_FILE)
		return len ? -EFBIG : 0;
	if (len > RAMFS_MAX_FILE - off)
		len = RAMFS_MAX_FILE - off;
	while (done < len) {
		size_t n = PAGE_SIZE - (off & PAGE_MASK);
		if (n > len - done)
			n = len - done;
		spin_lock(&ip->lock);
		/* Seals are checked page by page, as Linux's write_begin: one
		 * added part-way stops the write there. */
		err = seals_deny_write(ip, off, n);
		uint64_t pa = err ? 0 : page_fill(ip, off >> PAGE_SHIFT);
		if (pa)
			frame_ref(pa);
		spin_unlock(&ip->lock);
		if (!pa) {
			err = err ? err : -ENOSPC;
			break;
		}
		size_t c = copy_from_iter(page_ptr(pa, off), n, from);
		frame_unref(pa);
		done += c;
		off += c;
		spin_lock(&ip->lock);
		if (off > ip->size)
			ip->size = off;
		ip->mtime_ns = ip->ctime_ns = ramfs_now_ns();
		spin_unlock(&ip->lock);
		if (c < n) {
			err = -EFAULT;
			break;
		}
	}
	return done ? (long)done : err;
}

/* The frame of page idx with a reference for the caller; with fill, a
 * hole gets a zeroed page first. */
static uint64_t page_ref(struct inode *ip, size_t idx, bool fill)
{
	uint64_t pa;

	spin_lock(&ip->lock);
	pa = fill ? page_fill(ip, idx) : page_at(ip, idx);
	if (pa)
		frame_ref(pa);
	spin_unlock(&ip->lock);
	return pa;
}

uint64_t inode_page_ref(struct inode *ip, size_t idx)
{
	return page_ref(ip, idx, false);
}

uint64_t inode_page_fill_ref(struct inode *ip, size_t idx)
{
	return page_ref(ip, idx, true);
}

long inode_read(struct inode *ip, void *kbuf, size_t len, uint64_t off)
{
	struct iovec v;
	struct iov_iter it;

	iov_iter_kernel(&it, &v, kbuf, len);
	return inode_read_iter(ip, &it, off);
}

long inode_write(struct inode *ip, const void *kbuf, size_t len, uint64_t off)
{
	struct iovec v;
	struct iov_iter it;

	iov_iter_kernel(&it, &v, (void *)kbuf, len);
	return data_write(ip, &it, off);
}

/* Appends start at the size seen when the write begins (no reservation). */
long inode_write_iter(struct inode *ip, struct iov_iter *from, uint64_t *pos, bool append)
{
	long n;

	if (append)
		*pos = inode_size(ip);
	n = data_write(ip, from, *pos);
	if (n > 0)
		*pos += n;
	return n;
}

/* Shrinking frees whole pages and zeroes the tail of the last one, so growth reads zeroes. */
int inode_truncate(struct inode *ip, uint64_t size)
{
	if (size > inode_size(ip) && rlimit_fsize_grow(size))
		return -EFBIG;
	if (size > RAMFS_MAX_FILE)
		return -EFBIG;
	spin_lock(&ip->lock);
	int err = seals_deny_resize(ip, size);
	if (err) {
		spin_unlock(&ip->lock);
		return err;
	}
	if (size < ip->size) {
		ramfs_drop_pages(ip, PAGE_ALIGN_UP(size) >> PAGE_SHIFT, SIZE_MAX);
		uint64_t pa = page_at(ip, size >> PAGE_SHIFT);
		if (pa && (size & PAGE_MASK))
			memset(page_ptr(pa, size), 0, PAGE_SIZE - (size & PAGE_MASK));
	}
	ip->size = size;
	ip->mtime_ns = ip->ctime_ns = ramfs_now_ns();
	spin_unlock(&ip->lock);
	return 0;
}

uint64_t inode_size(struct inode *ip)
{
	spin_lock(&ip->lock);
	uint64_t size = ip->size;
	spin_unlock(&ip->lock);
	return size;
}

size_t inode_resident_pages(struct inode *ip)
{
	size_t n = 0;

	spin_lock(&ip->lock);
	for (size_t i = 0; i < ip->file.npages; i++)
		n += ip->file.pages[i] != 0;
	spin_unlock(&ip->lock);
	return n;
}

static void set_time(uint64_t *sec, uint64_t *nsec, uint64_t ns)
{
	*sec = ns / 1000000000UL;
	*nsec = ns % 1000000000UL;
}

void inode_stat(struct inode *ip, struct uapi_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = ip->sb->dev;
	st->st_ino = ip->ino;
	st->st_rdev = ip->rdev;
	st->st_blksize = PAGE_SIZE;
	spin_lock(&ip->lock);
	st->st_mode = ip->mode;
	st->st_nlink = ip->nlink;
	st->st_uid = ip->uid;
	st->st_gid = ip->gid;
	st->st_size = S_ISREG(ip->mode) || S_ISLNK(ip->mode) ? ip->size
		      : S_ISDIR(ip->mode)		     ? PAGE_SIZE
							     : 0;
	/* What the file holds, holes left out and fallocate's pages past
	 * the end counted, as tmpfs. */
	st->st_blocks = S_ISREG(ip->mode) ? ip->file.used * (PAGE_SIZE / 512) : 0;
	set_time(&st->atime_sec, &st->atime_nsec, ip->atime_ns);
	set_time(&st->mtime_sec, &st->mtime_nsec, ip->mtime_ns);
	set_time(&st->ctime_sec, &st->ctime_nsec, ip->ctime_ns);
	spin_unlock(&ip->lock);
}

/* ---- Directories ---- */

/*
 * A name's hash (FNV-1a) and length in one word.  A lookup compares it
 * before any byte of a name, so its cost in a directory of n entries is
 * n compares and, nearly always, one memcmp (exec's /bin/<program> among
 * 83 names compared every name of its length: 1,800 instructions,
 * docs/bench.md).
 */
static uint64_t name_key(const char *name, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return (uint64_t)h << 32 | len;
}

/* Under dir->lock: the chain key's entries are on (the hash half of
 * the key: its low half is the length). */
static struct ramfs_dirent **bucket_of(struct inode *dir, uint64_t key)
{
	return &dir->dir.buckets[(key >> 32) & dir->dir.mask];
}

struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len)
{
	uint64_t key = name_key(name, len);
	struct ramfs_dirent *e;

	if (dir->dir.buckets) {
		for (e = *bucket_of(dir, key); e; e = e->hnext)
			if (e->key == key && e->len == len && !memcmp(e->name, name, len))
				return e;
		return NULL;
	}
	list_for_each_entry(e, &dir->dir.entries, link)
	{
		if (e->key == key && !memcmp(e->name, name, len))
			return e;
	}
	return NULL;
}

/* Below this many entries the list is as quick as a table. */
#define DIR_HASH_MIN 32

void dir_hash_add(struct inode *dir, struct ramfs_dirent *e)
{
	if (dir->dir.buckets) {
		struct ramfs_dirent **b = bucket_of(dir, e->key);
		e->hnext = *b;
		*b = e;
	}
}

void dir_hash_del(struct inode *dir, struct ramfs_dirent *e)
{
	if (dir->dir.buckets) {
		struct ramfs_dirent **p = bucket_of(dir, e->key);
		while (*p != e)
			p = &(*p)->hnext;
		*p = e->hnext;
	}
}

/*
 * As many buckets as entries, a power of two, so chains stay short; the
 * table is made with no lock held and swapped in under it, the entries
 * rehashed there.  Without memory the old table (or the list) stays:
 * slower, still right.
 */
void dir_hash_grow(struct inode *dir)
{
	size_t n = __atomic_load_n(&dir->size, __ATOMIC_RELAXED), want = DIR_HASH_MIN * 2;
	struct ramfs_dirent **buckets, **old, *e;

	if (n < DIR_HASH_MIN)
		return;
	while (want < n)
		want *= 2;
	if (__atomic_load_n(&dir->dir.mask, __ATOMIC_RELAXED) + 1 >= want ||
	    !(buckets = kzalloc(want * sizeof(*buckets))))
		return;
	spin_lock(&dir->lock);
	old = dir->dir.buckets;
	if (dir->dir.mask + 1 >= want) {
		old = buckets; /* another grew it meanwhile */
	} else {
		dir->dir.buckets = buckets;
		dir->dir.mask = want - 1;
		list_for_each_entry(e, &dir->dir.entries, link) dir_hash_add(dir, e);
	}
	spin_unlock(&dir->lock);
	kfree(old);
}

int dir_find(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct ramfs_dirent *e;

	*out = NULL;
	spin_lock(&dir->lock);
	if ((e = find_entry(dir, name, len))) {
		*out = e->ip;
		inode_get(*out);
	}
	spin_unlock(&dir->lock);
	if (*out)
		return 0;
	return dir->dir.gen ? dir->dir.gen->lookup(dir, name, len, out) : -ENOENT;
}

struct inode *dir_lookup(struct inode *dir, const char *name, size_t len)
{
	struct inode *ip;

	return dir_find(dir, name, len, &ip) ? NULL : ip;
}

/*
 * Under dir->lock: e (name filled in) names ip in dir from now on.  A new
 * inode (fresh) gets its first name; an existing one must still have one,
 * or it could come back from an unlink (Linux's linkat: ENOENT), unless it
 * is an O_TMPFILE file still waiting for its first (file.linkable).
 */
static int link_entry(struct inode *dir, struct ramfs_dirent *e, struct inode *ip, bool fresh)
{
	spin_lock(&ip->lock); /* a leaf or a new directory: nothing below it is locked */
	if (!fresh && ip->nlink == 0 && !(S_ISREG(ip->mode) && ip->file.linkable)) {
		spin_unlock(&ip->lock);
		return -ENOENT;
	}
	if (S_ISREG(ip->mode))
		ip->file.linkable = false;
	ip->nlink++;
	if (S_ISDIR(ip->mode)) {
		ip->nlink = 2; /* its own "." */
		ip->dir.parent = dir;
		inode_get(dir);
		dir->nlink++; /* the child's ".." */
	}
	ip->ctime_ns = ramfs_now_ns();
	spin_unlock(&ip->lock);
	e->ip = ip;
	e->pos = dir->dir.next_pos++;
	inode_get(ip); /* the entry's reference */
	list_add_tail(&e->link, &dir->dir.entries);
	dir_hash_add(dir, e);
	dir->size++;
	dir->mtime_ns = dir->ctime_ns = ramfs_now_ns();
	return 0;
}

struct ramfs_dirent *dirent_alloc(const char *name, size_t len)
{
	struct ramfs_dirent *e = kmalloc(sizeof(*e) + len + 1);

	if (!e)
		return NULL;
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->len = len;
	e->key = name_key(name, len);
	return e;
}

/* Under dir->lock: can dir take a new entry name?  *old is set on EEXIST. */
static int can_add(struct inode *dir, const char *name, size_t len, struct ramfs_dirent **old)
{
	if (dir->nlink == 0)
		return -ENOENT; /* removed while we walked to it */
	if (dir->dir.gen && dir->dir.gen->sealed)
		return -ENOENT; /* /proc: only generated entries (Linux's answer) */
	if ((*old = find_entry(dir, name, len)))
		return -EEXIST;
	return 0;
}

static int add_entry(struct inode *dir, const char *name, size_t len, struct inode *ip, bool fresh)
{
	struct ramfs_dirent *e = dirent_alloc(name, len), *old;
	int err;

	if (!e)
		return -ENOMEM;
	spin_lock(&dir->lock);
	err = can_add(dir, name, len, &old);
	if (!err)
		err = link_entry(dir, e, ip, fresh);
	spin_unlock(&dir->lock);
	if (err) {
		kfree(e);
		return err;
	}
	dir_hash_grow(dir);
	if (!fresh)
		fsnotify_inode(ip, IN_ATTRIB); /* its link count (Linux's fsnotify_link) */
	fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
	return 0;
}

int dir_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	return add_entry(dir, name, len, ip, false);
}

int dir_add_new(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	return add_entry(dir, name, len, ip, true);
}

int dir_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
	       struct inode **out)
{
	struct inode *ip = inode_alloc(dir->sb, mode, rdev);
	struct ramfs_dirent *e = dirent_alloc(name, len), *old;
	int err = ip ? -ENOMEM : inode_alloc_error(dir->sb);

	*out = NULL;
	if (!ip || !e)
		goto bad;
	spin_lock(&dir->lock);
	err = can_add(dir, name, len, &old);
	if (!err) {
		link_entry(dir, e, ip, true);
		*out = ip;
	} else if (err == -EEXIST) {
		inode_get(old->ip);
		*out = old->ip;
	}
	spin_unlock(&dir->lock);
	if (!err) {
		dir_hash_grow(dir);
		fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
		return 0;
	}
bad:
	if (ip)
		inode_put(ip);
	kfree(e);
	return err;
}

/* Under dir->lock and child's: may e's inode go?  rmdir needs an empty directory. */
static int removable(struct ramfs_dirent *e, bool want_dir)
{
	bool is_dir = S_ISDIR(e->ip->mode);

	if (want_dir && !is_dir)
		return -ENOTDIR;
	if (!want_dir && is_dir)
		return -EISDIR;
	if (is_dir && !list_empty(&e->ip->dir.entries))
		return -ENOTEMPTY;
	return __atomic_load_n(&e->ip->mounted, __ATOMIC_RELAXED) ? -EBUSY : 0;
}

/* Lock order: a directory before its children (the tree has no cycles). */
int dir_remove(struct inode *dir, const char *name, size_t len, bool want_dir)
{
	struct ramfs_dirent *e;
	int err = -ENOENT;

	spin_lock(&dir->lock);
	e = find_entry(dir, name, len);
	if (e) {
		struct inode *ip = e->ip;
		spin_lock(&ip->lock);
		err = removable(e, want_dir);
		if (!err) {
			ip->nlink = S_ISDIR(ip->mode) ? 0 : ip->nlink - 1;
			ip->ctime_ns = ramfs_now_ns();
		}
		spin_unlock(&ip->lock);
	}
	if (!err) {
		list_del(&e->link);
		dir_hash_del(dir, e);
		dir->size--;
		if (want_dir)
			dir->nlink--;
		dir->mtime_ns = dir->ctime_ns = ramfs_now_ns();
	}
	spin_unlock(&dir->lock);
	if (err)
		return err;
	if (!want_dir)
		fsnotify_inode(e->ip, IN_ATTRIB); /* its link count, as Linux's unlink */
	bool watched = fsnotify_watched(dir);	  /* e->ip may go now */
	uint32_t isdir = S_ISDIR(e->ip->mode) ? IN_ISDIR : 0;
	inode_put(e->ip); /* the last name and user: IN_DELETE_SELF, before IN_DELETE (Linux) */
	if (watched)
		__fsnotify_name(dir, IN_DELETE | isdir, e->name, e->len, 0);
	kfree(e);
	return 0;
}

/* Takes dir's first entry out, its reference passing to the caller:
 * the inode, or NULL when dir is empty. */
static struct inode *take_first(struct inode *dir)
{
	struct ramfs_dirent *e = NULL;
	struct inode *ip;

	spin_lock(&dir->lock);
	if (!list_empty(&dir->dir.entries)) {
		e = list_first_entry(&dir->dir.entries, struct ramfs_dirent, link);
		list_del(&e->link);
		dir_hash_del(dir, e);
		dir->size--;
		ip = e->ip;
		spin_lock(&ip->lock);
		/* A directory is dead from here on (dir_create refuses it), as
		 * dir is already: its own nlink stays 0. */
		ip->nlink = S_ISDIR(ip->mode) ? 0 : ip->nlink - 1;
		spin_unlock(&ip->lock);
	}
	spin_unlock(&dir->lock);
	if (!e)
		return NULL;
	kfree(e);
	return ip;
}

/*
 * Depth first, holding one walking reference: going down, the child's
 * ".." keeps its directory; coming back up, the walk takes the parent
 * before it lets the emptied directory go.
 */
void ramfs_kill_tree(struct inode *root)
{
	struct inode *cur = root, *child, *parent;

	/* Dead first: a walk still inside (a lazy umount's) may not add to
	 * it, or its entries and their ".." would hold each other forever. */
	spin_lock(&root->lock);
	root->nlink = 0;
	spin_unlock(&root->lock);
	for (;;) {
		if ((child = take_first(cur))) {
			if (!S_ISDIR(child->mode)) {
				inode_put(child);
				continue;
			}
			inode_put(cur); /* child's ".." holds it */
			cur = child;
			continue;
		}
		if (cur == root)
			break;
		parent = cur->dir.parent;
		inode_get(parent);
		inode_put(cur);
		cur = parent;
	}
	inode_put(root);
}

struct inode *dir_parent(struct inode *dir)
{
	spin_lock(&dir->lock);
	struct inode *p = dir->dir.parent ? dir->dir.parent : dir;
	inode_get(p);
	spin_unlock(&dir->lock);
	return p;
}

long dir_name_of(struct inode *dir, struct inode *child, char *buf, size_t size)
{
	struct ramfs_dirent *e;
	long len = -ENOENT;

	spin_lock(&dir->lock);
	list_for_each_entry(e, &dir->dir.entries, link)
	{
		if (e->ip == child) {
			len = e->len;
			strlcpy(buf, e->name, size);
			break;
		}
	}
	spin_unlock(&dir->lock);
	return len;
}

void dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	struct ramfs_dirent *e;
	bool full = false;

	spin_lock(&dir->lock);
	if (*pos == 0 && emit(ctx, ".", 1, dir->ino, DT_DIR, 1))
		*pos = 1;
	if (*pos == 1) {
		struct inode *p = dir->dir.parent ? dir->dir.parent : dir;
		if (emit(ctx, "..", 2, p->ino, DT_DIR, 2))
			*pos = 2;
	}
	if (*pos < 2)
		goto out;
	list_for_each_entry(e, &dir->dir.entries, link)
	{
		if (e->pos < *pos)
			continue;
		/* S_IFMT >> 12 is the d_type, as in Linux. */
		if (!emit(ctx, e->name, e->len, e->ip->ino, (e->ip->mode & S_IFMT) >> 12,
			  e->pos + 1)) {
			full = true;
			break;
		}
		*pos = e->pos + 1;
	}
out:
	spin_unlock(&dir->lock);
	if (*pos >= 2 && !full && dir->dir.gen) {
		if (*pos < DIR_GEN_POS)
			*pos = DIR_GEN_POS;
		dir->dir.gen->iterate(dir, pos, emit, ctx);
	}
}
