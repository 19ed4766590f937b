/*
 * _start: the ELF entry point of every user program.  The kernel leaves
 * argc at (%rsp); hand that pointer to __fdk_start (libc/sys/start.c).
 */
	.text
	.globl _start
	.type _start, @function
_start:
	xor %ebp, %ebp		/* outermost frame, for debuggers */
	mov %rsp, %rdi		/* argc, argv..., envp..., auxv */
	and $-16, %rsp		/* the ABI wants 16-byte alignment at a call */
	call __fdk_start
	hlt			/* __fdk_start never returns */
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
