/*
 * Path lookup with symbolic links and mounts.  The walk holds one path
 * (mount and inode) at a time and takes each directory's lock only inside
 * dir_lookup, so it never nests locks.  A link met on the way is walked
 * in its own text, what followed it saved on a stack (struct walk in
 * fs/lookup_walk.h, the links themselves in fs/lookup_link.c).  The
 * walk's own puts keep a mount's expiry mark (mnt_put_keep_mark): passing
 * through a mount is no use of it; only the path handed out is.
 */
#include "fs/lookup_walk.h"
#include "fs/file.h"
#include "fs/root_cwd.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* The caller's root (chroot's), referenced: "/" of its paths. */
static void task_root(struct path *out)
{
	struct task *t = current();

	if (t && t->fs)
		fs_get_root(t->fs, out);
	else
		vfs_root_path(out);
}

/* The referenced directory a path starts from (start NULL or empty:
 * the working directory). */
static void start_dir(const struct path *start, const char *path, struct path *out)
{
	struct task *t = current();

	if (path[0] != '/') {
		if (start && start->inode) {
			*out = *start;
			path_get(out);
			return;
		}
		if (t && t->fs) {
			fs_get_cwd(t->fs, out);
			return;
		}
	}
	task_root(out);
}

/* Whether ".." stays at dir: the caller's root (no escape by "..";
 * a working directory outside it still walks up, as on Linux), or the
 * kernel's "/" for a caller without one (root= mounts it over the first
 * root, which ".." must not reach). */
static bool at_task_root(const struct path *dir)
{
	struct task *t = current();
	struct path root;
	bool at;

	if (t && t->fs)
		return fs_is_root(t->fs, dir);
	vfs_root_path(&root);
	at = path_equal(&root, dir);
	path_put_keep_mark(&root);
	return at;
}

/* Next component after *p (slashes skipped): false at the end of the path. */
static bool next_component(const char **p, const char **name, size_t *len)
{
	const char *s = *p;

	while (*s == '/')
		s++;
	if (!*s)
		return false;
	*name = s;
	while (*s && *s != '/')
		s++;
	*len = s - *name;
	*p = s;
	return true;
}

/* Only slashes left from p on? */
static bool at_end(const char *p)
{
	while (*p == '/')
		p++;
	return !*p;
}

/* LOOKUP_NO_XDEV: -EXDEV if reaching p crosses a mount point (Linux's
 * crossings: down, up by "..", and jumps; into a bind of the same
 * instance too). */
int xdev_check(const struct walk *w, const struct path *p)
{
	return (w->flags & LOOKUP_NO_XDEV) && p->mnt != w->home ? -EXDEV : 0;
}

/* The walk goes on from "/": the root, or a scoped walk's own (IN_ROOT);
 * BENEATH may not go there. */
int jump_root(struct walk *w)
{
	if (w->flags & LOOKUP_BENEATH)
		return -EXDEV;
	if (w->cur.inode)
		path_put_keep_mark(&w->cur);
	if (w->flags & LOOKUP_IN_ROOT) {
		w->cur = w->scope;
		path_get(&w->cur);
	} else {
		task_root(&w->cur);
	}
	return xdev_check(w, &w->cur);
}

static int walk_init(struct walk *w, const struct path *start, const char *path,
		     struct path_where *where, unsigned int flags)
{
	*w = (struct walk){.rest = path, .where = where, .flags = flags};
	if (where)
		*where = (struct path_where){NULL, NULL};
	if (!(flags & LOOKUP_SCOPED)) {
		start_dir(start, path, &w->cur);
		w->home = w->cur.mnt;
		return 0;
	}
	start_dir(start, ".", &w->scope);
	w->home = w->scope.mnt;
	w->rename_seq = dir_rename_begin();
	if (path[0] == '/')
		return jump_root(w);
	w->cur = w->scope;
	path_get(&w->cur);
	return 0;
}

void path_where_put(struct path_where *where)
{
	if (where->dir)
		inode_put(where->dir);
	kfree(where->name);
	*where = (struct path_where){NULL, NULL};
}

/* Fills w->where for the result ip, named by last in w->cur: 0 or -ENOMEM. */
static int note_where(struct walk *w, const struct path_last *last, struct inode *ip)
{
	if (!w->where || !w->named || inode_is_dir(ip))
		return 0;
	if (!(w->where->name = kmalloc(last->len + 1)))
		return -ENOMEM;
	memcpy(w->where->name, last->name, last->len);
	w->where->name[last->len] = '\0';
	inode_get(w->cur.inode);
	w->where->dir = w->cur.inode;
	return 0;
}

/* Back to the text the innermost link interrupted. */
static void walk_pop(struct walk *w)
{
	struct walk_link *l = &w->stack[--w->depth];

	w->rest = l->rest;
	inode_put(l->link);
}

static void walk_done(struct walk *w)
{
	if (w->cur.inode)
		path_put_keep_mark(&w->cur);
	if (w->scope.inode)
		path_put_keep_mark(&w->scope);
	while (w->depth)
		walk_pop(w);
	kfree(w->stack);
}

/* The next component of the whole path: of the current text, else of the
 * texts the links interrupted.  false at the end. */
static bool walk_next(struct walk *w, const char **name, size_t *len)
{
	while (!next_component(&w->rest, name, len)) {
		if (!w->depth)
			return false;
		walk_pop(w);
	}
	return true;
}

/* Only slashes left in every text (the component just read is the last);
 * *slash: one of them has one (the last must be a directory). */
static bool walk_at_end(const struct walk *w, bool *slash)
{
	*slash = *w->rest == '/';
	if (!at_end(w->rest))
		return false;
	for (int i = 0; i < w->depth; i++) {
		if (!at_end(w->stack[i].rest))
			return false;
		*slash |= *w->stack[i].rest == '/';
	}
	return true;
}

/*
 * The paths child_in finds borrow the walk's mount: the mount is
 * referenced only when it is not w->cur's (a crossing), so a step inside
 * one mount touches no mount count.  walk_own makes such a path whole (a
 * result handed out), walk_drop lets it go, walk_step moves the walk on
 * to it; walk_borrow turns a whole path into a borrowing one.  Each must
 * run while w->cur is still the directory the path was found in.
 */
static void walk_own(const struct walk *w, struct path *p)
{
	if (p->mnt == w->cur.mnt)
		mnt_get(p->mnt);
}

static void walk_borrow(const struct walk *w, struct path *p)
{
	if (p->mnt == w->cur.mnt)
		mnt_put_keep_mark(p->mnt); /* never the last: w->cur holds one */
}

/* Drops p's mount only: before a link is followed, which may move the
 * walk to the root (the inode, the link's target, is still needed). */
static void walk_drop_mnt(const struct walk *w, struct path *p)
{
	if (p->mnt != w->cur.mnt)
		mnt_put_keep_mark(p->mnt);
	p->mnt = NULL;
}

static void walk_drop(const struct walk *w, struct path *p)
{
	walk_drop_mnt(w, p);
	inode_put(p->inode);
}

static void walk_step(struct walk *w, const struct path *next)
{
	inode_put(w->cur.inode);
	if (next->mnt != w->cur.mnt)
		mnt_put_keep_mark(w->cur.mnt);
	w->cur = *next;
}

/* "..": the parent of dir or, from the root of a mount, the parent of
 * what it covers; at the root of a detached tree, itself (referenced). */
static void parent_of(const struct path *dir, struct path *out)
{
	struct inode *parent;

	*out = *dir;
	path_get(out);
	mount_up(out);
	if (path_is_mount_root(out))
		return;
	parent = dir_parent(out->inode);
	inode_put(out->inode);
	out->inode = parent;
	mount_down(out);
}

/*
 * What name names in the directory w->cur ("." and ".." included),
 * referenced (its mount borrowed from the walk's), a link not followed.
 * -ENOTDIR, -ENAMETOOLONG, -ENOENT.
 */
static int child_in(struct walk *w, const char *name, size_t len, struct path *out)
{
	struct path *dir = &w->cur;

	if (!inode_is_dir(dir->inode))
		return -ENOTDIR;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (is_dot(name, len)) {
		*out = *dir;
		inode_get(out->inode);
		return 0;
	}
	if (!is_dotdot(name, len)) {
		int err = dir_find(dir->inode, name, len, &out->inode);
		out->mnt = dir->mnt;
		if (!err && __atomic_load_n(&out->inode->mounted, __ATOMIC_ACQUIRE)) {
			mnt_get(out->mnt);
			mount_down(out);
			walk_borrow(w, out);
		}
		return err;
	}
	/* A scoped walk stops at its start (IN_ROOT) or may not pass it
	 * (BENEATH); a rename meanwhile may have moved it out of the scope
	 * without passing there, as Linux fears: EAGAIN, the caller retries. */
	bool at_scope = (w->flags & LOOKUP_SCOPED) && path_equal(dir, &w->scope);

	if (at_scope && (w->flags & LOOKUP_BENEATH))
		return -EXDEV;
	if (at_scope || at_task_root(dir)) {
		*out = *dir;
		inode_get(out->inode);
		return 0;
	}
	parent_of(dir, out);
	walk_borrow(w, out);
	if ((w->flags & LOOKUP_SCOPED) && dir_rename_retry(w->rename_seq)) {
		walk_drop(w, out);
		return -EAGAIN;
	}
	return 0;
}

/* child_in, refused (EXDEV) across file systems under LOOKUP_NO_XDEV. */
static int child_of(struct walk *w, const char *name, size_t len, struct path *out)
{
	int err = child_in(w, name, len, out);

	if (!err && (err = xdev_check(w, out)))
		walk_drop(w, out);
	return err;
}

/* MS_NOSYMFOLLOW: no link on such a mount is taken, a magic one neither:
 * ELOOP before any other check (Linux's pick_link); readlink and
 * O_NOFOLLOW, which take none, still work. */
static int link_mnt_check(const struct path *link)
{
	return path_mnt_flags(link) & MNT_NOSYMFOLLOW ? -ELOOP : 0;
}

/*
 * Walks every component but the last, following the links met.  Then
 * w->cur is the last component's directory and *last names the component
 * (pointing into w->rest: valid while the walk is; len 0 for "/").
 */
static int walk_to_last(struct walk *w, struct path_last *last)
{
	const char *name;
	size_t len;
	struct path next;
	int err;

	*last = (struct path_last){.name = "", .len = 0, .trailing_slash = true};
	while (walk_next(w, &name, &len)) {
		bool slash;
		/* Search permission on every directory the walk goes
		 * through, the last one's too (Linux's may_lookup). */
		if (inode_is_dir(w->cur.inode) && (err = inode_permission(w->cur.inode, MAY_EXEC)))
			return err;
		if (walk_at_end(w, &slash)) {
			last->name = name;
			last->len = len;
			last->trailing_slash = slash;
			break;
		}
		err = child_of(w, name, len, &next);
		if (err)
			return err;
		if (inode_is_link(next.inode) && (err = link_mnt_check(&next))) {
			walk_drop(w, &next);
			return err;
		}
		if (inode_is_link(next.inode) && link_jumps(next.inode)) {
			struct path dir;
			err = jump_link(w, next.inode, &dir);
			walk_drop(w, &next);
			if (err)
				return err == -ENXIO ? -ENOTDIR : err;
			path_put_keep_mark(&w->cur);
			w->cur = dir;
			continue;
		}
		if (inode_is_link(next.inode)) {
			walk_drop_mnt(w, &next);
			err = follow_link(w, next.inode, w->rest);
			inode_put(next.inode);
			if (err)
				return err;
			continue;
		}
		walk_step(w, &next);
	}
	if (!inode_is_dir(w->cur.inode))
		return -ENOTDIR;
	return last->len > NAME_MAX ? -ENAMETOOLONG : 0;
}

static int check_path(const char *path)
{
	if (!*path)
		return -ENOENT;
	return strnlen(path, PATH_MAX) >= PATH_MAX ? -ENAMETOOLONG : 0;
}

int path_lookup_parent(const struct path *start, const char *path, struct path_last *last)
{
	struct walk w;
	int err = check_path(path);

	if (err)
		return err;
	err = walk_init(&w, start, path, NULL, 0);
	if (!err)
		err = walk_to_last(&w, last);
	if (!err) {
		/* The name may be in a link's text: a copy that outlives the walk. */
		memcpy(last->name_buf, last->name, last->len);
		last->name_buf[last->len] = '\0';
		last->name = last->name_buf;
		last->dir = w.cur;
		w.cur = (struct path){NULL, NULL};
	}
	walk_done(&w);
	return err;
}

/*
 * The last step of a walk: *out is what the last component names or, for
 * a link to follow, empty with the walk continuing at the link's target.
 * A trailing slash always follows (Linux: "link/" means the directory).
 */
static int walk_last(struct walk *w, const struct path_last *last, unsigned int flags,
		     struct path *out)
{
	struct path ip;
	int err;

	*out = (struct path){NULL, NULL};
	w->named = false;
	if (!last->len) {
		*out = w->cur;
		path_get(out);
		return 0;
	}
	err = child_of(w, last->name, last->len, &ip);
	if (err)
		return err;
	if (inode_is_link(ip.inode) && (!(flags & LOOKUP_NOFOLLOW) || last->trailing_slash)) {
		if ((err = link_mnt_check(&ip))) {
			walk_drop(w, &ip);
			return err;
		}
		walk_drop_mnt(w, &ip);
		err = take_link(w, ip.inode, last->trailing_slash ? "/" : "", out);
		inode_put(ip.inode);
		return err;
	}
	w->named = !is_dot(last->name, last->len) && !is_dotdot(last->name, last->len);
	*out = ip;
	walk_own(w, out);
	return 0;
}

int path_lookup_where(const struct path *start, const char *path, unsigned int flags,
		      struct path *out, struct path_where *where)
{
	struct path_last last;
	struct walk w;
	struct path ip = {NULL, NULL};
	int err = check_path(path);

	if (err)
		return err;
	err = walk_init(&w, start, path, where, flags);
	while (!err && !ip.inode) {
		err = walk_to_last(&w, &last);
		if (!err)
			err = walk_last(&w, &last, flags, &ip);
	}
	if (!err && last.trailing_slash && !inode_is_dir(ip.inode))
		err = -ENOTDIR;
	if (!err)
		err = note_where(&w, &last, ip.inode);
	if (err && where)
		path_where_put(where);
	walk_done(&w);
	if (err && ip.inode)
		path_put_keep_mark(&ip);
	if (!err)
		*out = ip;
	return err;
}

int path_lookup_path(const struct path *start, const char *path, unsigned int flags,
		     struct path *out)
{
	return path_lookup_where(start, path, flags, out, NULL);
}

int path_lookup_flags(const struct path *start, const char *path, unsigned int flags,
		      struct inode **out)
{
	struct path p;
	int err = path_lookup_where(start, path, flags, &p, NULL);

	if (!err) {
		*out = p.inode;
		mnt_put(p.mnt);
	}
	return err;
}

int path_lookup(const struct path *start, const char *path, struct inode **out)
{
	return path_lookup_flags(start, path, 0, out);
}

/*
 * One round of path_create on the last component: *ip is set when done
 * (found or created); left empty when the walk follows a link.
 */
static int create_last(struct walk *w, const struct path_last *last, unsigned int flags,
		       uint32_t mode, struct path *ip, bool *created)
{
	struct inode *link;
	bool special =
	    !last->len || is_dot(last->name, last->len) || is_dotdot(last->name, last->len);
	int err;

	if (special)
		return walk_last(w, last, 0, ip);
	if (last->trailing_slash)
		return -EISDIR; /* Linux: O_CREAT never makes a directory */
	w->named = true;
	ip->mnt = w->cur.mnt;
	err = dir_find(w->cur.inode, last->name, last->len, &ip->inode);
	if (err && err != -ENOENT && err != -ESRCH) {
		ip->inode = NULL;
		return err; /* a damaged directory (EIO): Linux's lookup error */
	}
	if (!err) {
		mnt_get(ip->mnt);
		mount_down(ip);
	} else {
		ip->inode = NULL;
		if ((err = path_want_write(&w->cur)) || (err = may_create(w->cur.inode)))
			return err;
		err = dir_create(w->cur.inode, last->name, last->len, S_IFREG | (mode & 07777), 0,
				 &ip->inode);
		if (ip->inode)
			mnt_get(ip->mnt);
		*created = !err;
		return err == -EEXIST ? 0 : err; /* lost a race: it exists now */
	}
	if (!inode_is_link(ip->inode) || (flags & (LOOKUP_EXCL | LOOKUP_NOFOLLOW)))
		return 0;
	if ((err = link_mnt_check(ip)))
		return err; /* ip, whole, is the caller's to put */
	link = ip->inode;
	mnt_put_keep_mark(ip->mnt);
	*ip = (struct path){NULL, NULL};
	err = take_link(w, link, "", ip);
	inode_put(link);
	return err;
}

int path_create(const struct path *start, const char *path, unsigned int flags, uint32_t mode,
		struct path *out, bool *created, struct path_where *where)
{
	struct path_last last;
	struct walk w;
	struct path ip = {NULL, NULL};
	int err = check_path(path);

	*created = false;
	if (err)
		return err;
	err = walk_init(&w, start, path, where, flags);
	while (!err && !ip.inode) {
		err = walk_to_last(&w, &last);
		if (!err)
			err = create_last(&w, &last, flags, mode, &ip, created);
	}
	if (!err && !*created && (flags & LOOKUP_EXCL))
		err = -EEXIST;
	if (!err)
		err = note_where(&w, &last, ip.inode);
	if (err && where)
		path_where_put(where);
	walk_done(&w);
	if (err && ip.inode)
		path_put_keep_mark(&ip);
	if (!err)
		*out = ip;
	return err;
}
