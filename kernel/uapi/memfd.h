/*
 * memfd_create(2) flags and the file seals of fcntl(F_ADD_SEALS,
 * F_GET_SEALS): Linux x86_64 values, plus MFD_CLOFORK, fdkernel's, on
 * O_CLOFORK's bit as EFD_CLOFORK is.  Shared by the kernel and libc/.
 */
#ifndef UAPI_MEMFD_H
#define UAPI_MEMFD_H

#define MFD_CLOEXEC	  0x0001U
#define MFD_ALLOW_SEALING 0x0002U
#define MFD_HUGETLB	  0x0004U    /* refused: no hugetlbfs (EINVAL) */
#define MFD_NOEXEC_SEAL	  0x0008U    /* mode 0666 and F_SEAL_EXEC (Linux 6.3) */
#define MFD_EXEC	  0x0010U    /* mode 0777, sealable exec bits (Linux 6.3) */
#define MFD_CLOFORK	  040000000U /* fdkernel: the new fd is close-on-fork */

/* The name's length limit: NAME_MAX less "memfd:". */
#define MFD_NAME_MAX_LEN 249

/* fcntl commands (F_LINUX_SPECIFIC_BASE 1024 + 9, + 10). */
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034

#define F_SEAL_SEAL	    0x0001 /* no more seals */
#define F_SEAL_SHRINK	    0x0002 /* the size cannot shrink */
#define F_SEAL_GROW	    0x0004 /* the size cannot grow */
#define F_SEAL_WRITE	    0x0008 /* no writes, no writable shared mappings */
#define F_SEAL_FUTURE_WRITE 0x0010 /* no new writes; existing mappings keep writing */
#define F_SEAL_EXEC	    0x0020 /* the exec bits of the mode are fixed */

#endif
