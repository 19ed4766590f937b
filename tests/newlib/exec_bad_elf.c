/* execve of hand-made ELF images: a minimal static PIE (ET_DYN) that runs,
 * then the same image broken one way at a time.  Each runs in a child;
 * the outcome (its exit code, execve's errno, or the signal that killed it)
 * is Linux's.  Where Linux finds the fault only after the point of no
 * return and kills the process with SIGSEGV, fdkernel checks before and
 * returns ENOEXEC to the caller (docs/processes.md, "execve"): those cases
 * name both outcomes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <uapi/elf.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define CODE_OFF  0x1000 /* the code's file offset and link address */
#define FILE_SIZE 0x2000 /* room for a page of program headers */
#define RUN_CODE  77	 /* what the program exits with */

/* The image: header, program headers, an interpreter path, code. */
static union {
	uint8_t bytes[FILE_SIZE];
	struct {
		struct elf64_ehdr eh;
		struct elf64_phdr ph[2];
	};
} img;

static char path[64];

/* exit(RUN_CODE): mov $77,%edi; mov $60,%eax; syscall */
static const uint8_t code[] = {0xbf, RUN_CODE, 0, 0, 0, 0xb8, 60, 0, 0, 0, 0x0f, 0x05};

/* One PT_LOAD, read and execute, from file offset 0 to the code's end. */
static void make_image(void)
{
	static const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};

	memset(&img, 0, sizeof(img));
	memcpy(img.eh.ident, ident, sizeof(ident));
	img.eh.type = ET_DYN;
	img.eh.machine = EM_X86_64;
	img.eh.version = 1;
	img.eh.entry = CODE_OFF;
	img.eh.phoff = sizeof(img.eh);
	img.eh.ehsize = sizeof(img.eh);
	img.eh.phentsize = sizeof(struct elf64_phdr);
	img.eh.phnum = 1;
	img.ph[0] = (struct elf64_phdr){
	    PT_LOAD, PF_R | PF_X, 0, 0, 0, CODE_OFF + sizeof(code), CODE_OFF + sizeof(code),
	    0x1000};
	memcpy(img.bytes + CODE_OFF, code, sizeof(code));
}

/* A second header, PT_INTERP, naming NAME (LEN bytes of it) at offset 0x200. */
static void add_interp(const char *name, size_t len)
{
	img.eh.phnum = 2;
	memcpy(img.bytes + 0x200, name, len);
	img.ph[1] = (struct elf64_phdr){PT_INTERP, PF_R, 0x200, 0x200, 0x200, len, len, 1};
}

static void child_exec(void)
{
	char *argv[] = {path, NULL}, *envp[] = {NULL};

	execve(path, argv, envp);
	_exit(errno);
}

/* Writes the image, runs it; its wait status. */
static int run_image(void)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	require(fd >= 0 && write(fd, img.bytes, sizeof(img)) == (ssize_t)sizeof(img),
		"write image");
	close(fd);
	return child_status(child_exec);
}

/* The image made by make_image and then MUTATE, run: it must exit with
 * CODE (an errno from execve, or RUN_CODE), or on Linux when LINUX_SIG is
 * set die of that signal. */
static void expect(void (*mutate)(void), int code, int linux_sig, const char *what)
{
	int status;

	make_image();
	if (mutate)
		mutate();
	status = run_image();
	if (linux_sig && !on_fdkernel())
		ok(killed_by(status, linux_sig), "%s: killed by signal %d (fdkernel: exit %d)",
		   what, linux_sig, code);
	else if (!ok(exited_with(status, code), "%s: exit %d", what, code))
		diag("wait status 0x%x", status);
}

static void as_exec(void)
{
	img.eh.type = ET_EXEC;
	img.eh.entry += 0x400000;
	img.ph[0].vaddr = img.ph[0].paddr = 0x400000;
}
static void interp_missing(void)
{
	add_interp("/nonexistent/ld.so", 19);
}
static void interp_dir(void)
{
	add_interp("/tmp", 5);
}
static void interp_unterminated(void)
{
	add_interp("/nonexistent/ld.so", 18);
}
static void interp_short(void)
{
	add_interp("", 1);
}
static void bad_phentsize(void)
{
	img.eh.phentsize = 32;
}
static void no_phdrs(void)
{
	img.eh.phnum = 0;
}
static void many_phdrs(void)
{
	img.eh.phnum = 4096 / sizeof(struct elf64_phdr) + 1;
}
static void too_many_phdrs(void)
{
	img.eh.phnum = 65536 / sizeof(struct elf64_phdr) + 1;
}
static void phdrs_past_end(void)
{
	img.eh.phoff = FILE_SIZE - 8;
}
static void bad_machine(void)
{
	img.eh.machine = 3; /* i386 */
}
/* Placed below the mmap base, as Linux places a static PIE, it fits the
 * address space; its 64 TiB of bss do not fit memory: ENOMEM before the
 * point of no return.  One past the address space cannot be placed. */
static void huge_memsz(void)
{
	img.ph[0].memsz = 1UL << 46;
}
static void memsz_past_space(void)
{
	img.ph[0].memsz = 1UL << 47;
}
static void unaligned(void)
{
	img.ph[0].vaddr = img.ph[0].paddr = 0x10;
}
/* A second, writable PT_LOAD over the code's page: Linux maps it over the
 * first (the code is no longer executable); fdkernel refuses shared pages. */
static void overlapping(void)
{
	img.eh.phnum = 2;
	img.ph[1] = img.ph[0];
	img.ph[1].flags = PF_R | PF_W;
	img.ph[1].offset = img.ph[1].vaddr = img.ph[1].paddr = CODE_OFF;
	img.ph[1].filesz = img.ph[1].memsz = sizeof(code);
}
static void entry_outside(void)
{
	img.eh.entry = 0x100000;
}
/* Linux looks at e_ident's magic only: not the class, byte order or
 * versions, nor e_version. */
static void other_ident(void)
{
	img.eh.ident[4] = 1; /* ELFCLASS32 */
	img.eh.ident[5] = 2; /* big-endian */
	img.eh.ident[6] = 0;
	img.eh.version = 0;
}

/* Each image: how make_image's is broken, and what running it gives. */
static const struct image_case {
	void (*mutate)(void);
	int code;      /* exit code: RUN_CODE if it ran, else execve's errno */
	int linux_sig; /* the signal Linux kills with instead, or 0 */
	const char *what;
} cases[] = {
    {NULL, RUN_CODE, 0, "a minimal static PIE (ET_DYN) runs"},
    {as_exec, RUN_CODE, 0, "the same as ET_EXEC at 0x400000 runs"},
    {interp_missing, ENOENT, 0, "PT_INTERP naming a missing file: ENOENT"},
    {interp_dir, EACCES, 0, "PT_INTERP naming a directory: EACCES"},
    {interp_unterminated, ENOEXEC, 0, "PT_INTERP without its NUL: ENOEXEC"},
    {interp_short, ENOEXEC, 0, "PT_INTERP of one byte: ENOEXEC"},
    {bad_phentsize, ENOEXEC, 0, "e_phentsize 32: ENOEXEC"},
    {no_phdrs, ENOEXEC, 0, "no program headers: ENOEXEC"},
    {many_phdrs, RUN_CODE, 0, "74 program headers (more than a page of them) run"},
    {too_many_phdrs, ENOEXEC, 0, "program headers over 64 KiB: ENOEXEC"},
    {phdrs_past_end, ENOEXEC, 0, "program headers past the end of the file: ENOEXEC"},
    {bad_machine, ENOEXEC, 0, "e_machine i386: ENOEXEC"},
    {other_ident, RUN_CODE, 0, "ELFCLASS32, big-endian, version 0 in e_ident: runs"},
    {huge_memsz, ENOMEM, SIGSEGV, "a 64 TiB p_memsz"},
    {memsz_past_space, ENOEXEC, SIGSEGV, "a 128 TiB p_memsz"},
    {unaligned, ENOEXEC, SIGSEGV, "p_vaddr and p_offset differing modulo the page"},
    {entry_outside, ENOEXEC, SIGSEGV, "the entry outside every segment"},
    {overlapping, ENOEXEC, SIGSEGV, "a writable segment over the code's page"},
};

int main(void)
{
	int n = sizeof(cases) / sizeof(cases[0]);

	plan(n + 1);
	snprintf(path, sizeof(path), "/tmp/exec-bad-elf-%d", (int)getpid());
	for (int i = 0; i < n; i++)
		expect(cases[i].mutate, cases[i].code, cases[i].linux_sig, cases[i].what);
	unlink(path);
	ok(access(path, F_OK) != 0, "the image is removed");
	return done();
}
