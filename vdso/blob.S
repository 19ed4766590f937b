/* The vDSO image (VDSO_SO, built by kernel/kernel.mk) in the kernel's
 * read-only data: mm/vdso.c copies it into frames of its own at boot. */
	.section .rodata
	.balign 16
	.globl vdso_image, vdso_image_end
vdso_image:
	.incbin VDSO_SO
vdso_image_end:
	.section .note.GNU-stack,"",@progbits
