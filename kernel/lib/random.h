/*
 * The kernel's random bytes (lib/random.c): getrandom(2), and the file
 * operations of /dev/random and /dev/urandom.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

struct file_ops;
extern const struct file_ops random_ops;

#endif
