/* Kernel-generated read-only text files (see snapshot.h). */
#include "fs/snapshot.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* The file's text, made by the first read.  Threads sharing the fd may make
 * one each at once: the first installed is the file's, the others are
 * freed (before, the last overwrote the others, which leaked).  Acquire
 * and release: a reader sees the text filled. */
static char *snapshot_text(struct file *f, size_t size, snapshot_fill_fn fill)
{
	char *text = __atomic_load_n((char **)&f->priv, __ATOMIC_ACQUIRE), *none = NULL;

	if (text)
		return text;
	if (!(text = kmalloc(size)))
		return NULL;
	fill(text, size);
	if (__atomic_compare_exchange_n((char **)&f->priv, &none, text, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return text;
	kfree(text);
	return none; /* the one another thread installed first */
}

long snapshot_read(struct file *f, struct iov_iter *to, uint64_t *pos, size_t size,
		   snapshot_fill_fn fill)
{
	char *text = snapshot_text(f, size, fill);
	size_t tlen, len = iov_iter_count(to), n;

	if (!text)
		return -ENOMEM;
	tlen = strlen(text);
	if (*pos >= tlen)
		return 0;
	if (len > tlen - *pos)
		len = tlen - *pos;
	n = copy_to_iter(text + *pos, len, to);
	*pos += n;
	return n || !len ? (long)n : -EFAULT;
}

void snapshot_release(struct file *f)
{
	kfree(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}
