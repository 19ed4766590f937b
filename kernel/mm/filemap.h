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
 *	struct address_space *m = filemap_attach(ip, &ops);	// ip's first use
 *	n = filemap_read(m, ip, to, off, size);			// read_iter
 *	n = filemap_write(m, ip, from, off, len);		// write_iter
 *	pa = filemap_page_ref(m, ip, idx, read);		// mmap, execve
 *	filemap_truncate(m, size);				// the size shrank
 *	err = filemap_writeback(m, ip, first, last);		// fsync
 *	filemap_detach(m, ip, keep);				// ip's free_inode
 *	filemap_drop_sb(sb);					// the instance's end
 */
#ifndef MM_FILEMAP_H
#define MM_FILEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "sched/mutex.h"

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
	 * Before a write copies into the cache: the blocks under [off, off +
	 * len) exist (made if holes), so the write is ENOSPC now rather than
	 * lost at write-back.  0, -ENOSPC, -EIO, -EFBIG.
	 */
	int (*prepare_write)(struct inode *ip, uint64_t off, size_t len);
	/*
	 * Writes the first len bytes of page idx (the frame pa, locked by the
	 * caller) to its blocks, making any that is a hole (a store through
	 * a shared mapping): 0 or -errno.
	 */
	int (*writepage)(struct inode *ip, uint64_t idx, uint64_t pa, size_t len);
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
	/* Under pagecache_lock: its clean and its dirty pages (struct
	 * page.mapping_link), how many in all and dirty. */
	struct list_head pages, dirty;
	unsigned long nrpages, ndirty;
	/* Under pagecache_lock, while it has dirty pages: when it became
	 * dirty (monotonic ns) and its place on the list of dirty mappings,
	 * oldest first (the flusher's and sync's order, Linux's b_dirty). */
	uint64_t dirtied_ns;
	struct list_head dirty_link;
	/* Under pagecache_lock: the flusher writes it back now through host,
	 * which it holds no reference to; filemap_detach waits for the end
	 * (Linux's I_SYNC), so that host outlives the write-back. */
	bool flushing;
	/* Under pagecache_lock: the first write-back error not yet reported
	 * (the next fsync takes it, as Linux's AS_EIO). */
	int wb_err;
	/* Held by a writer of the file from its first page to the size's
	 * growth, and by a truncation (the file system's setattr, before its
	 * block lock): Linux's i_rwsem for writers. */
	struct mutex write_lock;
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
/* ip's last reference is going: its dirty pages are written back (keep)
 * and the mapping forgets it, unless a newer inode of the file attached
 * meanwhile.  keep false (the file was deleted) drops the pages. */
void filemap_detach(struct address_space *m, struct inode *ip, bool keep);
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
/* The file's size became size (the caller holds m->write_lock and no
 * block lock): pages wholly past it leave the cache once no write-back
 * holds them (a page still mapped keeps its frame, detached from the
 * file) and the tail of the last one is zeroed. */
void filemap_truncate(struct address_space *m, uint64_t size);
/*
 * write_iter through the cache, under m->write_lock: each page made
 * whole (read if it holds data, zeroed past the size), the bytes copied
 * in, the page dirty; ip's size grows past the last byte written.  Bytes
 * copied, or -errno when nothing was.  A writer past the dirty limit
 * (vm/dirty_ratio of memory) writes its own file back before it returns.
 */
long filemap_write(struct address_space *m, struct inode *ip, struct iov_iter *from, uint64_t off,
		   size_t len);
/*
 * Writes the dirty pages of m with an index in [first, last] back
 * (ops->writepage) and waits: 0 or the first error, which is then
 * reported: the error the next fsync gets (filemap_take_error) is one
 * no call reported yet.
 */
int filemap_writeback(struct address_space *m, struct inode *ip, uint64_t first, uint64_t last);
/* The write-back error not yet reported, cleared: 0 or -EIO. */
int filemap_take_error(struct address_space *m);
/* Writes back the dirty pages of every file of sb (NULL: of every
 * instance) that has an inode: 0 or the first error. */
int filemap_sync_sb(struct super_block *sb);
/* The flusher (mm/writeback.c): writes back the file whose pages have
 * been dirty longest if that is since before_ns or earlier (an error
 * waits in the mapping for fsync).  false when there is none. */
bool filemap_flush_oldest(uint64_t before_ns);
/* A process writes page idx through a shared mapping (its write fault,
 * after the entry became writable): the page is dirty.  Its write-back
 * write-protects the mappings again (mm/rmap.h), so the next store
 * comes here too. */
void filemap_page_mkwrite(struct address_space *m, uint64_t idx);
/* Pages dirty now, and being written now (meminfo's Dirty, Writeback). */
unsigned long filemap_dirty_count(void);
/* Files with dirty pages now. */
unsigned long filemap_dirty_files(void);
unsigned long filemap_writeback_count(void);
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
