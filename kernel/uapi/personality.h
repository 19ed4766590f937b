/*
 * personality(2)'s flags that fdkernel acts on, Linux's values.
 */
#ifndef UAPI_PERSONALITY_H
#define UAPI_PERSONALITY_H

#define PERSONALITY_QUERY  0xffffffffU
#define ADDR_NO_RANDOMIZE  0x0040000 /* no address-space randomisation (setarch -R) */
#define MMAP_PAGE_ZERO	   0x0100000
#define ADDR_COMPAT_LAYOUT 0x0200000
#define READ_IMPLIES_EXEC  0x0400000
#define STICKY_TIMEOUTS	   0x4000000 /* select leaves its timeout alone */
/* What a set-id program does not inherit (Linux's PER_CLEAR_ON_SETID). */
#define PER_CLEAR_ON_SETID (READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT | MMAP_PAGE_ZERO)

#endif
