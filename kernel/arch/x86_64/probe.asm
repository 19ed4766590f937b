; Memory probes that may fault (extable.h).  Each faulting instruction has an
; __ex_table entry; the trap handler resumes at the fixup with rax = -EFAULT.

global probe_read_u64
global probe_write_u64

section .text
; int probe_read_u64(const volatile void *addr [rdi], uint64_t *out [rsi])
probe_read_u64:
	xor eax, eax
.access:
	mov rdx, [rdi]
	mov [rsi], rdx
.fixup:
	ret

; int probe_write_u64(volatile void *addr [rdi], uint64_t val [rsi])
probe_write_u64:
	xor eax, eax
.access:
	mov [rdi], rsi
.fixup:
	ret

section __ex_table alloc noexec nowrite
align 8
	dq probe_read_u64.access, probe_read_u64.fixup
	dq probe_write_u64.access, probe_write_u64.fixup

section .note.GNU-stack noalloc noexec nowrite progbits
