/*
 * The kernel's random bytes (lib/random.c): getrandom(2), and the file
 * operations of /dev/random and /dev/urandom.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stdint.h>

struct file_ops;
extern const struct file_ops random_ops;

/* 64 random bits for the kernel's own use (kcmp's cookies); the same
 * generator, no stronger than getrandom's. */
uint64_t random_u64(void);

#endif
