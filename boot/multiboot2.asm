; Multiboot2 header: asks GRUB for the memory map, the command line and the
; modules (GRUB supplies all three by default; the request tag makes it fail
; early if it could not). Must sit in the first 32 KiB of the image.

MB2_MAGIC        equ 0xe85250d6
MB2_ARCH_I386    equ 0
MB2_TAG_END      equ 0
MB2_TAG_INFO_REQ equ 1
MB2_INFO_CMDLINE equ 1
MB2_INFO_MODULE  equ 3
MB2_INFO_MMAP    equ 6

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

align 8
	; Information request: command line, modules, memory map.
	dw MB2_TAG_INFO_REQ, 0
	dd 8 + 3 * 4
	dd MB2_INFO_CMDLINE, MB2_INFO_MODULE, MB2_INFO_MMAP
align 8
	dw MB2_TAG_END, 0
	dd 8
mb2_header_end:

section .note.GNU-stack noalloc noexec nowrite progbits
