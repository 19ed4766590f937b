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
	size_t len;
	char name[]; /* NUL-terminated */
};

/* Under ip->lock (or as its last user): drops the data pages idx..end-1. */
void ramfs_drop_pages(struct inode *ip, size_t idx, size_t end);
/* Under ip->lock: the frame of page idx, allocated (zeroed) if missing and
 * charged to the size limit: from *charged, pages the caller charged
 * ahead, while it lasts (decremented), else one by one.  0 on ENOSPC. */
uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged);
/* Under ip->lock: how many of the pages idx..end-1 are holes. */
size_t ramfs_holes(struct inode *ip, size_t idx, size_t end);

/* Under dir->lock: the entry called name, or NULL. */
struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len);
/* A detached entry holding a copy of name (no inode yet), or NULL. */
struct ramfs_dirent *dirent_alloc(const char *name, size_t len);

#endif
