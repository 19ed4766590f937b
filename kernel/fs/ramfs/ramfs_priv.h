/*
 * What the ramfs files share among themselves (ramfs.c, ramfs_attr.c,
 * ramfs_rename.c) and nobody else: the directory entry and its helpers.
 */
#ifndef FS_RAMFS_PRIV_H
#define FS_RAMFS_PRIV_H

#include "fs/inode.h"

/* One name in a directory; owned by the directory, under its lock. */
struct ramfs_dirent {
	struct list_head link;
	struct inode *ip; /* referenced by the entry */
	uint64_t pos;	  /* getdents cookie: unique, increasing within the directory */
	uint64_t key;	  /* name_key(name, len): compared before the name */
	struct ramfs_dirent *hnext; /* its hash bucket's chain (dir.buckets) */
	size_t len;
	char name[]; /* NUL-terminated */
};

/*
 * A pages[] entry is a frame's physical address, with RAMFS_UNWRITTEN set
 * while a page fallocate added has not been written: tmpfs's !uptodate
 * folio, zeroes to read but a hole to SEEK_DATA until a write or a shared
 * mapping's fault fills it.
 */
#define RAMFS_UNWRITTEN 1ULL

/* Under ip->lock: the frame of page idx, or 0 for a hole. */
static inline uint64_t ramfs_frame(struct inode *ip, size_t idx)
{
	return idx < ip->file.npages ? ip->file.pages[idx] & ~RAMFS_UNWRITTEN : 0;
}

/* Under ip->lock (or as its last user): drops the data pages idx..end-1. */
void ramfs_drop_pages(struct inode *ip, size_t idx, size_t end);
/* Under ip->lock: the frame of page idx, allocated (zeroed) if missing and
 * charged to the size limit: from *charged, pages the caller charged
 * ahead, while it lasts (decremented), else one by one.  0 on ENOSPC.
 * written: the caller stores into it (clears RAMFS_UNWRITTEN); else a
 * page it adds is marked unwritten (fallocate). */
uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged, bool written);
/* Under ip->lock: how many of the pages idx..end-1 are holes. */
size_t ramfs_holes(struct inode *ip, size_t idx, size_t end);

/* Under dir->lock: the entry called name, or NULL. */
struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len);
/* Under dir->lock: e joins or leaves dir's hash table, if it has one. */
void dir_hash_add(struct inode *dir, struct ramfs_dirent *e);
void dir_hash_del(struct inode *dir, struct ramfs_dirent *e);
/* With no lock held, after dir gained entries: a table for them all. */
void dir_hash_grow(struct inode *dir);
/* A detached entry holding a copy of name (no inode yet), or NULL. */
struct ramfs_dirent *dirent_alloc(const char *name, size_t len);

#endif
