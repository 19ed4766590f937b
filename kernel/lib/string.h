/* Freestanding memory and string helpers for the kernel. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);
/*
 * Linux's kstrtouint: the whole of s (NUL-terminated) as an unsigned
 * number, base 0 (a 0x prefix is hex, a leading 0 octal) or 8, 10, 16;
 * a leading '+' and one trailing newline allowed.  0, -EINVAL (no
 * digits, or anything else after them), -ERANGE (over UINT_MAX).
 */
int kstrtouint(const char *s, unsigned int base, unsigned int *res);

#endif
