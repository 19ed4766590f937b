/*
 * File-system events for inotify (fs/notify/inotify.c, docs/inotify.md) and
 * dnotify (fs/notify/dnotify.c): the hooks the VFS and the ramfs call where Linux
 * calls fsnotify.  Each is a load and a branch when nothing watches the
 * inodes concerned; none may be called under an inode lock or the rename
 * locks (inotify_lock nests outside those it takes: a group's queue lock,
 * a wait queue's, the heap's; dnotify_lock outside fasync_lock and
 * proc_lock).
 */
#ifndef FS_FSNOTIFY_H
#define FS_FSNOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/notify/dnotify.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/super.h"
#include <uapi/inotify.h>

/* Whether anything watches ip (a racy read: a watch being added now may
 * miss this event, as Linux's fsnotify may). */
static inline bool fsnotify_watched(const struct inode *ip)
{
	return ip && (__atomic_load_n(&ip->watches, __ATOMIC_RELAXED) ||
		      __atomic_load_n(&ip->dnotify, __ATOMIC_RELAXED));
}

void __fsnotify_inode(struct inode *ip, uint32_t mask);
void __fsnotify_name(struct inode *dir, uint32_t mask, const char *name, size_t len,
		     uint32_t cookie);
void __fsnotify_parent(struct inode *ip, struct inode *dir, const char *name, uint32_t mask);
/* Whether any watch exists at all (a racy read, as fsnotify_watched). */
bool fsnotify_any(void);
void __fsnotify_unlinked(struct inode *ip);
void __fsnotify_sb_unmount(struct super_block *sb);

/* An event of ip itself (IN_ATTRIB, IN_MODIFY, IN_MOVE_SELF). */
static inline void fsnotify_inode(struct inode *ip, uint32_t mask)
{
	if (fsnotify_watched(ip))
		__fsnotify_inode(ip, mask);
}

/* An event of directory dir about its entry name (IN_CREATE, IN_DELETE,
 * IN_MOVED_FROM/TO with cookie, dnotify's FSN_RENAME), child its inode
 * (IN_ISDIR if a directory). */
static inline void fsnotify_name(struct inode *dir, struct inode *child, uint32_t mask,
				 const char *name, size_t len, uint32_t cookie)
{
	if (fsnotify_watched(dir))
		__fsnotify_name(dir, mask | (S_ISDIR(child->mode) ? IN_ISDIR : 0), name, len,
				cookie);
}

/*
 * An event of ip (IN_ACCESS, IN_MODIFY, IN_OPEN, IN_CLOSE_*, IN_ATTRIB) to
 * its own watches and its directory's, with its name there: dir and name
 * where a lookup found it (a file opened by name: f->dir, f->name), or for
 * a directory with none, its parent.  Linux's parent events.
 */
static inline void fsnotify_parent(struct inode *ip, struct inode *dir, const char *name,
				   uint32_t mask)
{
	if (fsnotify_watched(ip) || fsnotify_watched(dir) || (S_ISDIR(ip->mode) && fsnotify_any()))
		__fsnotify_parent(ip, dir, name, mask);
}

/* fsnotify_parent for an open file: where it was opened (nothing for a
 * file without an inode: pipes, sockets, anon inodes). */
static inline void fsnotify_file(struct file *f, uint32_t mask)
{
	if (f->inode)
		fsnotify_parent(f->inode, f->dir, f->name, mask);
}

/* inode_put left ip one reference: if that is its watches' and no name
 * leads to it any more, the file is gone (Linux's fsnotify_inoderemove):
 * IN_DELETE_SELF and IN_IGNORED to its watches, which go with their
 * reference. */
static inline void fsnotify_unlinked(struct inode *ip)
{
	if (__atomic_load_n(&ip->watches, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&ip->nlink, __ATOMIC_RELAXED))
		__fsnotify_unlinked(ip);
}

/* sb leaves its last mount (Linux's fsnotify_sb_delete): every watch on
 * its inodes gets IN_UNMOUNT and IN_IGNORED and goes. */
static inline void fsnotify_sb_unmount(struct super_block *sb)
{
	if (__atomic_load_n(&sb->watched, __ATOMIC_RELAXED))
		__fsnotify_sb_unmount(sb);
}

/* A new rename cookie (never 0). */
uint32_t fsnotify_cookie(void);

/* The events of one name moving, sent with no lock held (Linux's
 * fsnotify_move): a rename within one directory is FSN_RENAME there
 * (dnotify's DN_RENAME); a cookie pairs IN_MOVED_FROM in from with
 * IN_MOVED_TO in to; the inode itself gets IN_MOVE_SELF. */
void fsnotify_move(struct inode *from, const char *fname, size_t flen, struct inode *to,
		   const char *tname, size_t tlen, struct inode *ip);

#endif
