/* rm: removes each named file (not directories: rmdir does those). */
#include <unistd.h>

#include "cmd.h"

int main(int argc, char **argv)
{
	return cmd_each(argc, argv, "rm", unlink);
}
