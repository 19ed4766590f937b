/* A program that needs libdyntest.so at start-up (DT_NEEDED, no rpath):
 * it runs only when ld.so finds the library through LD_LIBRARY_PATH.
 * Prints what the library computes; dyn_libs checks it. */
#include <stdio.h>

int dyntest_add(int a, int b);
int dyntest_counter(void);

int main(void)
{
	int a = dyntest_counter();

	printf("needed %d %d\n", dyntest_add(2, 3), a + dyntest_counter());
	return 0;
}
