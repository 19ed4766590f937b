/* Kernel command line: the words GRUB passes (see docs/architecture.md). */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>

struct kernel_options {
	bool test;	/* run self-tests and the test suite, then exit QEMU */
	bool bench;	/* run the benchmarks of /bench, then exit QEMU */
	bool quiet;	/* fewer boot messages */
	bool profile;	/* sample the CPU at every timer tick (/dev/profile) */
	bool crashtest; /* fault on purpose after boot, to check panic reports */
	char init[64];	/* path of the first user program */
	/* ramfs_size=: every tmpfs's default size, parsed by fs/ramfs/tmpfs.c */
	char ramfs_size[24];
	/* root=: the device to mount as "/" (docs/vfs.md, "Boot"); empty:
	 * the initrd's tmpfs.  Read by fs/mount_root.c. */
	char root[64];
	/* rw: the root device mounted read-write; ro (Linux's default,
	 * which distributions' boot loaders pass): read-only */
	bool root_rw;
	char rootfstype[16]; /* rootfstype=: its type; empty: each disk type */
	char rootflags[64];  /* rootflags=: its mount options */
	/* strace=: the syscall trace's target, applied by sys/strace.c */
	char strace[32]; /* TASK_NAME_MAX */
	/* enosys=log: log the first call of each unimplemented number */
	bool enosys_log;
	/* lockdeptest=cycle|sleep: misuse locks on purpose after boot, so
	 * tests can check that a LOCKDEP=1 kernel reports it (lib/lockdep.c) */
	char lockdeptest[8];
	/* Tasks run on every CPU (docs/smp.md); smp=off: on CPU 0 only */
	bool smp;
	/* heaptrace: note each allocation's callers, so a leak check names
	 * what leaked (mm/heaptrace.h); on in test mode too */
	bool heaptrace;
	/* pci=nomsi: devices interrupt through their INTx lines and the I/O
	 * APIC, not MSI-X (Linux's word; drivers/pci/pci_irq.c) */
	bool pci_nomsi;
	/* norandmaps: no address-space randomisation (mm/randomize.c), as
	 * Linux's boot word; make bench uses it */
	bool norandmaps;
	/* tsc=unstable: the vDSO's clock calls the kernel instead of reading
	 * the TSC (Linux's word; arch/x86_64/vclock.c) */
	bool tsc_unstable;
};

extern struct kernel_options kopts;

/* Parses boot_info.cmdline into kopts; unknown words are warned about. */
void cmdline_parse(const char *cmdline);

#endif
