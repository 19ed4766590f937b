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
static char *snapshot_install(struct file *f, char *text)
{
	char *none = NULL;

	if (!text)
		return NULL;
	if (__atomic_compare_exchange_n((char **)&f->priv, &none, text, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return text;
	kfree(text);
	return none; /* the one another thread installed first */
}

static char *snapshot_current(struct file *f)
{
	return __atomic_load_n((char **)&f->priv, __ATOMIC_ACQUIRE);
}

/* Copies the text from *pos on. */
static long snapshot_copy(const char *text, struct iov_iter *to, uint64_t *pos)
{
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

long snapshot_read(struct file *f, struct iov_iter *to, uint64_t *pos, size_t size,
		   snapshot_fill_fn fill)
{
	char *text = snapshot_current(f);

	if (!text && (text = kmalloc(size))) {
		fill(text, size);
		text = snapshot_install(f, text);
	}
	return snapshot_copy(text, to, pos);
}

long snapshot_read_made(struct file *f, struct iov_iter *to, uint64_t *pos, snapshot_make_fn make)
{
	char *text = snapshot_current(f);

	if (!text)
		text = snapshot_install(f, make());
	return snapshot_copy(text, to, pos);
}

void snapshot_release(struct file *f)
{
	kfree(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}
