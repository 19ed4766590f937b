/* false: does nothing, unsuccessfully (exit status 1), for scripts and tests
 * of the shell's $?. */
int main(void)
{
	return 1;
}
