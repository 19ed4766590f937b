/* The console report of a user-mode fault (proc/fault_report.c). */
#ifndef PROC_FAULT_REPORT_H
#define PROC_FAULT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

struct task;

#define FAULT_REPORT_WINDOW_NS (5 * 1000000000ULL)

/* Prints "prog[pid]: killed by SIGSEGV at rip 0x... (func+0x..), address
 * 0x..." (or "handles" when a handler takes it: only without `quiet`). */
void fault_report(struct task *t, int sig, uint64_t rip, uint64_t addr, bool kills);
/* The rate limit (at most 10 reports in a window): whether a report may print at
 * time now (ns); *missed, how many were dropped since the last one printed. */
bool fault_report_allowed(uint64_t now, unsigned int *missed);

#endif
