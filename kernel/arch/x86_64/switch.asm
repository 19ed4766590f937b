; Kernel context switch.  Only callee-saved registers need saving: the
; caller of switch_to (schedule) expects the rest to be clobbered.
;
; void switch_to(uint64_t *save_rsp [rdi], uint64_t next_rsp [rsi])

global switch_to
global task_first_run
extern sched_tail
extern syscall_exit

section .text
switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; Where a new task's first switch_to "returns": finish the scheduler's
; bookkeeping, then return to user mode through the trapframe at the top of
; its kernel stack (the stack pointer after the switch points at it).
task_first_run:
	call sched_tail
	jmp syscall_exit

section .note.GNU-stack noalloc noexec nowrite progbits
