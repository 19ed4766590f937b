/*
 * Directory reading.  Replaces newlib's <dirent.h>, which stops with #error
 * for this target: DIR reads getdents64 records (libc/sys/dir.c).
 */
#ifndef _DIRENT_H_
#define _DIRENT_H_

#include <stdint.h>
#include <sys/types.h>
#include <uapi/dirent.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dirent {
	ino_t d_ino;
	off_t d_off;
	unsigned short d_reclen;
	unsigned char d_type; /* DT_* */
	char d_name[256];
};

typedef struct fdk_dir DIR;

DIR *opendir(const char *path);
struct dirent *readdir(DIR *dir);
void rewinddir(DIR *dir);
int closedir(DIR *dir);
int dirfd(DIR *dir);

/* Raw getdents64 records (struct uapi_dirent64) into buf. */
ssize_t getdents(int fd, void *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
