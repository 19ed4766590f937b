; The application processors' first instructions.  A STARTUP IPI starts an
; AP in real mode at TRAMPOLINE_PA (a page below 1 MiB, vector = page
; number); smp.c copies this blob there and fills its data block.  The AP
; goes to protected mode, then long mode on the boot page tables (which
; identity-map low memory and map the kernel image), and jumps to
; ap_entry's address in the higher half with its stack and struct cpu.
; Every address inside is the blob's offset plus TRAMPOLINE_PA: the code
; runs at a place it was not linked for.

TRAMPOLINE_PA equ 0x8000                ; smp.c
CR0_PE        equ 1
CR0_PG        equ 1 << 31
CR4_PAE       equ 1 << 5
MSR_EFER      equ 0xc0000080

%define PA(x) (TRAMPOLINE_PA + (x) - trampoline_start)

global trampoline_start
global trampoline_end
global trampoline_data

section .rodata
bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	lgdt [PA(tr_gdt_ptr)]
	mov eax, cr0
	or eax, CR0_PE
	mov cr0, eax
	jmp dword 0x08:PA(tr_protected)

bits 32
tr_protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [PA(tr_cr3)]
	mov cr3, eax
	mov ecx, MSR_EFER                 ; the boot CPU's EFER: LME, NXE, SCE
	mov eax, [PA(tr_efer)]
	mov edx, [PA(tr_efer) + 4]
	wrmsr
	mov eax, cr0
	or eax, CR0_PG
	mov cr0, eax
	jmp 0x18:PA(tr_long)

bits 64
tr_long:
	mov rsp, [PA(tr_stack)]
	mov rdi, [PA(tr_cpu)]
	xor ebp, ebp
	push 0                          ; fake return address ends backtraces
	jmp [PA(tr_entry)]

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff           ; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff           ; 0x10: data, flat
	dq 0x00209a0000000000           ; 0x18: 64-bit code
tr_gdt_ptr:
	dw 4 * 8 - 1
	dd PA(tr_gdt)

; Filled by smp.c before each STARTUP IPI (struct trampoline_data).
align 8
trampoline_data:
tr_cr3:   dq 0                          ; boot page tables, below 4 GiB
tr_efer:  dq 0
tr_stack: dq 0                          ; top of the AP's boot stack
tr_cpu:   dq 0                          ; its struct cpu
tr_entry: dq 0                          ; ap_entry
trampoline_end:

section .note.GNU-stack noalloc noexec nowrite progbits
