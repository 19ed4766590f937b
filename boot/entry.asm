; 32-bit entry from GRUB and the switch to long mode.
;
; GRUB leaves us in 32-bit protected mode, paging off, EAX = Multiboot2 magic,
; EBX = physical address of the boot information. We check both that we were
; loaded by Multiboot2 and that the CPU has long mode (else say so on serial
; and VGA and halt), build early page tables, enable long mode and jump to
; the higher-half kernel.
;
; Early mappings (2 MiB pages, replaced by paging_init() in kernel/mm):
;   identity          0 .. 1 GiB  (so this code survives turning paging on)
;   0xffff800000000000 -> 0 .. 4 GiB (the direct map)
;   0xffffffff80000000 -> 0 .. 1 GiB (the kernel image, linked there)

MB2_BOOT_MAGIC equ 0x36d76289
KERNEL_VMA     equ 0xffffffff80000000
PTE_P          equ 1
PTE_W          equ 2
PTE_PS         equ 0x80
CR0_PG         equ 1 << 31
CR0_WP         equ 1 << 16
CR4_PAE        equ 1 << 5
EFER_MSR       equ 0xc0000080
EFER_LME       equ 1 << 8
EFER_NXE       equ 1 << 11
COM1           equ 0x3f8

global _start32
extern kmain
extern boot_stack_top

section .boot.text progbits alloc exec nowrite
bits 32
_start32:
	cli
	cld
	mov esp, early_stack_top
	mov edi, eax                    ; keep magic and info for kmain
	mov esi, ebx

	cmp edi, MB2_BOOT_MAGIC
	jne .no_multiboot2
	call check_long_mode
	test eax, eax
	jz .no_long_mode

	call build_page_tables
	call enable_long_mode
	lgdt [gdt64_ptr]
	jmp 0x08:long_mode_entry

.no_multiboot2:
	mov eax, msg_no_mb2
	jmp early_fail
.no_long_mode:
	mov eax, msg_no_lm
	jmp early_fail

; eax = 1 if CPUID reports long mode, else 0.  Also records NX support.
check_long_mode:
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no
	mov eax, 0x80000001
	cpuid
	bt edx, 20                      ; NX: remember for EFER.NXE
	setc byte [have_nx]
	bt edx, 29                      ; LM
	jnc .no
	mov eax, 1
	ret
.no:
	xor eax, eax
	ret

; Fill the early tables (all in .boot.bss, zeroed by GRUB's ELF load).
build_page_tables:
	; PD for 0 .. 1 GiB, shared by the identity map and the kernel map.
	mov ecx, 0
.fill_low:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [pd_low + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .fill_low

	; Four PDs for the direct map of 0 .. 4 GiB.
	mov ecx, 0
.fill_direct:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [pd_direct + ecx * 8], eax
	mov eax, ecx
	shr eax, 11                     ; high dword of (ecx << 21)
	mov [pd_direct + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 2048
	jne .fill_direct

	mov dword [pdpt_low], pd_low + (PTE_P | PTE_W)
	mov dword [pdpt_high + 510 * 8], pd_low + (PTE_P | PTE_W)
	mov ecx, 0
.fill_pdpt_direct:
	mov eax, ecx
	shl eax, 12
	add eax, pd_direct + (PTE_P | PTE_W)
	mov [pdpt_direct + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .fill_pdpt_direct

	mov dword [pml4], pdpt_low + (PTE_P | PTE_W)
	mov dword [pml4 + 256 * 8], pdpt_direct + (PTE_P | PTE_W)
	mov dword [pml4 + 511 * 8], pdpt_high + (PTE_P | PTE_W)
	ret

enable_long_mode:
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, pml4
	mov cr3, eax
	mov ecx, EFER_MSR
	rdmsr
	or eax, EFER_LME
	cmp byte [have_nx], 0
	je .no_nx
	or eax, EFER_NXE
.no_nx:
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_WP
	mov cr0, eax
	ret

; Print the NUL-terminated string at eax on COM1 and the VGA text screen, halt.
early_fail:
	mov ebx, eax
	mov dx, COM1 + 3                ; 8N1, DLAB off; baud stays as the BIOS set it
	mov al, 0x03
	out dx, al
	mov ecx, 0xb8000
.next:
	mov al, [ebx]
	test al, al
	jz .halt
	mov byte [ecx], al
	mov byte [ecx + 1], 0x4f        ; white on red
	add ecx, 2
	mov ah, al
	mov dx, COM1 + 5
.wait_tx:
	in al, dx
	test al, 0x20
	jz .wait_tx
	mov dx, COM1
	mov al, ah
	out dx, al
	inc ebx
	jmp .next
.halt:
	cli
	hlt
	jmp .halt

bits 64
long_mode_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rax, start64
	jmp rax

section .boot.data progbits alloc noexec write
align 8
gdt64:
	dq 0
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code, ring 0
	dq 0x00cf92000000ffff           ; 0x10: data, ring 0
gdt64_ptr:
	dw $ - gdt64 - 1
	dd gdt64
have_nx:
	db 0
msg_no_mb2:
	db "fdkernel: not loaded by a Multiboot2 boot loader (bad magic); halting.", 13, 10, 0
msg_no_lm:
	db "fdkernel: this CPU has no long mode (x86_64 required); halting.", 13, 10, 0

section .boot.bss nobits alloc noexec write
alignb 4096
global boot_pml4                        ; the APs' trampoline enters through it too
boot_pml4:
pml4:        resb 4096
pdpt_low:    resb 4096
pdpt_high:   resb 4096
pdpt_direct: resb 4096
pd_low:      resb 4096
pd_direct:   resb 4 * 4096
early_stack: resb 1024
early_stack_top:

; The higher-half landing: the real boot stack, a zero frame for gdb and
; backtraces, then C.  Magic and info pointer are zero-extended (the upper
; halves of 64-bit registers are undefined after the mode switch).
section .text
start64:
	mov rsp, boot_stack_top
	xor ebp, ebp
	push 0                          ; fake return address ends backtraces
	push 0
	mov rbp, rsp
	mov edi, edi
	mov esi, esi
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .note.GNU-stack noalloc noexec nowrite progbits
