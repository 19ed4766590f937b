/* true: does nothing, successfully (exit status 0), for scripts and tests
 * of the shell's $?. */
int main(void)
{
	return 0;
}
