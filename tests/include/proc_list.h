/*
 * Reading /proc listings in tests (newlib and musl alike): whether a
 * directory such as /proc/self/task lists exactly the given numbers.
 */
#ifndef USER_PROC_LIST_H
#define USER_PROC_LIST_H

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>

/* True if the directory at path lists each of ids[0..n) and no other name
 * besides "." and "..". */
static inline bool lists_exactly(const char *path, const int *ids, int n)
{
	int found = 0, others = 0;
	struct dirent *d;
	DIR *dp = opendir(path);

	while (dp && (d = readdir(dp))) {
		bool mine = false;
		if (d->d_name[0] == '.')
			continue;
		for (int i = 0; i < n; i++)
			mine |= atoi(d->d_name) == ids[i];
		found += mine;
		others += !mine;
	}
	if (dp)
		closedir(dp);
	return dp && found == n && !others;
}

#endif
