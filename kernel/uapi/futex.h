/*
 * futex(2), set_robust_list(2) and get_robust_list(2): Linux x86_64
 * operation codes, flags and the robust-list layout, shared by the kernel
 * and user programs.
 */
#ifndef UAPI_FUTEX_H
#define UAPI_FUTEX_H

#include <stdint.h>

/* Operations: the low bits of futex's op argument. */
#define FUTEX_WAIT	      0
#define FUTEX_WAKE	      1
#define FUTEX_FD	      2 /* removed from Linux in 2.6.26: ENOSYS */
#define FUTEX_REQUEUE	      3
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAKE_OP	      5
#define FUTEX_LOCK_PI	      6 /* the priority-inheritance family (proc/futex_pi.c) */
#define FUTEX_UNLOCK_PI	      7
#define FUTEX_TRYLOCK_PI      8
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI  12
#define FUTEX_LOCK_PI2	      13

/* Flags or'ed into op. */
#define FUTEX_PRIVATE_FLAG   128 /* the word is not shared with another address space */
#define FUTEX_CLOCK_REALTIME 256 /* WAIT_BITSET's absolute timeout is on CLOCK_REALTIME */
#define FUTEX_CMD_MASK	     (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

#define FUTEX_BITSET_MATCH_ANY 0xffffffffU

/* futex_waitv: struct futex_waitv's flags (a 32-bit word; FUTEX_PRIVATE_FLAG
 * for a private one) and the most words one call waits on. */
#define FUTEX_32	2
#define FUTEX_WAITV_MAX 128

/*
 * FUTEX_WAKE_OP's val3: (op << 28) | (cmp << 24) | (oparg << 12) | cmparg,
 * oparg and cmparg 12-bit signed.  The operation is applied to *uaddr2,
 * then the old value compared with cmparg decides whether uaddr2's
 * waiters are woken too.
 */
#define FUTEX_OP_SET	     0 /* *uaddr2 = oparg */
#define FUTEX_OP_ADD	     1 /* *uaddr2 += oparg */
#define FUTEX_OP_OR	     2 /* *uaddr2 |= oparg */
#define FUTEX_OP_ANDN	     3 /* *uaddr2 &= ~oparg */
#define FUTEX_OP_XOR	     4 /* *uaddr2 ^= oparg */
#define FUTEX_OP_OPARG_SHIFT 8 /* with an op: oparg is 1 << oparg */
#define FUTEX_OP_CMP_EQ	     0
#define FUTEX_OP_CMP_NE	     1
#define FUTEX_OP_CMP_LT	     2
#define FUTEX_OP_CMP_LE	     3
#define FUTEX_OP_CMP_GT	     4
#define FUTEX_OP_CMP_GE	     5
#define FUTEX_OP(op, oparg, cmp, cmparg)                                                           \
	((((op)&0xf) << 28) | (((cmp)&0xf) << 24) | (((oparg)&0xfff) << 12) | ((cmparg)&0xfff))

/* A robust lock word: the owner's tid, and these two bits. */
#define FUTEX_WAITERS	 0x80000000U /* someone may sleep on it: the unlock must wake */
#define FUTEX_OWNER_DIED 0x40000000U /* set by the kernel when the owner exits */
#define FUTEX_TID_MASK	 0x3fffffffU

/* How many locks a thread's exit walks on its robust list at most. */
#define ROBUST_LIST_LIMIT 2048

/*
 * The robust list (user memory, the layout of Linux's struct
 * robust_list_head): a circular list of the locks a thread holds, each an
 * entry whose lock word sits futex_offset bytes from it.  Bit 0 of a
 * pointer marks a priority-inheritance lock.  list_op_pending is the lock
 * being taken or released right now (0 if none).
 */
struct robust_list_head_k {
	uint64_t next;
	int64_t futex_offset;
	uint64_t list_op_pending;
};

#endif
