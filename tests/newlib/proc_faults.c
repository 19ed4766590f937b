/* Tests that a faulting program is killed with the right signal and only it:
 * each fault runs in a child and the parent checks WIFSIGNALED/WTERMSIG. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "testutil.h"

/* Volatile so the compiler cannot see (and rewrite) the undefined behaviour. */
static int *volatile null_pointer;
static char *volatile literal = "a string literal";
static volatile int zero;
static volatile uintptr_t kernel_text = 0xffffffff80100000;
static volatile int depth_limit = -1;

static void null_dereference(void)
{
	*null_pointer = 1;
}

static void write_rodata(void)
{
	literal[0] = 'A';
}

/* Call a `ret` instruction copied to CODE: fine only if CODE is executable. */
static void call_copied_ret(unsigned char *code)
{
	code[0] = 0xc3;
	((void (*)(void))(uintptr_t)code)();
}

static void execute_stack(void)
{
	unsigned char code[16];
	call_copied_ret(code);
}

static void execute_heap(void)
{
	call_copied_ret(malloc(16));
}

static void execute_ud2(void)
{
	__asm__ volatile("ud2");
}

static void divide_by_zero(void)
{
	volatile int one = 1;
	one /= zero;
}

static int recurse(int depth)
{
	volatile char frame[512];
	frame[0] = (char)depth;
	if (depth == depth_limit)
		return 0;
	return recurse(depth + 1) + frame[0];
}

static void overflow_stack(void)
{
	recurse(0);
}

static void jump_to_kernel(void)
{
	((void (*)(void))kernel_text)();
}

static const struct fault {
	const char *what;
	void (*fn)(void);
	int sig;
} faults[] = {
    {"NULL dereference", null_dereference, SIGSEGV},
    {"write to a string literal", write_rodata, SIGSEGV},
    {"executing the stack (NX)", execute_stack, SIGSEGV},
    {"executing the heap (NX)", execute_heap, SIGSEGV},
    {"ud2", execute_ud2, SIGILL},
    {"integer division by zero", divide_by_zero, SIGFPE},
    {"stack overflow into the guard page", overflow_stack, SIGSEGV},
    {"a jump to a kernel-half address", jump_to_kernel, SIGSEGV},
};

int main(void)
{
	plan((int)(sizeof faults / sizeof faults[0]) + 1);
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
		int status = child_status(faults[i].fn);
		ok(killed_by(status, faults[i].sig),
		   "%s kills the child with signal %d (status %#x)", faults[i].what, faults[i].sig,
		   status);
	}
	ok(1, "the parent survives all of them");
	return done();
}
