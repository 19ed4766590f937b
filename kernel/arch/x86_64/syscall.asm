; SYSCALL entry and exit.  SYSCALL leaves the user rip in rcx, rflags in r11
; and does not switch stacks, so the entry parks the user rsp in the per-CPU
; area (gs), moves to the current task's kernel stack and builds the same
; struct trapframe an interrupt would: fork, execve and signals then work
; on one frame layout.  The common case stays here: the table's handler,
; one test of the task's work word (and need_resched and the restart
; results), then SYSRET straight from the frame SYSCALL built.  Everything
; else calls C (syscall.c) and leaves by syscall_exit, which checks the
; frame and uses SYSRET when it allows it, IRETQ otherwise.

%include "kernel/arch/x86_64/regs.inc"

CPU_KSTACK_TOP equ 8                    ; percpu.h (checked by syscall.c)
CPU_USER_RSP   equ 16
CPU_CURRENT    equ 24
CPU_NEED_RESCHED equ 72
TASK_WORK      equ 0                    ; struct task's work word (proc/task.h)
TASK_INDIRECT  equ 8                    ; its indirect_flags
NR_SYSCALLS    equ 1003                 ; sys/dispatch.h
ERESTARTSYS    equ 512                  ; sched/wait.h: -ERESTARTNOHAND ..
ERESTARTNOHAND equ 514                  ; -ERESTARTSYS may restart the call
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
extern syscall_exit_work
extern syscall_table
extern strace_on
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
	; The frame's rbp and rcx (the user's rip) lie side by side as a call
	; frame does: rbp pointing at them links backtraces to the user code.
	lea rbp, [rsp + TF_RBP]
	mov rdi, rsp                    ; the handler's args: the frame's first six
	cmp rax, NR_SYSCALLS
	jae .unusual
	cmp byte [rel strace_on], 0
	jne .unusual
	mov rax, [syscall_table + rax * 8]
	test rax, rax
	jz .unusual
	call rax
.called:
	mov [rsp + TF_RAX], rax
	; Interrupts off from the tests to SYSRET: a tick after them would
	; set need_resched unseen.  Work bits set by another CPU after the
	; test wait for the next way out, as an interrupt's would.
	cli
	mov rcx, [gs:CPU_CURRENT]
	; A syscall_indirect() ends here, whichever way: its handler set the
	; flags and tail-called the inner call (sys/indirect.c).
	mov qword [rcx + TASK_INDIRECT], 0
	cmp qword [rcx + TASK_WORK], 0
	jne .work
	cmp byte [gs:CPU_NEED_RESCHED], 0
	jne .work
	lea rcx, [rax + ERESTARTNOHAND]
	cmp rcx, ERESTARTNOHAND - ERESTARTSYS
	jbe .work                       ; a restart result: signal_deliver decides
	; The frame is the one SYSCALL built (TASK_WORK_FRAME is clear), so
	; rip and rflags are what rcx and r11 held, cs and ss the user's.  Left
	; to check: rip was past the last byte of the user half (2^47, not
	; canonical: SYSRET would fault in ring 0 on Intel; the last page is
	; never mapped, uvm.h, so this is the second line), and TF or RF
	; (SYSRET cannot restore RF, and with TF it would trap one instruction
	; late).  rbx, r12-r15 still hold the user's values (the handler is C
	; and kept them), rax the result; SYSRET clobbers rcx and r11 anyway.
	mov rcx, [rsp + TF_RIP]
	bt rcx, 47
	jc syscall_exit
	mov r11, [rsp + TF_RFLAGS]
	test r11, RFLAGS_TF | RFLAGS_RF
	jnz syscall_exit
	mov rdi, [rsp + TF_RDI]
	mov rsi, [rsp + TF_RSI]
	mov rdx, [rsp + TF_RDX]
	mov r10, [rsp + TF_R10]
	mov r8, [rsp + TF_R8]
	mov r9, [rsp + TF_R9]
	mov rbp, [rsp + TF_RBP]
	mov rsp, [rsp + TF_RSP]
	swapgs
	o64 sysret
.unusual:
	call syscall_dispatch
	jmp .called
.work:
	sti
	mov rdi, rsp
	call syscall_exit_work

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
