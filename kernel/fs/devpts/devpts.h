/*
 * devpts (fs/devpts/devpts.c): the file system mounted on /dev/pts, one
 * node per pseudo-terminal slave, made up at each lookup and listing from
 * tty/pty.c's node interface (pty_node).
 */
#ifndef FS_DEVPTS_H
#define FS_DEVPTS_H

struct fs_type;
extern const struct fs_type devpts_type;

struct file;
struct inode;
struct path;

/* The inode of /dev/pts/<index>, referenced, in *out: 0 or -ENOENT
 * (no such pty, or its master is gone), -ENOMEM. */
int devpts_node(int index, struct inode **out);
/* The instance's root as the caller's /dev/pts shows it, referenced (the
 * directory and mount of a file opened without a name, TIOCGPTPEER's):
 * 0, or -ENOENT when /dev/pts is not the instance's root. */
int devpts_path(struct path *out);
/* Opening node f->inode (devices.c, major 136): pty_slave_open;
 * -ENXIO for a 136:N node outside devpts (mknod). */
int devpts_open(struct file *f, unsigned flags);
/* Mounts it on /dev/pts (devices.c, at boot). */
void devpts_init(void);

#endif
