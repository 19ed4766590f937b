/*
 * stdio on a real file in /tmp: fopen/fputs/fwrite, fgets/fread, fseek
 * and ftell, append mode, then unlink and ENOENT when reopening.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

int main(void)
{
	char path[64], line[64], data[1000], back[1000];

	snprintf(path, sizeof(path), "/tmp/fdk-stdio-%d", (int)getpid());
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	plan(11);

	FILE *f = fopen(path, "w");
	if (!ok(f != NULL, "fopen for writing"))
		return done();
	fputs("first line\nsecond line\n", f);
	is_int(fwrite(data, 1, sizeof(data), f), sizeof(data), "fwrite 1000 bytes");
	is_int(fclose(f), 0, "fclose flushes");

	f = fopen(path, "r");
	ok(f && fgets(line, sizeof(line), f) && strcmp(line, "first line\n") == 0, "fgets line 1");
	ok(f && fgets(line, sizeof(line), f) && strcmp(line, "second line\n") == 0, "fgets line 2");
	ok(f && fread(back, 1, sizeof(back), f) == sizeof(back) &&
	       memcmp(back, data, sizeof(data)) == 0,
	   "fread returns what fwrite wrote");
	ok(f && fseek(f, 6, SEEK_SET) == 0 && fgets(line, sizeof(line), f) &&
	       strcmp(line, "line\n") == 0 && ftell(f) == 11,
	   "fseek and ftell");
	if (f)
		fclose(f);

	f = fopen(path, "a");
	if (f) {
		fputs("tail\n", f);
		fclose(f);
	}
	f = fopen(path, "r");
	ok(f && fseek(f, -5, SEEK_END) == 0 && fgets(line, sizeof(line), f) &&
	       strcmp(line, "tail\n") == 0,
	   "append mode writes at the end");
	if (f)
		fclose(f);

	is_int(unlink(path), 0, "unlink");
	errno = 0;
	ok(fopen(path, "r") == NULL, "fopen of the removed file fails");
	is_int(errno, ENOENT, "... with ENOENT");
	return done();
}
