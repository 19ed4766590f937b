/*
 * signalfd(2): the signalfd4 flags and struct signalfd_siginfo, Linux
 * x86_64 values and layout, shared by the kernel and libc/.  SFD_CLOFORK
 * is fdkernel's, the same bit as O_CLOFORK (as SFD_CLOEXEC is
 * O_CLOEXEC's).  Semantics: docs/signalfd.md.
 */
#ifndef UAPI_SIGNALFD_H
#define UAPI_SIGNALFD_H

#include <stdint.h>

#define SFD_NONBLOCK 04000     /* O_NONBLOCK */
#define SFD_CLOEXEC  02000000  /* O_CLOEXEC */
#define SFD_CLOFORK  040000000 /* fdkernel: O_CLOFORK */

/* One pending signal, as read() returns it (128 bytes).  Signal numbers
 * are Linux's. */
struct signalfd_siginfo {
	uint32_t ssi_signo;
	int32_t ssi_errno;
	int32_t ssi_code;
	uint32_t ssi_pid; /* sender, or the child for SIGCHLD */
	uint32_t ssi_uid;
	int32_t ssi_fd;
	uint32_t ssi_tid;
	uint32_t ssi_band;
	uint32_t ssi_overrun;
	uint32_t ssi_trapno;
	int32_t ssi_status; /* SIGCHLD: exit code or signal */
	int32_t ssi_int;
	uint64_t ssi_ptr;
	uint64_t ssi_utime;
	uint64_t ssi_stime;
	uint64_t ssi_addr; /* faulting address */
	uint16_t ssi_addr_lsb;
	uint16_t __pad2;
	int32_t ssi_syscall;
	uint64_t ssi_call_addr;
	uint32_t ssi_arch;
	uint8_t __pad[28];
};

#endif
