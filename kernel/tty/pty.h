/*
 * Pseudo-terminals (tty/pty.c, docs/tty.md): /dev/ptmx (5:2) opens a new
 * master; its slave /dev/pts/N (136:N) is a terminal with the line
 * discipline.  fs/devpts shows the slaves through the node interface
 * below.
 */
#ifndef TTY_PTY_H
#define TTY_PTY_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct file_ops;

#define PTY_SLAVE_MAJOR 136
/* Device numbers as Linux's new_encode_dev (minor bits 8.. above the
 * major), which the old 8:8 MKDEV is for minors below 256. */
#define RDEV_MAJOR(rdev)   (((rdev) >> 8) & 0xfff)
#define RDEV_MINOR(rdev)   (((rdev)&0xff) | (((rdev) >> 12) & ~0xffu))
#define MKDEV_WIDE(ma, mi) (((mi)&0xff) | ((ma) << 8) | (((mi) & ~0xffu) << 12))

/* The master's file operations (devices.c: 5:2). */
extern const struct file_ops ptmx_ops;
/* Opening /dev/ptmx as f: a new pty, f its master.  0, -ENOSPC past
 * /proc/sys/kernel/pty/max, -ENOMEM. */
int ptmx_open(struct file *f, unsigned flags);
/* Opening the slave of pty index, which a devpts node names with its
 * serial, as f: 0, -EIO while locked or once its master is gone. */
int pty_slave_open(struct file *f, int index, uint64_t serial, unsigned flags);

/* What devpts shows of pty index: a node while its master is open. */
struct pty_node {
	uint64_t serial;	 /* never reused: names this pty, not the index */
	uint32_t uid, gid, mode; /* the node's owner and permissions */
	uint64_t ctime_ns;	 /* when it was made */
};
/* pty index's node: true and *out if it has one. */
bool pty_node(int index, struct pty_node *out);
/* The smallest index >= from with a node, or -1 (a listing's walk). */
int pty_next_node(int from);
/* Ptys alive (leak accounting, /proc/sys/kernel/pty/nr). */
unsigned long pty_count(void);

#endif
