/*
 * Process start-up, called by _start (crt0.S) with the initial stack the
 * SysV x86_64 ABI describes: argc, argv[], NULL, envp[], NULL, auxv pairs.
 */
#include <fdkernel.h>
#include <stdlib.h>
#include <unistd.h>

typedef void (*init_fn)(int, char **, char **);
typedef void (*fini_fn)(void);

/* Bounds the linker script provides for static executables. */
extern init_fn __preinit_array_start[], __preinit_array_end[];
extern init_fn __init_array_start[], __init_array_end[];
extern fini_fn __fini_array_start[], __fini_array_end[];

int main(int argc, char **argv, char **envp);

/* The auxiliary vector, for getauxval(). */
static const unsigned long *auxv;

unsigned long getauxval(unsigned long type)
{
	for (const unsigned long *p = auxv; p && p[0] != 0; p += 2)
		if (p[0] == type)
			return p[1];
	return 0;
}

/* Destructors run in reverse order, at exit(). */
static void run_fini_array(void)
{
	for (fini_fn *f = __fini_array_end; f > __fini_array_start;)
		(*--f)();
}

static void run_init_arrays(int argc, char **argv, char **envp)
{
	for (init_fn *f = __preinit_array_start; f < __preinit_array_end; f++)
		(*f)(argc, argv, envp);
	for (init_fn *f = __init_array_start; f < __init_array_end; f++)
		(*f)(argc, argv, envp);
}

__attribute__((noreturn, used)) void __fdk_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **p = envp;

	while (*p)
		p++;
	auxv = (const unsigned long *)(p + 1);
	environ = envp;
	run_init_arrays(argc, argv, envp);
	atexit(run_fini_array);
	exit(main(argc, argv, envp));
}
