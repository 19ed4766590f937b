; User-memory copies with exception-table fixups (uaccess.h).  The range
; checks are in C (uaccess.c); these only move bytes.  On a fault the trap
; handler resumes at the fixup with rax = -EFAULT.

global __user_copy
global __user_clear
global __user_strncpy
%include "kernel/arch/x86_64/smap.inc"

; User pages are reachable only between USER_ACCESS_BEGIN and _END: each
; copy opens that window and closes it on every way out (the fixup path
; included).  Kernel entry closes it too (isr.asm, FMASK for SYSCALL), so
; an interrupt or fault taken inside a copy runs without it.

section .text
; Words first, then the tail: under QEMU's TCG each iteration of a rep
; string instruction costs about the same whatever its width.

; long __user_copy(void *dst [rdi], const void *src [rsi], size_t len [rdx])
__user_copy:
	USER_ACCESS_BEGIN
	xor eax, eax
	mov rcx, rdx
	shr rcx, 3
.words:
	rep movsq
	mov rcx, rdx
	and rcx, 7
.tail:
	rep movsb
.fixup:
	USER_ACCESS_END
	ret

; long __user_clear(void *dst [rdi], size_t len [rsi])
__user_clear:
	USER_ACCESS_BEGIN
	xor eax, eax
	mov rcx, rsi
	shr rcx, 3
.words:
	rep stosq
	mov rcx, rsi
	and rcx, 7
.tail:
	rep stosb
.fixup:
	USER_ACCESS_END
	ret

; long __user_strncpy(char *dst [rdi], const char *src [rsi], size_t max [rdx])
; Returns the length copied without the NUL, or max if none was found.
__user_strncpy:
	USER_ACCESS_BEGIN
	xor ecx, ecx
.loop:
	cmp rcx, rdx
	je .done
.access:
	movzx r8d, byte [rsi + rcx]
	mov [rdi + rcx], r8b
	test r8d, r8d
	jz .done
	inc rcx
	jmp .loop
.done:
	mov rax, rcx
.fixup:
	USER_ACCESS_END
	ret

section __ex_table alloc noexec nowrite
align 8
	dq __user_copy.words, __user_copy.fixup
	dq __user_copy.tail, __user_copy.fixup
	dq __user_clear.words, __user_clear.fixup
	dq __user_clear.tail, __user_clear.fixup
	dq __user_strncpy.access, __user_strncpy.fixup

section .note.GNU-stack noalloc noexec nowrite progbits
