/* Kernel-generated read-only text files (see snapshot.h). */
#include "fs/snapshot.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/*
 * A file's text.  Lifetime: refs counts the file (f->priv points here
 * until a newer text replaces it or the file is released) and each read
 * copying from it; the last put frees it.
 */
struct snap {
	uint32_t refs; /* under snapshot_lock */
	char text[];
};

/* Protects every snapshot file's f->priv (which text is current) and the
 * refs of every text: a reader takes its reference under it, so a text
 * replaced meanwhile is never freed under a copy (which may fault and
 * sleep, so it runs without the lock). */
static struct spinlock snapshot_lock = SPINLOCK_INIT("snapshot");

static struct snap *snap_get(struct file *f)
{
	spin_lock(&snapshot_lock);
	struct snap *s = f->priv;
	if (s)
		s->refs++;
	spin_unlock(&snapshot_lock);
	return s;
}

static void snap_put(struct snap *s)
{
	spin_lock(&snapshot_lock);
	bool last = !--s->refs;
	spin_unlock(&snapshot_lock);
	if (last)
		kfree(s);
}

/* s (new, NULL if memory ran out) becomes f's text if f has none or
 * replace is set, the old one dropped; returns f's text now with a
 * reference for the caller (threads reading at once may each have made
 * one: the loser is freed). */
static struct snap *snap_install(struct file *f, struct snap *s, bool replace)
{
	struct snap *old;

	if (!s)
		return snap_get(f);
	spin_lock(&snapshot_lock);
	old = f->priv;
	if (old && !replace) {
		old->refs++;
		spin_unlock(&snapshot_lock);
		kfree(s);
		return old;
	}
	s->refs = 2; /* the file's and the caller's */
	f->priv = s;
	spin_unlock(&snapshot_lock);
	if (old)
		snap_put(old);
	return s;
}

/* Copies the text from *pos on and drops the caller's reference. */
static long snapshot_copy(struct snap *s, struct iov_iter *to, uint64_t *pos)
{
	size_t tlen, len = iov_iter_count(to), n = 0;

	if (!s)
		return -ENOMEM;
	tlen = strlen(s->text);
	if (*pos < tlen) {
		if (len > tlen - *pos)
			len = tlen - *pos;
		n = copy_to_iter(s->text + *pos, len, to);
		*pos += n;
	}
	snap_put(s);
	return n || !len || *pos >= tlen ? (long)n : -EFAULT;
}

/* A read at position 0 makes the text anew (Linux's seq_file shows the
 * values of now to a reader that seeks back: free, top, vmstat keep the
 * file open and read it again); a read further on continues through the
 * text the first read made. */
static bool fresh(struct file *f, uint64_t *pos, struct snap **s)
{
	return *pos == 0 || !(*s = snap_get(f));
}

long snapshot_read(struct file *f, struct iov_iter *to, uint64_t *pos, size_t size,
		   snapshot_fill_fn fill)
{
	struct snap *s = NULL;

	if (fresh(f, pos, &s)) {
		if ((s = kmalloc(sizeof(*s) + size)))
			fill(s->text, size);
		s = snap_install(f, s, *pos == 0);
	}
	return snapshot_copy(s, to, pos);
}

long snapshot_read_made(struct file *f, struct iov_iter *to, uint64_t *pos, snapshot_make_fn make)
{
	struct snap *s = NULL;

	if (fresh(f, pos, &s)) {
		char *text = make();
		size_t len = text ? strlen(text) + 1 : 0;
		if (text && (s = kmalloc(sizeof(*s) + len)))
			memcpy(s->text, text, len);
		kfree(text);
		s = snap_install(f, s, *pos == 0);
	}
	return snapshot_copy(s, to, pos);
}

void snapshot_release(struct file *f)
{
	if (f->priv)
		snap_put(f->priv);
	f->priv = NULL;
	vfs_release_inode(f);
}
