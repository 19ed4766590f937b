/*
 * What the ramfs files share among themselves (ramfs_inode.c, ramfs_dir.c,
 * ramfs_file.c, ramfs_rename.c, ramfs_falloc.c) and nobody else: the
 * directory entry, the page index's helpers, the operations the tables
 * of ramfs_inode.c gather.
 */
#ifndef FS_RAMFS_PRIV_H
#define FS_RAMFS_PRIV_H

#include "fs/ramfs/ramfs.h"

/* One name in a directory; owned by the directory, under its lock. */
struct ramfs_dirent {
	struct list_head link;
	struct inode *ip;	    /* referenced by the entry */
	uint64_t pos;		    /* getdents cookie: unique, increasing within the directory */
	uint64_t key;		    /* name_key(name, len): compared before the name */
	struct ramfs_dirent *hnext; /* its hash bucket's chain (dir.buckets) */
	size_t len;
	char name[]; /* NUL-terminated */
};

/*
 * The page index (ramfs_index.c), under the inode's lock: page idx's
 * entry (0: a hole); its slot, made if missing (NULL without memory);
 * the entry taken out (0 left); the first index in [idx, end) with an
 * entry, or end; every node freed (the pages dropped first).
 */
uint64_t ramfs_index_get(const struct ramfs_index *t, size_t idx);
uint64_t *ramfs_index_slot(struct ramfs_index *t, size_t idx);
uint64_t ramfs_index_take(struct ramfs_index *t, size_t idx);
size_t ramfs_index_next(const struct ramfs_index *t, size_t idx, size_t end);
void ramfs_index_free(struct ramfs_index *t);

/*
 * An index entry is a frame's physical address, with RAMFS_UNWRITTEN set
 * while a page fallocate added has not been written: tmpfs's !uptodate
 * folio, zeroes to read but a hole to SEEK_DATA until a write or a shared
 * mapping's fault fills it.
 */
#define RAMFS_UNWRITTEN 1ULL

/* Under ip->lock: the frame of page idx, or 0 for a hole. */
static inline uint64_t ramfs_frame(struct inode *ip, size_t idx)
{
	return ramfs_index_get(&RAMFS_I(ip)->file.pages, idx) & ~RAMFS_UNWRITTEN;
}

/* Under ip->lock (or as its last user): drops the data pages idx..end-1,
 * at most max of them; returns the index to go on from (end when done). */
size_t ramfs_drop_pages(struct inode *ip, size_t idx, size_t end, size_t max);
/* Under ip->lock: the frame of page idx, allocated (zeroed) if missing and
 * charged to the size limit: from *charged, pages the caller charged
 * ahead, while it lasts (decremented), else one by one.  0 on ENOSPC.
 * written: the caller stores into it (clears RAMFS_UNWRITTEN); else a
 * page it adds is marked unwritten (fallocate). */
uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged, bool written);

/* Under dir->lock: the entry called name, or NULL. */
struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len);
/* Under dir->lock: e joins or leaves dir's hash table, if it has one. */
void dir_hash_add(struct inode *dir, struct ramfs_dirent *e);
void dir_hash_del(struct inode *dir, struct ramfs_dirent *e);
/* With no lock held, after dir gained entries: a table for them all. */
void dir_hash_grow(struct inode *dir);
/* A detached entry holding a copy of name (no inode yet), or NULL. */
struct ramfs_dirent *dirent_alloc(const char *name, size_t len);

/* Regular files (ramfs_file.c, ramfs_falloc.c): the data operations of
 * ramfs_file_iops, as inode.h's dispatchers; truncate is setattr's. */
long ramfs_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off);
long ramfs_write_iter(struct inode *ip, struct iov_iter *from, uint64_t off);
uint64_t ramfs_page_ref(struct inode *ip, size_t idx, bool fill);
int ramfs_truncate(struct inode *ip, uint64_t size);
size_t ramfs_resident_pages(struct inode *ip);
int ramfs_fallocate(struct inode *ip, bool punch, bool keep_size, uint64_t off, uint64_t len);
long ramfs_seek_hole_data(struct inode *ip, long off, bool hole);
/* The last reference went: a file's pages, a directory's entries. */
void ramfs_free_data(struct inode *ip);
void ramfs_free_dir(struct inode *dir);
/* Directories: getdents (ramfs_iterate_entries), O_TMPFILE's nameless
 * file (ramfs_inode.c). */
void ramfs_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);
int ramfs_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out);

#endif
