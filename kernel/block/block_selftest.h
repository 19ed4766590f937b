/* The block layer's in-kernel tests (block_selftest.c), run by selftest_run
 * after block_init. */
#ifndef BLOCK_BLOCK_SELFTEST_H
#define BLOCK_BLOCK_SELFTEST_H

void block_selftest(void);

#endif
