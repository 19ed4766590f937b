/*
 * malloc/free under load: many sizes, interleaved frees, realloc growth
 * and calloc zeroing, with every block's contents checked (newlib's malloc
 * sits on the glue's sbrk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define NBLOCKS 2000

static unsigned rng = 12345;

static unsigned next_rand(void)
{
	rng = rng * 1103515245 + 12345;
	return rng >> 8;
}

/* Fill or check a block with a pattern derived from its index. */
static int pattern(unsigned char *p, size_t n, int i, int check)
{
	for (size_t k = 0; k < n; k++) {
		unsigned char v = (unsigned char)(i * 31 + k);
		if (check && p[k] != v)
			return 0;
		p[k] = v;
	}
	return 1;
}

int main(void)
{
	static unsigned char *blocks[NBLOCKS];
	static size_t sizes[NBLOCKS];
	int good = 1;

	plan(6);
	for (int i = 0; i < NBLOCKS; i++) {
		sizes[i] = next_rand() % (i % 50 == 0 ? 65536 : 512) + 1;
		blocks[i] = malloc(sizes[i]);
		good &= blocks[i] != NULL && pattern(blocks[i], sizes[i], i, 0);
	}
	ok(good, "%d blocks of mixed sizes allocated and filled", NBLOCKS);
	for (int i = 0; i < NBLOCKS; i += 2) /* free every other block */
		free(blocks[i]);
	for (int i = 0; i < NBLOCKS; i += 2) {
		blocks[i] = malloc(sizes[i]);
		good &= blocks[i] != NULL && pattern(blocks[i], sizes[i], i, 0);
	}
	for (int i = 1; i < NBLOCKS; i += 2)
		good &= pattern(blocks[i], sizes[i], i, 1);
	ok(good, "survivors intact after freeing and reallocating holes");
	for (int i = 0; i < NBLOCKS; i++) {
		sizes[i] *= 3;
		blocks[i] = realloc(blocks[i], sizes[i]);
		good &= blocks[i] && pattern(blocks[i], sizes[i] / 3, i, 1);
	}
	ok(good, "realloc growth keeps contents");
	for (int i = 0; i < NBLOCKS; i++)
		free(blocks[i]);

	unsigned char *z = calloc(1000, 1000);
	int zero = z != NULL;
	for (size_t k = 0; zero && k < 1000000; k++)
		zero = z[k] == 0;
	ok(zero, "calloc of 1 MB is zeroed");
	free(z);

	void *big = malloc(64 << 20);
	ok(big != NULL, "a 64 MB block");
	if (big)
		memset(big, 0xa5, 64 << 20);
	free(big);
	ok(malloc(SIZE_MAX / 2) == NULL && errno == ENOMEM, "an impossible size fails with ENOMEM");
	return done();
}
