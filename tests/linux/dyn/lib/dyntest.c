/* The shared library the dynamic tests load (libdyntest.so): no libc, so
 * one build serves musl's programs and glibc's.  dyntest_counter checks
 * that its data is relocated and private to each process. */
static int counter = 40;
static const int *counter_p = &counter; /* a relocation ld.so must apply */

int dyntest_add(int a, int b)
{
	return a + b;
}

int dyntest_counter(void)
{
	return ++*(int *)counter_p;
}
