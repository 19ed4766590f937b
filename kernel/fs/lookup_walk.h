/*
 * The state of a path walk, shared by the walk itself (fs/lookup.c) and
 * the symbolic links it takes (fs/lookup_link.c).  Nothing else includes
 * it.
 */
#ifndef FS_LOOKUP_WALK_H
#define FS_LOOKUP_WALK_H

#include "fs/path.h"
#include "fs/vfs.h"

/* The walks that may not leave where they started. */
#define LOOKUP_SCOPED (LOOKUP_BENEATH | LOOKUP_IN_ROOT)

/*
 * A link being walked: the walk reads the link's own text (its target,
 * constant while the inode is referenced) and comes back to rest, what
 * followed the link in the text that named it, when that text is done.
 */
struct walk_link {
	struct inode *link; /* referenced: its target is the text being walked */
	const char *rest;   /* in the caller's path, a link below's text, or "" / "/" */
};

/*
 * A walk in progress.  Following a link pushes what remains of the
 * current text and walks the link's target (Linux's nd->stack), so the
 * walk stays a loop (no recursion), nothing is copied, each text is
 * bounded by PATH_MAX on its own (never a target and the rest of the
 * path together), and `..` after a link goes up from where the link
 * pointed, as in Linux.
 */
struct walk {
	struct path cur;	  /* referenced directory where rest starts */
	const char *rest;	  /* what remains of the current text */
	struct walk_link *stack;  /* kmalloc'd (MAXSYMLINKS) at the first link, else NULL */
	int depth;		  /* links on the stack */
	int links;		  /* links followed so far */
	struct path_where *where; /* to fill at the end, or NULL */
	bool named;	    /* the result is w->cur's child by the last name (not a jump, ., ..) */
	unsigned int flags; /* LOOKUP_* of the whole walk (vfs.h) */
	/* A scoped walk (LOOKUP_BENEATH or LOOKUP_IN_ROOT): where it started,
	 * referenced, which it may not leave, and the rename sequence then. */
	struct path scope;
	unsigned long rename_seq;
	/* LOOKUP_NO_XDEV: the mount the walk starts on, which it may not
	 * leave. */
	const struct mount *home;
};

/* LOOKUP_NO_XDEV: -EXDEV if reaching p crosses a mount point. */
int xdev_check(const struct walk *w, const struct path *p);
/* The walk goes on from "/" (its root or a scoped walk's own). */
int jump_root(struct walk *w);

/* Links met by the walk (fs/lookup_link.c).  link_jumps: whether link
 * names an object (a /proc/<pid>/fd or ns link) the walk jumps to, with
 * jump_link, rather than a text it follows, with follow_link; take_link
 * does either for a link met at the end. */
bool link_jumps(const struct inode *link);
int jump_link(struct walk *w, struct inode *link, struct path *out);
int follow_link(struct walk *w, struct inode *ip, const char *tail);
int take_link(struct walk *w, struct inode *link, const char *tail, struct path *out);

#endif
