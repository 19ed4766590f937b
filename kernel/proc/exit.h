/* Process exit, wait status encoding and reaping. */
#ifndef PROC_EXIT_H
#define PROC_EXIT_H

/* wait(2) status words, as Linux encodes them. */
#define W_EXITED(code)	(((code)&0xff) << 8)
#define W_SIGNALED(sig) ((sig)&0x7f)

/* Ends the current task with a wait status; never returns. */
__attribute__((noreturn)) void task_exit(int status);

#endif
