# The kernel ELF: boot/*.asm and kernel/**/*.c, linked by linker.ld.
KERNEL := $(BUILD)/kernel.elf
