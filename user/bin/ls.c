/* ls: lists directories (names in order, dot files hidden) and files; with
 * -l each line also shows the type, permissions and size. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"

static bool long_format;

static char type_char(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return 'd';
	case S_IFCHR:
		return 'c';
	case S_IFIFO:
		return 'p';
	case S_IFLNK:
		return 'l';
	case S_IFSOCK:
		return 's';
	default:
		return '-';
	}
}

/* Print one entry: NAME, stat-ed through PATH in the long format. */
static int show(const char *path, const char *name)
{
	struct stat st;
	char perms[10];
	if (!long_format) {
		puts(name);
		return 0;
	}
	if (lstat(path, &st) < 0)
		return cmd_error("ls", path);
	for (int i = 0; i < 9; i++)
		perms[i] = st.st_mode & (0400 >> i) ? "rwxrwxrwx"[i] : '-';
	perms[9] = '\0';
	printf("%c%s %10lld %s\n", type_char(st.st_mode), perms, (long long)st.st_size, name);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the visible names of DIR into a sorted, malloc'ed array. */
static char **read_names(DIR *dir, size_t *count)
{
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof *names);
		names[n++] = strdup(de->d_name);
	}
	qsort(names, n, sizeof *names, compare_names);
	*count = n;
	return names;
}

static int list_dir(const char *path, DIR *dir)
{
	size_t n;
	char **names = read_names(dir, &n), full[1024];
	int status = 0;
	closedir(dir);
	for (size_t i = 0; i < n; i++) {
		snprintf(full, sizeof full, "%s/%s", path, names[i]);
		status |= show(full, names[i]);
		free(names[i]);
	}
	free(names);
	return status;
}

static int list(const char *path)
{
	struct stat st;
	DIR *dir;
	if (stat(path, &st) < 0)
		return cmd_error("ls", path);
	if (!S_ISDIR(st.st_mode))
		return show(path, path);
	if (!(dir = opendir(path)))
		return cmd_error("ls", path);
	return list_dir(path, dir);
}

int main(int argc, char **argv)
{
	int first = 1, status = 0;
	if (argc > 1 && strcmp(argv[1], "-l") == 0) {
		long_format = true;
		first = 2;
	}
	if (first == argc)
		return list(".");
	for (int i = first; i < argc; i++) {
		if (argc - first > 1 && i > first)
			putchar('\n');
		if (argc - first > 1)
			printf("%s:\n", argv[i]);
		status |= list(argv[i]);
	}
	return status;
}
