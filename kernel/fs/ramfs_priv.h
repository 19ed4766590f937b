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

/* Under dir->lock: the entry called name, or NULL. */
struct ramfs_dirent *find_entry(struct inode *dir, const char *name, size_t len);
/* A detached entry holding a copy of name (no inode yet), or NULL. */
struct ramfs_dirent *dirent_alloc(const char *name, size_t len);

#endif
