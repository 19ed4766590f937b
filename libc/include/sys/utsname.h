/*
 * uname() (newlib has no <sys/utsname.h>): struct utsname from kernel/uapi.
 */
#ifndef _SYS_UTSNAME_H
#define _SYS_UTSNAME_H

#include <uapi/utsname.h>

#ifdef __cplusplus
extern "C" {
#endif

int uname(struct utsname *buf);

#ifdef __cplusplus
}
#endif
#endif
