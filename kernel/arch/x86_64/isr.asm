; Interrupt and exception entry stubs.  Each vector pushes a dummy error code
; if the CPU does not, then its number, and joins isr_common, which saves the
; registers as struct trapframe (trapframe.h) and calls trap_dispatch().

extern trap_dispatch
global isr_stub_table

%include "kernel/arch/x86_64/regs.inc"
%include "kernel/arch/x86_64/smap.inc"

; Vectors for which the CPU pushes an error code.
%define HAS_ERROR(n) (n == 8 || (n >= 10 && n <= 14) || n == 17 || n == 21 || n == 29 || n == 30)
; Vectors that interrupts being off does not hold back: NMI, double fault,
; machine check.  They may arrive where the CPU is in kernel mode with the
; user's GS base (syscall_entry's first instruction, the one before its
; SYSRET), so their entry asks the MSR whose GS it is (Linux's "paranoid"
; entry) instead of trusting the interrupted CS.
%define PARANOID(n) (n == 2 || n == 8 || n == 18)
MSR_GS_BASE      equ 0xc0000101         ; cpu.h
PARANOID_KEPT    equ 1                  ; ebx through trap_dispatch: GS was the kernel's
PARANOID_SWAPPED equ 2                  ; ... the user's: swapped, and back on the way out

section .text
%assign i 0
%rep 256
isr_stub_ %+ i:
%if !HAS_ERROR(i)
	push 0
%endif
	push i
%if PARANOID(i)
	jmp isr_paranoid
%else
	jmp isr_common
%endif
	align 16
%assign i i + 1
%endrep

isr_common:
	; Close the SMAP window first: user code may have set RFLAGS.AC (popf,
	; a signal frame), and an interrupted user copy has it set.  The saved
	; rflags keep it for IRETQ; no kernel code outside the copies runs
	; with it.  (SYSCALL clears AC through FMASK, syscall.c.)
	USER_ACCESS_END
	PUSH_REGS
	xor ebx, ebx                    ; not a paranoid entry (below)
	; Came from user mode: switch to the kernel GS base.
	test qword [rsp + TF_CS], 3
	jz .kernel_entry
	swapgs
.kernel_entry:
	cld
	mov rdi, rsp
	; Link a frame so backtraces continue through the interrupted code.
	push qword [rsp + TF_RIP]          ; interrupted rip
	push rbp
	mov rbp, rsp
	call trap_dispatch
	global trap_dispatch_return
trap_dispatch_return:                   ; backtraces know the trap frame by it
	add rsp, 16
	test ebx, ebx                   ; callee-saved: still what the entry set
	jnz paranoid_exit
	global trap_return
trap_return:
	cli                             ; the C handler may have enabled them (traps.c)
	test qword [rsp + TF_CS], 3
	jz .kernel_exit
	swapgs
.kernel_exit:
	POP_REGS
	add rsp, 16                     ; vector and error code
	iretq

isr_paranoid:
	USER_ACCESS_END
	PUSH_REGS
	mov ecx, MSR_GS_BASE
	rdmsr                           ; kernel GS bases are kernel addresses: negative
	mov ebx, PARANOID_KEPT
	test edx, edx
	js isr_common.kernel_entry
	swapgs
	mov ebx, PARANOID_SWAPPED
	jmp isr_common.kernel_entry

paranoid_exit:
	cli
	cmp ebx, PARANOID_SWAPPED
	jne .gs_ready
	swapgs
.gs_ready:
	POP_REGS
	add rsp, 16
	iretq

section .rodata
align 8
isr_stub_table:
%assign i 0
%rep 256
	dq isr_stub_ %+ i
%assign i i + 1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
