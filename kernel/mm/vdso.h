/* The vDSO and its data page in every process (mm/vdso.c). */
#ifndef MM_VDSO_H
#define MM_VDSO_H

#include <stdbool.h>
#include <stdint.h>

struct uvm;
struct vma;

/* Copies the image into frames of its own (at boot, after vclock_init). */
void vdso_init(void);
/* Maps [vvar] and [vdso] into u, a space exec is building: the vDSO's
 * address (AT_SYSINFO_EHDR), or 0 when memory or room runs out. */
uint64_t vdso_map(struct uvm *u);
/* The frame behind page va of a [vvar] or [vdso] vma, referenced for the
 * caller; 0 for a page past the image (the fault is SIGBUS). */
uint64_t vdso_frame(const struct uvm *u, const struct vma *v, uint64_t va);
/* u's [vvar] becomes the time-namespace page (timens) or the clock page:
 * its mapped page goes, the next touch maps the other. */
void vdso_set_timens(struct uvm *u, bool timens);

#endif
