/*
 * Red-black trees, intrusive as lib/list.h's lists: the node lives in the
 * object, so insertion never allocates.  The tree only keeps the nodes
 * balanced (every path from the root to a leaf has as many black nodes,
 * no red node has a red child: height at most 2 log2(n + 1)); the caller
 * orders them.  It finds where a node goes by walking down from the root
 * with its own key, then links and balances it:
 *
 *	struct rb_node **link = &root->node, *parent = NULL;
 *	while (*link) {
 *		parent = *link;
 *		link = key < KEY(parent) ? &parent->left : &parent->right;
 *	}
 *	rb_insert(root, node, parent, link);
 *
 * No locking here: the tree is under whatever lock protects its owner.
 */
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_node {
	struct rb_node *parent, *left, *right;
	bool red;
};

struct rb_root {
	struct rb_node *node; /* NULL: empty */
};

#define rb_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Links node at *link, a NULL child pointer of parent (NULL: the root)
 * found by the walk above, and rebalances. */
void rb_insert(struct rb_root *root, struct rb_node *node, struct rb_node *parent,
	       struct rb_node **link);
/* Takes node out of the tree and rebalances; the others keep their order. */
void rb_erase(struct rb_root *root, struct rb_node *node);
/* The node after node in key order, or NULL: O(log n), O(1) amortised
 * over a walk. */
struct rb_node *rb_next(const struct rb_node *node);

#endif
