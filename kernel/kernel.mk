# The kernel ELF: boot/*.asm, kernel/**/*.c and kernel/**/*.asm, linked by
# linker.ld in two passes so the image carries its own symbol table
# (mk/gensyms.sh): pass 1 links with an empty table, pass 2 with the symbols
# of pass 1.  The table sits at the end of .rodata, after all code, so its
# size cannot move a function; the build checks that it did not.

KERNEL := $(KBUILD)/kernel.elf
KERNEL_C := $(shell find kernel -name '*.c')
KERNEL_ASM := $(wildcard boot/*.asm) $(shell find kernel -name '*.asm')
KERNEL_OBJS := $(patsubst %.c,$(KBUILD)/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(KBUILD)/%.asm.o,$(KERNEL_ASM))

# The vDSO (vdso/, docs/vdso.md): a user-space shared object, position
# independent and free of relocations (checked), embedded in the kernel
# by vdso/blob.S.
VDSO_SO := $(KBUILD)/vdso/vdso.so
VDSO_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fPIC -fno-stack-protector \
	-fcf-protection=none -nostdinc -isystem $(shell $(CC) -print-file-name=include) -Ikernel \
	-MMD -MP
KERNEL_OBJS += $(KBUILD)/vdso/blob.o

$(KBUILD)/vdso/vdso.o: vdso/vdso.c mk/config.mk kernel/kernel.mk
	@mkdir -p $(@D)
	$(call quiet,CC,$@) $(CC) $(VDSO_CFLAGS) -c $< -o $@

$(VDSO_SO): $(KBUILD)/vdso/vdso.o vdso/vdso.lds vdso/vdso.ver
	$(call quiet,LD,$@) $(LD) -shared -nostdlib -soname=linux-vdso.so.1 --hash-style=both \
		--eh-frame-hdr -z max-page-size=4096 -z noexecstack --no-undefined -T vdso/vdso.lds \
		--version-script=vdso/vdso.ver $< -o $@
	@readelf -r $@ | grep -q "no relocations" || { echo "vdso: relocations in $@"; rm -f $@; exit 1; }

$(KBUILD)/vdso/blob.o: vdso/blob.S $(VDSO_SO)
	$(call quiet,AS,$@) $(CC) -c -DVDSO_SO='"$(VDSO_SO)"' $< -o $@

-include $(KBUILD)/vdso/vdso.d

# Flags live in mk/config.mk: changing them rebuilds everything.
$(KERNEL_OBJS): mk/config.mk

$(KBUILD)/kernel/%.o: kernel/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@) $(CC) $(KCFLAGS) -c $< -o $@

# Dependencies in a pass of their own: NASM 2.16's -MD leaves out the
# %include'd files (regs.inc), so a changed frame layout rebuilt nothing.
$(KBUILD)/%.asm.o: %.asm
	@mkdir -p $(@D)
	@$(NASM) -f elf64 -M -MT $@ -MF $(@:.o=.d) -MP $<
	$(call quiet,AS,$@) $(NASM) -f elf64 $< -o $@

# The syscall trace's flag-name tables, generated from the uapi headers.
STRACE_FLAGS := $(BUILD)/gen/strace_flags.h
$(STRACE_FLAGS): mk/genflags.sh $(wildcard kernel/uapi/*.h)
	@mkdir -p $(@D)
	mk/genflags.sh > $@
$(KBUILD)/kernel/sys/strace_decode.o: $(STRACE_FLAGS)
$(KBUILD)/kernel/sys/strace_decode.o: KCFLAGS += -I$(BUILD)/gen

$(KBUILD)/ksyms-empty.o: mk/gensyms.sh
	@mkdir -p $(@D)
	mk/gensyms.sh | $(CC) -c -x assembler - -o $@

$(KBUILD)/kernel-pass1.elf: $(KERNEL_OBJS) $(KBUILD)/ksyms-empty.o linker.ld
	$(call quiet,LD,$@) $(LD) $(KLDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJS) $(KBUILD)/ksyms-empty.o

$(KBUILD)/ksyms.o: $(KBUILD)/kernel-pass1.elf mk/gensyms.sh
	mk/gensyms.sh $< | $(CC) -c -x assembler - -o $@

$(KERNEL): $(KBUILD)/kernel-pass1.elf $(KBUILD)/ksyms.o
	$(call quiet,LD,$@) $(LD) $(KLDFLAGS) -T linker.ld -o $@ $(KERNEL_OBJS) $(KBUILD)/ksyms.o
	@nm -n $< | awk '$$2 ~ /^[tT]$$/' > $(KBUILD)/syms1.txt
	@nm -n $@ | awk '$$2 ~ /^[tT]$$/' > $(KBUILD)/syms2.txt
	@cmp -s $(KBUILD)/syms1.txt $(KBUILD)/syms2.txt || \
		{ echo "kernel.mk: code moved between link passes"; rm -f $@; exit 1; }
	@grub-file --is-x86-multiboot2 $@ || { echo "no Multiboot2 header"; rm -f $@; exit 1; }

.PHONY: kernel
kernel: $(KERNEL)

-include $(KERNEL_OBJS:.o=.d)

# docs/abi.md: the table of system calls, generated from syscall_list.h;
# docs/compat.md: those against Linux's table, with mk/compat-notes.
.PHONY: abi-doc
abi-doc:
	mk/genabi.sh > docs/abi.md
	mk/gencompat.sh > docs/compat.md
