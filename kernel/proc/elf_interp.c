/*
 * The interpreter of a dynamically linked program (PT_INTERP: ld.so), as
 * Linux's load_elf_binary finds and loads it.  Before its point of no
 * return Linux checks the path (2..PATH_MAX bytes ending in a NUL:
 * ENOEXEC), opens it as execve opens a program (from the caller's root,
 * or its working directory for a relative path: ENOENT, EACCES, ...;
 * ETXTBSY while a writer has it), reads its ELF header (EIO when the file
 * is shorter) and refuses what is not an x86_64 ELF file with readable
 * program headers (ELIBBAD).  What is wrong past that (not ET_EXEC or
 * ET_DYN, bad segments) it finds after the old image is gone: the caller
 * dies of SIGSEGV (elf_image.fatal).  An interpreter's own PT_INTERP is
 * ignored, as Linux does.
 */
#include "proc/elf.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/uvm.h"
#include <uapi/errno.h>

#define MAX_PHSIZE 65536 /* Linux's load_elf_phdrs: a table of at most 64 KiB */

/* The path a PT_INTERP segment holds (kmalloc'd into *path): 0, -ENOEXEC
 * for a bad length or a missing NUL, -EIO for a short file. */
static int read_interp_path(struct inode *ip, const struct elf64_phdr *ph, char **path)
{
	if (ph->filesz < 2 || ph->filesz > PATH_MAX)
		return -ENOEXEC;
	if (!(*path = kmalloc(ph->filesz)))
		return -ENOMEM;
	if (inode_read(ip, *path, ph->filesz, ph->offset) != (long)ph->filesz)
		return -EIO;
	return (*path)[ph->filesz - 1] ? -ENOEXEC : 0;
}

/* Linux's checks of the interpreter's header and program headers before
 * the point of no return: short file EIO, anything else ELIBBAD. */
static int check_interp_headers(struct inode *ip, struct elf_file *iv)
{
	size_t phsize;

	iv->ip = ip;
	if (inode_read(ip, &iv->eh, sizeof(iv->eh), 0) != (long)sizeof(iv->eh))
		return -EIO;
	if (memcmp(iv->eh.ident, ELF_MAGIC, 4) || iv->eh.machine != EM_X86_64 ||
	    iv->eh.phentsize != sizeof(struct elf64_phdr))
		return -ELIBBAD;
	phsize = (size_t)iv->eh.phnum * sizeof(struct elf64_phdr);
	if (!phsize || phsize > MAX_PHSIZE)
		return -ELIBBAD;
	if (!(iv->ph = kmalloc(phsize)))
		return -ENOMEM;
	return inode_read(ip, iv->ph, phsize, iv->eh.phoff) == (long)phsize ? 0 : -ELIBBAD;
}

/* path with its links resolved (kmalloc'd), as /proc/<pid>/maps names the
 * file, or NULL when memory runs out. */
static char *real_path(const char *path)
{
	char *buf = kmalloc(PATH_MAX), *abs = NULL;

	if (buf && !vfs_real_path(NULL, path, buf))
		abs = kstrdup(buf);
	kfree(buf);
	return abs;
}

int elf_open_interp(struct elf_file *ef, struct elf_image *img, struct elf_file *iv)
{
	struct elf64_phdr *ph = NULL;
	char *path = NULL;
	int err;

	for (int i = 0; i < ef->eh.phnum && !ph; i++)
		if (ef->ph[i].type == PT_INTERP)
			ph = &ef->ph[i];
	if (!ph)
		return 0;
	if ((err = read_interp_path(ef->ip, ph, &path)) ||
	    (err = vfs_lookup_exec(NULL, path, 0, &img->interp, NULL))) {
		kfree(path);
		return err;
	}
	if ((err = inode_deny_write_access(img->interp))) {
		inode_put(img->interp);
		img->interp = NULL;
		kfree(path);
		return err;
	}
	img->interp_path = real_path(path);
	kfree(path);
	if (!img->interp_path)
		return -ENOMEM;
	return check_interp_headers(img->interp, iv);
}

/* Linux's load_elf_interp: an ET_EXEC or ET_DYN file whose segments map
 * (the checks elf_read_headers makes, then elf_map's), entry inside. */
int elf_load_interp(struct elf_file *iv, struct uvm *u, struct elf_image *img)
{
	struct elf_image in = {0};
	int err = 0;

	if (iv->eh.type != ET_EXEC && iv->eh.type != ET_DYN)
		err = -EINVAL;
	if (!err)
		err = elf_check_header(&iv->eh, inode_size(iv->ip));
	if (!err)
		err = elf_map(iv, u, 0, &in);
	if (!err && (in.entry < USER_IMAGE_MIN || in.entry >= in.end))
		err = -EINVAL;
	if (err) {
		img->fatal = true;
		return err;
	}
	img->base = in.base;
	img->start = in.entry;
	return 0;
}
