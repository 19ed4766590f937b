/* kill: sends a signal (default SIGTERM) to each pid: "kill [-SIG] PID...",
 * SIG as a number or a name with or without the SIG prefix. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	int sig;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT}, {"ILL", SIGILL},	{"TRAP", SIGTRAP},
    {"ABRT", SIGABRT}, {"BUS", SIGBUS},	  {"FPE", SIGFPE},   {"KILL", SIGKILL}, {"USR1", SIGUSR1},
    {"SEGV", SIGSEGV}, {"USR2", SIGUSR2}, {"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM},
    {"CHLD", SIGCHLD}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
};

/* The signal named by S ("9", "KILL", "SIGKILL"), or -1. */
static int parse_signal(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (end != s && !*end)
		return n >= 0 && n < 65 ? (int)n : -1;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		if (strcmp(signals[i].name, s) == 0)
			return signals[i].sig;
	return -1;
}

int main(int argc, char **argv)
{
	int sig = SIGTERM, first = 1, status = 0;
	if (argc > 1 && argv[1][0] == '-') {
		sig = parse_signal(argv[1] + 1);
		first = 2;
	}
	if (sig < 0 || first >= argc) {
		fprintf(stderr, "usage: kill [-SIGNAL] PID...\n");
		return 1;
	}
	for (int i = first; i < argc; i++)
		if (kill((pid_t)atoi(argv[i]), sig) < 0)
			status = cmd_error("kill", argv[i]);
	return status;
}
