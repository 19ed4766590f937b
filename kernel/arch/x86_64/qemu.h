/* Ending QEMU from inside the guest (isa-debug-exit device at port 0xf4). */
#ifndef ARCH_QEMU_H
#define ARCH_QEMU_H

/* QEMU exits with (code << 1) | 1; tests/harness/qemu-run maps these back. */
#define QEMU_EXIT_PASS	0
#define QEMU_EXIT_FAIL	1
#define QEMU_EXIT_PANIC 2

__attribute__((noreturn)) void qemu_exit(int code);

#endif
