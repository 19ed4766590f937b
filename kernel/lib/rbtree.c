/*
 * Red-black trees (rbtree.h): the textbook algorithms (Cormen et al.,
 * "Introduction to Algorithms", chapter 13) with NULL for the black leaves
 * and parent pointers, so neither insertion nor removal needs a stack.
 */
#include "lib/rbtree.h"

/* Puts child where old hangs from old's parent (or the root). */
static void replace_child(struct rb_root *root, struct rb_node *old, struct rb_node *child)
{
	struct rb_node *p = old->parent;

	if (!p)
		root->node = child;
	else if (p->left == old)
		p->left = child;
	else
		p->right = child;
	if (child)
		child->parent = p;
}

/* x's right child takes x's place, x becoming its left child. */
static void rotate_left(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	replace_child(root, x, y);
	y->left = x;
	x->parent = y;
}

/* The mirror image: x's left child takes x's place. */
static void rotate_right(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	replace_child(root, x, y);
	y->right = x;
	x->parent = y;
}

static bool is_red(const struct rb_node *n)
{
	return n && n->red;
}

void rb_insert(struct rb_root *root, struct rb_node *z, struct rb_node *parent,
	       struct rb_node **link)
{
	struct rb_node *p, *g, *u;

	z->parent = parent;
	z->left = z->right = NULL;
	z->red = true;
	*link = z;
	/* A red node under a red parent is the one violation: push it up. */
	while ((p = z->parent) && p->red) {
		g = p->parent; /* p is red, so not the root */
		bool left = p == g->left;
		u = left ? g->right : g->left;
		if (is_red(u)) { /* recolour and go on from the grandparent */
			p->red = u->red = false;
			g->red = true;
			z = g;
			continue;
		}
		if (z == (left ? p->right : p->left)) { /* bring z to the outside */
			if (left)
				rotate_left(root, p);
			else
				rotate_right(root, p);
			z = p;
			p = z->parent;
		}
		p->red = false;
		g->red = true;
		if (left)
			rotate_right(root, g);
		else
			rotate_left(root, g);
	}
	root->node->red = false;
}

/* x (perhaps NULL), now the child of xp, lacks one black on its paths. */
static void erase_fixup(struct rb_root *root, struct rb_node *x, struct rb_node *xp)
{
	while (x != root->node && !is_red(x)) {
		/* x's sibling exists: its side has a black node more than x's. */
		bool left = x == xp->left;
		struct rb_node *w = left ? xp->right : xp->left;

		if (w->red) { /* make the sibling black */
			w->red = false;
			xp->red = true;
			if (left)
				rotate_left(root, xp);
			else
				rotate_right(root, xp);
			w = left ? xp->right : xp->left;
		}
		if (!is_red(w->left) && !is_red(w->right)) { /* take a black off both */
			w->red = true;
			x = xp;
			xp = x->parent;
			continue;
		}
		if (!is_red(left ? w->right : w->left)) { /* its red child to the outside */
			if (left) {
				w->left->red = false;
				w->red = true;
				rotate_right(root, w);
				w = xp->right;
			} else {
				w->right->red = false;
				w->red = true;
				rotate_left(root, w);
				w = xp->left;
			}
		}
		w->red = xp->red;
		xp->red = false;
		if (left) {
			w->right->red = false;
			rotate_left(root, xp);
		} else {
			w->left->red = false;
			rotate_right(root, xp);
		}
		x = root->node;
		break;
	}
	if (x)
		x->red = false;
}

void rb_erase(struct rb_root *root, struct rb_node *z)
{
	struct rb_node *x, *xp, *y;
	bool removed_red;

	if (!z->left || !z->right) { /* z itself goes, its one child up */
		x = z->left ? z->left : z->right;
		xp = z->parent;
		removed_red = z->red;
		replace_child(root, z, x);
	} else { /* z's successor y takes z's place and colour */
		for (y = z->right; y->left; y = y->left)
			;
		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			replace_child(root, y, x);
			y->right = z->right;
			y->right->parent = y;
		}
		replace_child(root, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	if (!removed_red)
		erase_fixup(root, x, xp);
}

struct rb_node *rb_next(const struct rb_node *n)
{
	if (n->right) { /* the leftmost of the right subtree */
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct rb_node *)n;
	}
	/* Else the first ancestor reached from its left side. */
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return n->parent;
}
