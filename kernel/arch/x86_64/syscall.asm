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

; The frame offsets this file uses, as absolute symbols: entry_selftest
; compares them with struct trapframe (a wrong TF_RCX once sent every call
; through IRETQ without any test noticing).
global tf_offset_r11, tf_offset_rcx, tf_offset_rax, tf_offset_vector, tf_offset_rip
global tf_offset_cs, tf_offset_rflags, tf_offset_rsp, tf_offset_ss, tf_offset_size
tf_offset_r11    equ TF_R11
tf_offset_rcx    equ TF_RCX
tf_offset_rax    equ TF_RAX
tf_offset_vector equ TF_VECTOR
tf_offset_rip    equ TF_RIP
tf_offset_cs     equ TF_CS
tf_offset_rflags equ TF_RFLAGS
tf_offset_rsp    equ TF_RSP
tf_offset_ss     equ TF_SS
tf_offset_size   equ TF_SIZE

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
