/* Thread-local storage and errno in the main thread of a musl program:
 * musl lays out the TLS block and its thread control block at start-up
 * (arch_prctl(ARCH_SET_FS)); errno lives there.  The values follow fork. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "testutil.h"

static __thread int counter = 41; /* .tdata: initialised */
static __thread long zeroed[64];  /* .tbss: zero-filled */
static __thread char aligned_byte __attribute__((aligned(64))) = 'x';

/* x86_64 TLS variant II: %fs:0 holds the thread pointer itself. */
static uintptr_t thread_pointer(void)
{
	uintptr_t tp;

	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

static void child_checks(void)
{
	counter++;
	errno = 0;
	if (counter != 43 || zeroed[5] != 7 || close(-1) != -1 || errno != EBADF)
		_exit(1);
	_exit(0);
}

int main(void)
{
	long sum = 0;

	plan(11);
	is_int(counter, 41, "initialised __thread variable");
	for (int i = 0; i < 64; i++)
		sum += zeroed[i];
	is_int(sum, 0, "zero-filled __thread array");
	ok(((uintptr_t)&aligned_byte & 63) == 0 && aligned_byte == 'x',
	   "64-byte aligned __thread variable");
	ok(thread_pointer() != 0 && (uintptr_t)&counter < thread_pointer(),
	   "%%fs:0 is the thread pointer, TLS below it");
	ok((uintptr_t)&errno - thread_pointer() < 4096,
	   "errno lives in musl's thread block at %%fs");

	errno = 0;
	is_errno(open("/no/such/dir/file", O_RDONLY), ENOENT, "open of a missing path: ENOENT");
	is_errno(close(-1), EBADF, "close(-1): EBADF");
	is_errno(lseek(0x7fff, 0, SEEK_SET), EBADF, "lseek on an unused fd: EBADF");
	errno = 1234;
	ok(getpid() > 0 && errno == 1234, "a successful call leaves errno alone");

	counter++;
	zeroed[5] = 7;
	int status = child_status(child_checks);
	ok(exited_with(status, 0), "fork's child sees the parent's TLS values and its own errno");
	is_int(counter, 42, "the child's TLS writes stay in the child");
	return done();
}
