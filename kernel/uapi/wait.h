/*
 * wait4 and waitid: Linux x86_64 option bits, waitid id types and the
 * SIGCHLD si_code values, shared by the kernel and libc/.
 */
#ifndef UAPI_WAIT_H
#define UAPI_WAIT_H

#define WNOHANG	    0x00000001
#define WUNTRACED   0x00000002 /* wait4's name for WSTOPPED */
#define WSTOPPED    0x00000002
#define WEXITED	    0x00000004
#define WCONTINUED  0x00000008
#define WNOWAIT	    0x01000000 /* waitid only: leave the child waitable */
#define __WNOTHREAD 0x20000000
#define __WALL	    0x40000000
#define __WCLONE    0x80000000 /* only children whose exit signal is not SIGCHLD */

/* waitid id types. */
#define P_ALL	0
#define P_PID	1
#define P_PGID	2
#define P_PIDFD 3 /* id is a pidfd */

/* si_code of SIGCHLD and of waitid's siginfo. */
#define CLD_EXITED    1
#define CLD_KILLED    2
#define CLD_DUMPED    3
#define CLD_STOPPED   5
#define CLD_CONTINUED 6

#endif
