/*
 * echoargs: print each argument and each environment entry on its own line
 * and exit with the argument count.  A helper the exec tests run.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("arg %d %s\n", i, argv[i]);
	for (char **e = environ; *e; e++)
		printf("env %s\n", *e);
	return argc;
}
