/* musl's start-up and stdio: a static musl program reaches main with its
 * arguments, environment and auxiliary vector, and stdio writes through
 * writev, asking ioctl(TIOCGWINSZ) whether stdout is a terminal (on a pipe
 * it is not: ENOTTY, so stdout is fully buffered, not line-buffered).
 * Also built as a static PIE (hello_pie): the auxiliary vector then points
 * into the image where the kernel placed it, which musl relocates from. */
#define _GNU_SOURCE
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "testutil.h"

extern char _start[];

/* AT_PHDR, AT_PHNUM, AT_ENTRY and AT_BASE of a static program, PIE or not:
 * ld puts the program headers right after the ELF header, in the first
 * loaded page, so the header is mapped just below them. */
static void check_image_auxv(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(getauxval(AT_PHDR) - sizeof(Elf64_Ehdr));

	ok(getauxval(AT_PHDR) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_phoff == sizeof(*eh) && eh->e_phnum == getauxval(AT_PHNUM),
	   "auxv AT_PHDR points at the mapped program headers, AT_PHNUM of them");
	ok(getauxval(AT_ENTRY) == (unsigned long)_start,
	   "auxv AT_ENTRY is where _start was placed");
	is_int(getauxval(AT_BASE), 0, "auxv AT_BASE is 0: no interpreter");
}

/* Run FN in a child whose stdout is a pipe; its output into OUT. */
static void capture(void (*fn)(void), char *out, size_t size)
{
	int fds[2];
	size_t len = 0;
	ssize_t n;

	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	pid_t pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		fn();
		exit(0); /* exit flushes stdio, as Linux programs expect */
	}
	close(fds[1]);
	while (len < size - 1 && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

/* "a\n" waits in the buffer while "b" goes out at once. */
static void buffered(void)
{
	printf("a\n");
	write(1, "b", 1);
}

static void formats(void)
{
	printf("%s %d %5.2f %lx %c|", "hello", -42, 3.14159, 0xfdUL, 'z');
	fprintf(stdout, "%zu", strlen("twelve chars"));
}

static void gathered(void)
{
	struct iovec iov[3] = {{"one ", 4}, {"two ", 4}, {"three", 5}};
	writev(1, iov, 3);
}

int main(int argc, char **argv, char **envp)
{
	char out[256];
	struct winsize ws;
	int fds[2];

	plan(12);
	ok(argc >= 1 && argv[0] && strrchr(argv[0], '/') &&
	       strncmp(strrchr(argv[0], '/'), "/hello", 6) == 0,
	   "argv[0]'s last part is the program's name (%s)", argv[0]);
	ok(argv[argc] == NULL && envp == argv + argc + 1, "envp follows argv's NULL");
	is_int(getauxval(AT_PAGESZ), 4096, "auxv AT_PAGESZ");
	ok(getauxval(AT_RANDOM) != 0, "auxv AT_RANDOM present (musl seeds its canary from it)");
	check_image_auxv();

	require(pipe(fds) == 0, "pipe");
	is_errno(ioctl(fds[1], TIOCGWINSZ, &ws), ENOTTY, "ioctl(TIOCGWINSZ) on a pipe: ENOTTY");
	close(fds[0]);
	close(fds[1]);

	capture(buffered, out, sizeof out);
	if (!ok(strcmp(out, "ba\n") == 0, "stdout on a pipe is fully buffered"))
		diag("got \"%s\"", one_line(out));
	capture(formats, out, sizeof out);
	if (!ok(strcmp(out, "hello -42  3.14 fd z|12") == 0, "printf formats"))
		diag("got \"%s\"", out);
	capture(gathered, out, sizeof out);
	ok(strcmp(out, "one two three") == 0, "writev gathers three buffers");
	is_int(printf("%s", ""), 0, "printf of nothing returns 0");
	return done();
}
