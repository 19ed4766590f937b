/* The auxiliary vector exec gives a new program (Linux's create_elf_tables). */
#ifndef PROC_EXEC_AUXV_H
#define PROC_EXEC_AUXV_H

#include <stdbool.h>
#include <stdint.h>

struct cred;
struct elf_image;

#define EXEC_AUXV_PAIRS 21	 /* the most exec_auxv_build writes, AT_NULL included */
#define EXEC_PLATFORM	"x86_64" /* AT_PLATFORM's string (Linux's ELF_PLATFORM) */

/* Where exec put what the vector points at: the 16 random bytes, the
 * program's path, the platform string, the vDSO (0: none). */
struct auxv_places {
	uint64_t random, execfn, platform, vdso;
};

/* Fills auxv (room for EXEC_AUXV_PAIRS pairs) for img run with creds c:
 * the number of pairs written, AT_NULL's included. */
int exec_auxv_build(uint64_t *auxv, const struct elf_image *img, const struct auxv_places *at,
		    const struct cred *c, bool secure);
/* Rewrites the identity entries (AT_UID, AT_EUID, AT_GID, AT_EGID,
 * AT_SECURE) of a built vector: exec's credentials changed after the
 * vector was built with the old ones. */
void exec_auxv_put_ids(uint64_t *auxv, const struct cred *c, bool secure);

#endif
