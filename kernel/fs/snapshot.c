/* Kernel-generated read-only text files (see snapshot.h). */
#include "fs/snapshot.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

long snapshot_read(struct file *f, void *ubuf, size_t len, uint64_t *pos, size_t size,
		   snapshot_fill_fn fill)
{
	char *text = f->priv;
	size_t tlen;

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
	if (copy_to_user(ubuf, text + *pos, len))
		return -EFAULT;
	*pos += len;
	return (long)len;
}

void snapshot_release(struct file *f)
{
	kfree(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}
