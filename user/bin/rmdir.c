/* rmdir: removes each named directory, which must be empty. */
#include <unistd.h>

#include "cmd.h"

int main(int argc, char **argv)
{
	return cmd_each(argc, argv, "rmdir", rmdir);
}
