/*
 * The page cache (docs/pagecache.md): the pages of the files of disk file
 * systems (ext2), as Linux's filemap in small.  ramfs files are their own
 * pages (fs/ramfs/) and are not here.
 *
 * Each file has an address_space (struct address_space), found by
 * (super block, inode number): it outlives the VFS inode that uses it, so
 * a file's pages stay cached after its last close (the inode goes, its
 * pages stay, Linux's inode cache in small) until memory pressure, a
 * drop_caches, the file's deletion or the instance's end drops them.
 *
 *	struct address_space *m = filemap_attach(ip, &ops);	// ip's icache load
 *	n = filemap_read(m, ip, to, off);			// read_iter
 *	pa = filemap_page_ref(m, ip, idx);			// mmap, execve
 *	filemap_truncate(m, size);				// the size shrank
 *	filemap_detach(m, keep);				// ip's free_inode
 *	filemap_drop_sb(sb);					// the instance's end
 */
#ifndef MM_FILEMAP_H
#define MM_FILEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"

struct inode;
struct iov_iter;
struct super_block;

/* What the file system does for the cache (Linux's address_space_operations). */
struct filemap_ops {
	/*
	 * Fills the frames pas[0..n) with pages first..first+n-1 of ip (holes
	 * and bytes past the size as zeroes), each frame a page the caller
	 * holds locked: 0 or -EIO (every page is then unread).  A file system
	 * reads consecutive blocks with one bio (readahead's point).
	 */
	int (*readpages)(struct inode *ip, uint64_t first, const uint64_t *pas, unsigned int n);
	/*
	 * A read of len bytes at off (inside one page) that bypasses the
	 * cache, a block at a time, for a page readpages cannot read whole
	 * (a bad block): the bytes before the first block that fails are
	 * the reader's.  Bytes copied, or -EIO / -EFAULT.  NULL: none.
	 */
	long (*read_uncached)(struct inode *ip, uint64_t off, size_t len, struct iov_iter *to);
};

/*
 * One file's cached pages.  Lives from the first filemap_attach of its
 * (sb, ino) until it has no pages and no inode (or the instance ends).
 */
struct address_space {
	struct super_block *sb;	       /* constant; the instance outlives it (filemap_drop_sb) */
	uint64_t ino;		       /* constant */
	const struct filemap_ops *ops; /* constant */
	/*
	 * Under pagecache_lock (filemap.c): the VFS inode using the pages,
	 * or NULL between two inodes of the file (its free_inode detaches
	 * it before the memory goes, so a non-NULL host is alive).
	 */
	struct inode *host;
	/* Under pagecache_lock: its pages (struct page.mapping_link), their count. */
	struct list_head pages;
	unsigned long nrpages;
	/* The page after the last one read (under pagecache_lock): a read
	 * that starts there is sequential and reads ahead. */
	uint64_t ra_next;
	struct list_head hash_link; /* in the mapping hash, under pagecache_lock */
};

/* Pages read ahead of a sequential reader at once (the buffer cache's 32 blocks). */
#define FILEMAP_RA_PAGES 32

/* Sets the cache up at boot (the page hash, sized by memory). */
void filemap_init(void);
/* ip's pages (made, or found from an earlier inode of the file): its
 * host is ip until filemap_detach.  NULL when memory runs out. */
struct address_space *filemap_attach(struct inode *ip, const struct filemap_ops *ops);
/* ip's last reference is going: the mapping forgets it.  keep false (the
 * file was deleted) drops the pages too. */
void filemap_detach(struct address_space *m, bool keep);
/*
 * read_iter through the cache: up to size (the caller's snapshot of
 * ip's size), reading missing pages with ops->readpages (ahead of a
 * sequential reader).  Bytes copied, or -EIO / -EFAULT / -ENOMEM when
 * nothing was.
 */
long filemap_read(struct address_space *m, struct inode *ip, struct iov_iter *to, uint64_t off,
		  uint64_t size);
/* The frame of page idx with a reference for the caller, read in if
 * need be and read is set (a fault), else only when cached (mincore,
 * smaps, execve's sharing): 0 when it is not, cannot be read or memory
 * runs out. */
uint64_t filemap_page_ref(struct address_space *m, struct inode *ip, uint64_t idx, bool read);
/* The file's size became size: pages wholly past it leave the cache
 * (a page still mapped keeps its frame, detached from the file) and the
 * tail of the last one is zeroed. */
void filemap_truncate(struct address_space *m, uint64_t size);
/* The instance's last reference is gone (no inode left): its mappings
 * and their pages go. */
void filemap_drop_sb(struct super_block *sb);
/* Frees up to want clean pages that nothing holds or maps, coldest
 * first (memory pressure, drop_caches, the leak check): how many went. */
unsigned long filemap_shrink(unsigned long want);
/* Pages cached now (meminfo's Cached, with the ramfs's). */
unsigned long filemap_page_count(void);
/* Mappings alive (the leak check). */
unsigned long filemap_mapping_count(void);

#endif
