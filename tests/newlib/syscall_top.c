/* A syscall instruction in the last two bytes of the user half would
 * return to 2^47, which is not canonical: SYSRET there faults in ring 0 on
 * Intel.  The kernel keeps the last page unmappable (fdkernel's uvm.h,
 * Linux's TASK_SIZE_MAX), and if a program got there all the same it must
 * end with SIGSEGV, the kernel alive (syscall.asm's exits test rip). */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigutil.h"

#define TOP_PAGE 0x7ffffffff000UL

int main(void)
{
	int status = 0;

	plan(1);
	pid_t pid = fork();
	if (pid == 0) {
		unsigned char *p = mmap((void *)TOP_PAGE, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		p[4094] = 0x0f;
		p[4095] = 0x05; /* syscall */
		__asm__ volatile("jmp *%0" ::"r"(p + 4094), "a"(39L) : "memory");
		_exit(3);
	}
	waitpid(pid, &status, 0);
	ok((WIFEXITED(status) && WEXITSTATUS(status) == 2) ||
	       (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV),
	   "the last user page cannot be mapped, or a syscall there gives SIGSEGV (status %#x)",
	   status);
	return done();
}
