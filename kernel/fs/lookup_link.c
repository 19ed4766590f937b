/*
 * Symbolic links met by a path walk (fs/lookup.c): a link's text is
 * walked in place of its name, what followed saved on the walk's stack;
 * a magic link (/proc/<pid>/fd, /proc/<pid>/ns) jumps to the object it
 * stands for.  MAXSYMLINKS links per lookup, then ELOOP, as Linux.
 */
#include "fs/lookup_walk.h"
#include "fs/file.h"
#include "fs/mount.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* May the walk take link (ELOOP, EXDEV as Linux's pick_link and
 * nd_jump_link)?  Magic links name an object, not a path, so no scope
 * can vouch for where they lead. */
static int link_allowed(const struct walk *w, const struct inode *link)
{
	if (w->flags & LOOKUP_NO_SYMLINKS)
		return -ELOOP;
	if (link->link.denied)
		return -EACCES;
	if (!link->link.magic)
		return 0;
	if (w->flags & LOOKUP_NO_MAGICLINKS)
		return -ELOOP;
	return w->flags & LOOKUP_SCOPED ? -EXDEV : 0;
}

/*
 * The link ip (referenced by the caller; its target is constant) stands
 * where the walk is, and tail follows it (valid for the walk: see struct
 * walk_link).  The walk goes on in the target, from the root if it is
 * absolute, else from w->cur, the link's directory; then in tail.
 */
int follow_link(struct walk *w, struct inode *ip, const char *tail)
{
	const char *target = ip->link.target;
	int err;

	if (++w->links > MAXSYMLINKS)
		return -ELOOP;
	if ((err = link_allowed(w, ip)))
		return err;
	/* At most one entry per link followed: MAXSYMLINKS is room enough. */
	if (!w->stack && !(w->stack = kmalloc(MAXSYMLINKS * sizeof(*w->stack))))
		return -ENOMEM;
	inode_get(ip);
	w->stack[w->depth++] = (struct walk_link){ip, tail};
	w->rest = target;
	return target[0] == '/' ? jump_root(w) : 0;
}

/* Whether the walk jumps through link rather than following its text: a
 * /proc/<pid>/fd link (link.file) or a /proc/<pid>/ns one (link.jump
 * alone). */
bool link_jumps(const struct inode *link)
{
	return link->link.file || link->link.jump;
}

/*
 * A /proc/<pid>/fd link (link.file set) stands for an open file: the walk
 * goes to the file's inode itself, not to the path the link shows
 * (Linux's magic links), so a renamed or unlinked file is still reached.
 * *out is that inode and the mount the file was opened through,
 * referenced; w->where takes the file's own.  -ENXIO for a file that
 * cannot be opened again (a socket, as Linux).  A /proc/<pid>/ns link
 * jumps to its nsfs inode, which no mount shows (Linux's nsfs is an
 * internal mount), as a memfd's file has no mount.
 */
int jump_link(struct walk *w, struct inode *link, struct path *out)
{
	struct file *f = link->link.file;
	struct mount *mnt = f ? f->mnt : NULL;
	int err;

	if (++w->links > MAXSYMLINKS)
		return -ELOOP;
	if ((err = link_allowed(w, link)))
		return err;
	if (!link->link.jump)
		return -ENXIO;
	if ((err = xdev_check(w, &(struct path){mnt, link->link.jump})))
		return err;
	w->named = false;
	if (w->where && f && f->name) {
		if (!(w->where->name = kstrdup(f->name)))
			return -ENOMEM;
		if (f->dir) /* none for a memfd (fs/ramfs/memfd.c) */
			inode_get(f->dir);
		w->where->dir = f->dir;
	}
	*out = (struct path){mnt, link->link.jump};
	path_get(out);
	return 0;
}

/* A link met at the end: jump (*out set) or follow (out->inode left NULL). */
int take_link(struct walk *w, struct inode *link, const char *tail, struct path *out)
{
	return link_jumps(link) ? jump_link(w, link, out) : follow_link(w, link, tail);
}
