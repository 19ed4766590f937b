/* mkdir: creates each named directory (mode 0777 less the umask); the
 * parent must exist. */
#include <sys/stat.h>

#include "cmd.h"

static int make_dir(const char *name)
{
	return mkdir(name, 0777);
}

int main(int argc, char **argv)
{
	return cmd_each(argc, argv, "mkdir", make_dir);
}
