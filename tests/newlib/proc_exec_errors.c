/* Tests of execve failures: each gives the Linux errno (ENOENT, EACCES,
 * ENOEXEC, EFAULT, E2BIG) and returns to the caller, which runs on intact. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

static char *const no_env[] = {NULL};
static char *volatile bad_pointer = (char *)1;
static volatile int marker = 12345;

/* Create PATH with mode MODE holding LEN bytes of DATA. */
static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	write(fd, data, len);
	close(fd);
}

static int exec_path(const char *path)
{
	char *argv[] = {(char *)path, NULL};
	return execve(path, argv, no_env);
}

/* Files that are not programs, written to /tmp and removed after. */
static void test_not_programs(const char *helper)
{
	char text[64], noexec[64], truncated[64], badelf[64], head[64] = {0};
	static const char elf_magic[64] = "\177ELF";
	int fd = open(helper, O_RDONLY);
	read(fd, head, sizeof head);
	close(fd);
	snprintf(text, sizeof text, "/tmp/exec-text-%d", (int)getpid());
	snprintf(noexec, sizeof noexec, "/tmp/exec-nox-%d", (int)getpid());
	snprintf(truncated, sizeof truncated, "/tmp/exec-trunc-%d", (int)getpid());
	snprintf(badelf, sizeof badelf, "/tmp/exec-badelf-%d", (int)getpid());
	write_file(text, "echo not a program\n", 19, 0755);
	write_file(noexec, "echo not a program\n", 19, 0644);
	write_file(truncated, head, sizeof head, 0755);
	write_file(badelf, elf_magic, sizeof elf_magic, 0755);
	is_errno(exec_path(text), ENOEXEC, "a text file with x bits and no #!: ENOEXEC");
	is_errno(exec_path(noexec), EACCES, "a file without x bits: EACCES");
	ok(exec_path(truncated) == -1 && (errno == ENOEXEC || errno == EIO),
	   "an ELF cut after its header: ENOEXEC (Linux: EIO), errno %d", errno);
	is_errno(exec_path(badelf), ENOEXEC, "ELF magic with a zeroed header: ENOEXEC");
	unlink(text);
	unlink(noexec);
	unlink(truncated);
	unlink(badelf);
}

static void test_bad_pointers(const char *helper)
{
	char *bad_argv[] = {(char *)helper, bad_pointer, NULL};
	char *argv[] = {(char *)helper, NULL};
	is_errno(execve(bad_pointer, argv, no_env), EFAULT, "a bad path pointer: EFAULT");
	is_errno(execve(helper, (char **)bad_pointer, no_env), EFAULT,
		 "a bad argv pointer: EFAULT");
	is_errno(execve(helper, bad_argv, no_env), EFAULT, "a bad string in argv: EFAULT");
	is_errno(execve(helper, argv, (char **)bad_pointer), EFAULT, "a bad envp pointer: EFAULT");
}

/* 200 arguments of 100 KiB, 20 MB in all: past Linux's and fdkernel's limit. */
static void test_e2big(const char *helper)
{
	enum { N = 200, LEN = 100 * 1024 };
	char *big = malloc(LEN + 1), *argv[N + 1];
	memset(big, 'y', LEN);
	big[LEN] = '\0';
	for (int i = 0; i < N; i++)
		argv[i] = big;
	argv[N] = NULL;
	is_errno(execve(helper, argv, no_env), E2BIG, "20 MB of arguments: E2BIG");
	free(big);
}

int main(int argc, char **argv)
{
	char helper[300];
	pid_t self = getpid();
	(void)argc;
	plan(13);
	test_bin_path(argv[0], "echoargs", helper, sizeof helper);
	is_errno(exec_path("/nonexistent/program"), ENOENT, "a missing directory: ENOENT");
	is_errno(exec_path("/tmp/no-such-program"), ENOENT, "a missing file: ENOENT");
	is_errno(exec_path("/tmp"), EACCES, "a directory: EACCES");
	test_not_programs(helper);
	test_bad_pointers(helper);
	test_e2big(helper);
	ok(marker == 12345 && getpid() == self, "after all that the caller runs on intact");
	return done();
}
