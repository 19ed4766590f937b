/* execve of hand-made programs naming a hand-made interpreter (PT_INTERP):
 * a tiny interpreter that exits with a code runs in the program's place;
 * then interpreters broken one way at a time give Linux's outcome: an
 * errno from execve before its point of no return (ENOENT, EACCES,
 * ETXTBSY, EIO for a file shorter than an ELF header, ELIBBAD for one
 * that is not an x86_64 ELF file), or death by SIGSEGV after it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>

#include "tap.h"
#include "testutil.h"

#define CODE_OFF 0x1000
#define IMG_SIZE 0x2000
#define RUN_CODE 42

struct image {
	union {
		uint8_t bytes[IMG_SIZE];
		struct {
			Elf64_Ehdr eh;
			Elf64_Phdr ph[2];
		};
	};
};

static struct image prog, interp;
static char prog_path[64], interp_path[64];

/* exit(RUN_CODE) */
static const uint8_t code[] = {0xbf, RUN_CODE, 0, 0, 0, 0xb8, 60, 0, 0, 0, 0x0f, 0x05};

/* An ET_DYN image whose one PT_LOAD holds code at CODE_OFF. */
static void make(struct image *im)
{
	static const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};

	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ident, sizeof(ident));
	im->eh.e_type = ET_DYN;
	im->eh.e_machine = EM_X86_64;
	im->eh.e_version = 1;
	im->eh.e_entry = CODE_OFF;
	im->eh.e_phoff = sizeof(im->eh);
	im->eh.e_ehsize = sizeof(im->eh);
	im->eh.e_phentsize = sizeof(Elf64_Phdr);
	im->eh.e_phnum = 1;
	im->ph[0] = (Elf64_Phdr){
	    PT_LOAD, PF_R | PF_X, 0, 0, 0, CODE_OFF + sizeof(code), CODE_OFF + sizeof(code),
	    0x1000};
	memcpy(im->bytes + CODE_OFF, code, sizeof(code));
}

/* im names name as its interpreter; its own code would exit 0. */
static void name_interp(struct image *im, const char *name)
{
	size_t len = strlen(name) + 1;

	im->eh.e_phnum = 2;
	memcpy(im->bytes + 0x200, name, len);
	im->ph[1] = (Elf64_Phdr){PT_INTERP, PF_R, 0x200, 0x200, 0x200, len, len, 1};
	im->bytes[CODE_OFF + 1] = 0;
}

static void put(const char *path, const void *bytes, size_t len, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	require(fd >= 0 && write(fd, bytes, len) == (ssize_t)len, "write an image");
	close(fd);
}

static void child_exec(void)
{
	char *argv[] = {prog_path, NULL}, *envp[] = {NULL};

	execve(prog_path, argv, envp);
	_exit(errno);
}

/* The program naming interp_path run with the interpreter as it is now:
 * it exits with code, or dies of sig when sig is set. */
static void expect(int code, int sig, const char *what)
{
	int status;

	put(prog_path, prog.bytes, sizeof(prog.bytes), 0755);
	status = child_status(child_exec);
	if (sig)
		ok(killed_by(status, sig), "%s: killed by signal %d (status %#x)", what, sig,
		   status);
	else
		ok(exited_with(status, code), "%s: exit %d (status %#x)", what, code, status);
}

/* The interpreter made by make and then changed by mutate, run. */
static void expect_interp(void (*mutate)(void), int code, int sig, const char *what)
{
	make(&interp);
	if (mutate)
		mutate();
	put(interp_path, interp.bytes, sizeof(interp.bytes), 0755);
	expect(code, sig, what);
}

static void as_exec(void)
{
	interp.eh.e_type = ET_EXEC;
	interp.eh.e_entry += 0x400000;
	interp.ph[0].p_vaddr = interp.ph[0].p_paddr = 0x400000;
}
static void other_machine(void)
{
	interp.eh.e_machine = 3; /* i386 */
}
static void bad_magic(void)
{
	interp.eh.e_ident[1] = 'X';
}
static void bad_phentsize(void)
{
	interp.eh.e_phentsize = 32;
}
static void no_phdrs(void)
{
	interp.eh.e_phnum = 0;
}
static void relocatable(void)
{
	interp.eh.e_type = 1; /* ET_REL */
}
static void entry_outside(void)
{
	interp.eh.e_entry = 0x100000;
}
/* An interpreter that names one of its own: ignored, as Linux does. */
static void itself_dynamic(void)
{
	name_interp(&interp, "/nonexistent/ld.so");
	interp.bytes[CODE_OFF + 1] = RUN_CODE;
}

static void special_cases(void)
{
	char cwd[PATH_MAX], rel[80];
	int fd;

	make(&interp);
	/* Shorter than an ELF header: the header read fails (EIO). */
	put(interp_path, "#!/bin/sh\n", 10, 0755);
	expect(EIO, 0, "an interpreter shorter than an ELF header: EIO");
	/* Text longer than a header: not ELF (ELIBBAD). */
	memset(interp.bytes, 'x', 200);
	put(interp_path, interp.bytes, 200, 0755);
	expect(ELIBBAD, 0, "an interpreter that is not ELF: ELIBBAD");
	make(&interp);
	put(interp_path, interp.bytes, sizeof(interp.bytes), 0644);
	expect(EACCES, 0, "an interpreter without execute permission: EACCES");
	chmod(interp_path, 0755);
	fd = open(interp_path, O_WRONLY);
	require(fd >= 0, "open the interpreter for writing");
	expect(ETXTBSY, 0, "an interpreter open for writing: ETXTBSY");
	close(fd);
	expect(RUN_CODE, 0, "once closed it runs again");
	/* A relative path is looked up from the working directory. */
	require(getcwd(cwd, sizeof cwd) && chdir("/tmp") == 0, "chdir /tmp");
	snprintf(rel, sizeof rel, "%s", strrchr(interp_path, '/') + 1);
	make(&prog);
	name_interp(&prog, rel);
	expect(RUN_CODE, 0, "a relative interpreter path, from the working directory");
	require(chdir(cwd) == 0, "chdir back");
	unlink(interp_path);
	expect(ENOENT, 0, "a missing interpreter: ENOENT");
	make(&prog);
	name_interp(&prog, "/tmp");
	expect(EACCES, 0, "a directory as interpreter: EACCES");
}

int main(void)
{
	plan(18);
	snprintf(prog_path, sizeof prog_path, "/tmp/exec-interp-prog-%d", (int)getpid());
	snprintf(interp_path, sizeof interp_path, "/tmp/exec-interp-ld-%d", (int)getpid());
	make(&prog);
	name_interp(&prog, interp_path);
	expect_interp(NULL, RUN_CODE, 0, "an ET_DYN interpreter runs in the program's place");
	expect_interp(as_exec, RUN_CODE, 0, "an ET_EXEC interpreter at 0x400000 runs");
	expect_interp(itself_dynamic, RUN_CODE, 0, "an interpreter's own PT_INTERP is ignored");
	expect_interp(other_machine, ELIBBAD, 0, "an i386 interpreter: ELIBBAD");
	expect_interp(bad_magic, ELIBBAD, 0, "an interpreter without ELF magic: ELIBBAD");
	expect_interp(bad_phentsize, ELIBBAD, 0, "an interpreter with e_phentsize 32: ELIBBAD");
	expect_interp(no_phdrs, ELIBBAD, 0, "an interpreter without program headers: ELIBBAD");
	expect_interp(relocatable, 0, SIGSEGV,
		      "an ET_REL interpreter, past the point of no return");
	expect_interp(entry_outside, 0, SIGSEGV, "an interpreter whose entry is outside it");
	/* The program itself as ET_EXEC, its interpreter ET_DYN. */
	prog.eh.e_type = ET_EXEC;
	prog.eh.e_entry += 0x400000;
	prog.ph[0].p_vaddr = prog.ph[0].p_paddr = 0x400000;
	expect_interp(NULL, RUN_CODE, 0, "an ET_EXEC program with an ET_DYN interpreter");
	make(&prog);
	name_interp(&prog, interp_path);
	special_cases();
	unlink(prog_path);
	return done();
}
