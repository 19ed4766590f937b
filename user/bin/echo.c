/* echo: prints its arguments separated by spaces and ended by a newline;
 * -n as the first argument leaves the newline out. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int newline = !(argc > 1 && strcmp(argv[1], "-n") == 0);
	int first = newline ? 1 : 2;
	for (int i = first; i < argc; i++)
		printf(i > first ? " %s" : "%s", argv[i]);
	if (newline)
		putchar('\n');
	return fflush(stdout) == 0 ? 0 : 1;
}
