/*
 * The operations of the character devices fs/dev/ holds beside
 * devices.c's own (null, zero, full), for its table of /dev nodes.
 */
#ifndef FS_DEV_DEV_OPS_H
#define FS_DEV_DEV_OPS_H

struct file_ops;

extern const struct file_ops profile_ops; /* /dev/profile: profile.c */
extern const struct file_ops random_ops;  /* /dev/random, /dev/urandom: random.c */

#endif
