/*
 * uname(2): struct utsname, Linux layout (six 65-byte strings), shared by
 * the kernel and libc/.
 */
#ifndef UAPI_UTSNAME_H
#define UAPI_UTSNAME_H

#define UTSNAME_LENGTH 65

struct utsname {
	char sysname[UTSNAME_LENGTH];
	char nodename[UTSNAME_LENGTH];
	char release[UTSNAME_LENGTH];
	char version[UTSNAME_LENGTH];
	char machine[UTSNAME_LENGTH];
	char domainname[UTSNAME_LENGTH];
};

#endif
