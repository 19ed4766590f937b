; SYSCALL entry and exit.  SYSCALL leaves the user rip in rcx, rflags in r11
; and does not switch stacks, so the entry parks the user rsp in the per-CPU
; area (gs), moves to the current task's kernel stack and builds the same
; struct trapframe an interrupt would: fork, execve and signals then work
; on one frame layout.  Exit uses SYSRET when the frame allows it, IRETQ
; otherwise (syscall_exit says when).

%include "kernel/arch/x86_64/regs.inc"

CPU_KSTACK_TOP equ 8                    ; percpu.h
CPU_USER_RSP   equ 16
USER_DS        equ 0x23                 ; gdt.h
USER_CS        equ 0x2b
SYSCALL_VECTOR equ 0x100                ; not a hardware vector: marks syscall frames
USER_TOP       equ 0x00007ffffffff000   ; highest rip SYSRET may return to (see below)
RFLAGS_TF      equ 1 << 8
RFLAGS_RF      equ 1 << 16

extern syscall_dispatch
extern trap_return
global syscall_entry
global syscall_exit

section .text
syscall_entry:
	swapgs
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_KSTACK_TOP]
	push USER_DS                    ; ss
	push qword [gs:CPU_USER_RSP]    ; rsp
	push r11                        ; rflags
	push USER_CS                    ; cs
	push rcx                        ; rip
	push rax                        ; error slot: the syscall number (restarts)
	push SYSCALL_VECTOR
	PUSH_REGS
	sti                             ; DF is already clear: SYSCALL_FMASK clears it
	mov rdi, rsp
	push qword [rsp + TF_RIP]       ; frame link for backtraces
	push rbp
	mov rbp, rsp
	call syscall_dispatch
	add rsp, 16

; Returns to user mode from the trapframe at rsp (also reached by new tasks).
syscall_exit:
	cli
	; SYSRET loads rip from rcx and rflags from r11, so it may only return
	; to a frame whose rcx and r11 already hold those values: the frame
	; SYSCALL itself built.  A frame that rt_sigreturn restored from an
	; interrupt, signal delivery, a restart or execve rewrote differs and
	; takes IRETQ, as on Linux.  SYSRET also needs rip canonical (on Intel
	; a non-canonical rcx faults in ring 0 with the user's rsp), the
	; standard user selectors, and neither RF nor TF (it cannot restore RF,
	; and with TF it would trap on the next instruction, not this one).
	mov rcx, [rsp + TF_RIP]
	cmp rcx, [rsp + TF_RCX]
	jne .iret
	mov r11, [rsp + TF_RFLAGS]
	cmp r11, [rsp + TF_R11]
	jne .iret
	test r11, RFLAGS_TF | RFLAGS_RF
	jnz .iret
	mov r11, USER_TOP
	cmp rcx, r11
	jae .iret
	cmp qword [rsp + TF_CS], USER_CS
	jne .iret
	cmp qword [rsp + TF_SS], USER_DS
	jne .iret
	POP_REGS                        ; rcx = rip and r11 = rflags, as checked
	mov rsp, [rsp + 40]             ; user rsp (past vector, error, rip, cs, rflags)
	swapgs
	o64 sysret
.iret:
	jmp trap_return

section .note.GNU-stack noalloc noexec nowrite progbits
