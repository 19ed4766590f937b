/* Kernel-generated read-only text files (see snapshot.h). */
#include "fs/snapshot.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

long snapshot_read(struct file *f, struct iov_iter *to, uint64_t *pos, size_t size,
		   snapshot_fill_fn fill)
{
	char *text = f->priv;
	size_t tlen, len = iov_iter_count(to), n;

	if (!text) {
		if (!(text = kmalloc(size)))
			return -ENOMEM;
		fill(text, size);
		f->priv = text;
	}
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
