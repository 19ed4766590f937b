/*
 * Capabilities: Linux x86_64's numbers, capget/capset's header and data
 * (the three ABI versions) and the prctl options on capabilities.
 * Semantics: docs/security.md.
 */
#ifndef UAPI_CAPABILITY_H
#define UAPI_CAPABILITY_H

#include <stdint.h>

#define CAP_CHOWN	       0
#define CAP_DAC_OVERRIDE       1
#define CAP_DAC_READ_SEARCH    2
#define CAP_FOWNER	       3
#define CAP_FSETID	       4
#define CAP_KILL	       5
#define CAP_SETGID	       6
#define CAP_SETUID	       7
#define CAP_SETPCAP	       8
#define CAP_LINUX_IMMUTABLE    9
#define CAP_NET_BIND_SERVICE   10
#define CAP_NET_BROADCAST      11
#define CAP_NET_ADMIN	       12
#define CAP_NET_RAW	       13
#define CAP_IPC_LOCK	       14
#define CAP_IPC_OWNER	       15
#define CAP_SYS_MODULE	       16
#define CAP_SYS_RAWIO	       17
#define CAP_SYS_CHROOT	       18
#define CAP_SYS_PTRACE	       19
#define CAP_SYS_PACCT	       20
#define CAP_SYS_ADMIN	       21
#define CAP_SYS_BOOT	       22
#define CAP_SYS_NICE	       23
#define CAP_SYS_RESOURCE       24
#define CAP_SYS_TIME	       25
#define CAP_SYS_TTY_CONFIG     26
#define CAP_MKNOD	       27
#define CAP_LEASE	       28
#define CAP_AUDIT_WRITE	       29
#define CAP_AUDIT_CONTROL      30
#define CAP_SETFCAP	       31
#define CAP_MAC_OVERRIDE       32
#define CAP_MAC_ADMIN	       33
#define CAP_SYSLOG	       34
#define CAP_WAKE_ALARM	       35
#define CAP_BLOCK_SUSPEND      36
#define CAP_AUDIT_READ	       37
#define CAP_PERFMON	       38
#define CAP_BPF		       39
#define CAP_CHECKPOINT_RESTORE 40
#define CAP_LAST_CAP	       CAP_CHECKPOINT_RESTORE

/* capget/capset's header.version: v1 carries 32 bits per set, v2 and v3
 * 64 (two data structs); v3 is the kernel's preferred one. */
#define LINUX_CAPABILITY_VERSION_1 0x19980330
#define LINUX_CAPABILITY_VERSION_2 0x20071026
#define LINUX_CAPABILITY_VERSION_3 0x20080522

struct cap_user_header {
	uint32_t version;
	int32_t pid;
};

struct cap_user_data {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
};

/* prctl options on credentials. */
#define PR_GET_KEEPCAPS		 7
#define PR_SET_KEEPCAPS		 8
#define PR_CAPBSET_READ		 23
#define PR_CAPBSET_DROP		 24
#define PR_GET_SECUREBITS	 27
#define PR_SET_SECUREBITS	 28
#define PR_SET_NO_NEW_PRIVS	 38
#define PR_GET_NO_NEW_PRIVS	 39
#define PR_CAP_AMBIENT		 47
#define PR_CAP_AMBIENT_IS_SET	 1
#define PR_CAP_AMBIENT_RAISE	 2
#define PR_CAP_AMBIENT_LOWER	 3
#define PR_CAP_AMBIENT_CLEAR_ALL 4

/* Securebits (PR_SET_SECUREBITS), each with a lock bit above it that
 * freezes it: Linux's four of 6.1. */
#define SECBIT_NOROOT		    (1u << 0) /* uid 0 gets no capability by execve */
#define SECBIT_NO_SETUID_FIXUP	    (1u << 2) /* uid changes leave the capabilities */
#define SECBIT_KEEP_CAPS	    (1u << 4) /* PR_SET_KEEPCAPS */
#define SECBIT_NO_CAP_AMBIENT_RAISE (1u << 6) /* PR_CAP_AMBIENT_RAISE refused */
#define SECBIT_ALL_BITS                                                                            \
	(SECBIT_NOROOT | SECBIT_NO_SETUID_FIXUP | SECBIT_KEEP_CAPS | SECBIT_NO_CAP_AMBIENT_RAISE)
#define SECBIT_ALL_LOCKS (SECBIT_ALL_BITS << 1)

#endif
