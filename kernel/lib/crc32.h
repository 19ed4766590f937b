/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320): gzip's trailer
 * (sys/kconfig.c) and GPT's header and entry checksums (block/).  Pure C:
 * the host unit tests build it too.
 */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* zlib's convention: crc32_update(0, p, n) is the CRC of p; pass the
 * result back in to continue over the next bytes. */
uint32_t crc32_update(uint32_t crc, const void *p, size_t len);

#endif
