/*
 * The kernel's random bytes (lib/random.c), for getrandom(2), /dev/random
 * and /dev/urandom (fs/dev/random.c) and the kernel's own use.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a caller asks for at once: made under one lock hold. */
#define RANDOM_CHUNK 256

/* Fills buf with len bytes (len <= RANDOM_CHUNK). */
void random_fill(uint8_t *buf, size_t len);
/* Mixes len bytes of buf (len <= RANDOM_CHUNK) into the state. */
void random_mix(const uint8_t *buf, size_t len);
/* Mixes the time-stamp counter in again (RNDRESEEDCRNG). */
void random_reseed(void);
/* 64 random bits for the kernel's own use (kcmp's cookies); the same
 * generator, no stronger than getrandom's. */
uint64_t random_u64(void);

#endif
