/*
 * The namespace files' ioctl requests: Linux x86_64 values (<linux/nsfs.h>,
 * _IO(0xb7, n)).
 */
#ifndef UAPI_NSFS_H
#define UAPI_NSFS_H

#define NS_GET_USERNS	 0xb701 /* an fd of the owning user namespace */
#define NS_GET_PARENT	 0xb702 /* an fd of the parent (pid, user) */
#define NS_GET_NSTYPE	 0xb703 /* the CLONE_NEW* of its kind */
#define NS_GET_OWNER_UID 0xb704 /* uid_t *: a user namespace's owner */

#endif
