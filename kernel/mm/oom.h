/*
 * The OOM killer: what a page fault does when no frame is left.
 */
#ifndef PROC_OOM_H
#define PROC_OOM_H

#include <stdbool.h>

/*
 * Sends SIGKILL to the process with the most resident pages (never init),
 * unless one killed earlier has not yet given its memory back.  True if
 * memory is on its way back (the faulting task may retry), false if there
 * is nobody to kill.
 */
bool oom_kill(void);

#endif
