/* CRC-32, bit by bit: the callers checksum a few KiB at a time. */
#include "lib/crc32.h"

uint32_t crc32_update(uint32_t crc, const void *p, size_t len)
{
	const uint8_t *b = p;

	crc = ~crc;
	while (len--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}
