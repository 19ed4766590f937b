/* Helpers shared by the small /bin utilities: error reports in the usual
 * "prog: operand: reason" form and applying one operation to each operand. */
#ifndef USER_CMD_H
#define USER_CMD_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Report errno for OPERAND of PROG on stderr; returns 1, the exit status. */
static inline int cmd_error(const char *prog, const char *operand)
{
	fprintf(stderr, "%s: %s: %s\n", prog, operand, strerror(errno));
	return 1;
}

/* Apply OP to each of argv[1..argc-1]; 1 if any failed or none was given. */
static inline int cmd_each(int argc, char **argv, const char *prog, int (*op)(const char *))
{
	int status = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s NAME...\n", prog);
		return 1;
	}
	for (int i = 1; i < argc; i++)
		if (op(argv[i]) < 0)
			status = cmd_error(prog, argv[i]);
	return status;
}

#endif
